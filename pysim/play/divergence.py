"""Barrier divergence: at the end of an interval, some threads of the block wait at a barrier while
others finished, or they wait at different barrier instances (another `cuda.syncthreads()`, or the same
one in another iteration).
"""

from __future__ import annotations

from .diagnostics import Diagnostic, Diagnostics
from .launch import thread_xy
from .runtime import Vectors
from .scheduler import Interval

# threads that have not exited (CUDA C++ Programming Guide, "Independent Thread Scheduling" under compute
# capability 7.x: bar.sync "will not succeed until reached by all non-exited threads in the block"; PTX ISA,
# `exit`: exiting threads holding up a barrier release it), so an early return does not hang. Threads at
# different barriers break the rule of the guide's "Synchronization Functions": __syncthreads() in conditional
# code only if the condition is the same for the whole block, "otherwise the code execution is likely to hang or
# produce unintended side effects".
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#independent-thread-scheduling-7-x
# https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#control-flow-instructions-exit
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#synchronization-functions
EXITED_THREADS = (
    "On a GPU of compute capability 7.0 or later this does not hang: a barrier waits only for the threads that "
    "have not exited, so the others go on without them. The bug is the work those threads skip: the tile "
    "elements they would have loaded into shared memory are never stored, and the threads that wait read "
    "whatever was there. Keep every thread of the block in the loop (guard its loads and stores instead of "
    "returning)"
)
# A kernel with no `return`: the threads that finished ran to its end past a cuda.syncthreads() they never
# reached, so the barrier sits under a condition that differs across the block (`if tid < 16: syncthreads()`),
# which the guide's "Synchronization Functions" forbids; the early-return text above would be wrong there.
SKIPPED_BARRIER = (
    "The barrier is under a condition that is not the same for the whole block. CUDA allows "
    "cuda.syncthreads() in conditional code only when the condition is the same for every thread of the block; "
    "otherwise the kernel is likely to hang or to let threads past each other's barrier. Move the barrier out "
    "of the condition so that every thread of the block reaches it"
)
DIFFERENT_BARRIERS = (
    "Threads of one block waiting at different barriers is what deadlocks or misbehaves on a GPU: CUDA allows "
    "cuda.syncthreads() under a condition only when the condition is the same for the whole block, otherwise "
    "the kernel is likely to hang or to let threads past each other's barrier. Here TileLab lets them all pass"
)


def divergence(interval: Interval, numbering: Vectors, diagnostics: Diagnostics) -> None:
    """Threads that exited while others wait, and threads waiting at different barrier instances.

    An instance is a barrier statement in one iteration of each loop around it
    (`Interval.instances`): the same `cuda.syncthreads()` reached in different
    iterations is as much two barriers as two calls on different lines.
    """
    waiting = interval.waiting
    if not waiting:
        return
    if not interval.finished and len(set(waiting.values())) == 1 and len(set(interval.instances.values())) == 1:
        return  # every thread waits at one barrier instance: the usual case, decided without a Python loop
    statements = diagnostics.program.statements
    numbered: dict[tuple[int, int], list[int]] = {}
    for linear, barrier in interval.waiting.items():
        numbered.setdefault((barrier, interval.instances[linear]), []).append(linear)
    vectors = numbering.by_number() if len(numbered) > 1 else []  # the message names iterations only then
    instances = {
        (barrier, vectors[number] if vectors else ()): threads for (barrier, number), threads in numbered.items()
    }
    ordered = sorted(instances.items(), key=lambda item: -len(item[1]))
    block = interval.block
    if interval.finished:
        (barrier, _), threads = ordered[0]
        line = statements[barrier].line
        xy = thread_xy(diagnostics.launch, interval.finished[0])
        if any(statement.kind == "return" for statement in statements):
            text = (
                f"barrier divergence in block {block}: thread {xy} finished without reaching cuda.syncthreads() "
                f"at line {line}, where {len(threads)} thread(s) of the block wait; {len(interval.finished)} "
                f"thread(s) finished early. {EXITED_THREADS}"
            )
        else:
            text = (
                f"barrier divergence in block {block}: cuda.syncthreads() at line {line} is reached by "
                f"{len(threads)} thread(s) of the block and skipped by {len(interval.finished)} that ran to the "
                f"end of the kernel without it (thread {xy} among them). {SKIPPED_BARRIER}"
            )
        diagnostics.add(Diagnostic("barrier_divergence", line, xy, block, text), ("barrier_divergence", line))
    if len(ordered) > 1:
        ((main, main_iteration), _), ((other, other_iteration), threads) = ordered[0], ordered[1]
        line, other_line = statements[other].line, statements[main].line
        xy = thread_xy(diagnostics.launch, threads[0])
        if other == main:
            loops = statements[main].loops
            level = next(i for i, (a, b) in enumerate(zip(main_iteration, other_iteration)) if a != b)
            where = (
                f"the same cuda.syncthreads() at line {line} in different iterations of the loop at line "
                f"{statements[loops[level]].line}: thread {xy} in its iteration {other_iteration[level]}, most "
                f"threads in iteration {main_iteration[level]}"
            )
        else:
            counts = ", ".join(f"line {statements[b].line}: {len(t)}" for (b, _), t in ordered)
            where = (
                f"different cuda.syncthreads() calls ({counts} threads); thread {xy} waits at line {line} while "
                f"most wait at line {other_line}"
            )
        text = f"barrier divergence in block {block}: threads wait at {where}. {DIFFERENT_BARRIERS}"
        diagnostics.add(
            Diagnostic("barrier_divergence", line, xy, block, text, other_line=other_line),
            ("barrier_divergence", line, other_line, other == main),
        )
