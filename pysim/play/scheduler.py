"""Run every thread of a block, barrier interval by barrier interval, and hand each interval on.

Each simulated thread is a Python generator (the rewritten kernel, `pysim.play.rewrite`) that runs until
its next `cuda.syncthreads()` (a `yield`) or its end. The scheduler runs every live thread of a block up
to the barrier, hands the interval to the analysis (`on_interval`), then lets them all pass. Python errors
stop the run with the student's line; so does the step budget, which counts every statement, access and
loop iteration, every block and every thread started.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .guards import namespace as kernel_namespace
from .launch import Launch, block_xy, error_line
from .program import Program
from .runtime import Array, Runtime, StepBudgetError
from .warps import Problem, Request, WarpError, resolve, tally


@dataclass(frozen=True)
class Interval:
    """One barrier interval of one block, as the scheduler hands it to the analysis."""

    block: tuple[int, ...]  # (bx, by), or (bx, by, bz) in a 3-D grid
    number: int  # 0 for the first interval of the block
    segments: tuple[tuple[int, list[int]], ...]  # (linear thread id, the statements it executed in this interval)
    records: tuple[tuple[int, int], ...]  # (thread, accesses it added to Runtime.records), in the order they ran
    waiting: dict[int, int]  # thread -> statement number of the barrier it waits at
    instances: dict[int, int]  # thread -> the iteration vector (Runtime.vectors) of the barrier it waits at
    finished: tuple[int, ...]  # threads that ended in this interval
    stopped: bool  # the run stopped inside this interval (error or step budget)
    # thread -> each cuda.syncwarp() it passed in this interval: (its ordinal, the round of warp calls resolved,
    # the lanes it is ordered with there as a bitmask); pysim.play.warp_order reads it
    warp_syncs: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Stop:
    """Why the run stopped early: the step budget or a Python error, with where."""

    kind: str  # step_budget | error
    line: int
    thread: int
    block: tuple[int, ...]
    message: str


def schedule(
    program: Program,
    launch: Launch,
    arrays: tuple[Array, Array, Array],
    runtime: Runtime,
    on_interval: Callable[[Interval], None],
) -> Stop | None:
    """Run every block of the grid, one barrier interval at a time; None when every thread finished."""
    namespace = kernel_namespace(runtime)
    exec(program.kernel_code, namespace)
    kernel = namespace["kernel"]
    bdx, bdy, bdz = launch.block3
    gdx, gdy, gdz = launch.grid3
    threads = [(t % bdx, t // bdx % bdy, t // (bdx * bdy)) for t in range(launch.threads)]  # warps fill x, y, z
    statements = program.statements
    values = runtime.values  # one per access
    budget = runtime.max_steps
    for linear in range(launch.blocks):  # x fastest, then y, then z
        block = block_xy(launch, linear)
        bx, by, bz = (*block, 0)[:3]
        # Starting a block and each of its threads costs a step, so a launch of empty threads is bounded too.
        runtime.executed += 1 + len(threads)
        if runtime.executed > runtime.max_steps:
            return Stop("step_budget", 0, 0, block, f"stopped after {runtime.max_steps:,} steps")
        runtime.new_block(block)
        streams: list[list] = [[] for _ in threads]
        generators = [
            kernel(*arrays, streams[t], tx, ty, tz, bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz)
            for t, (tx, ty, tz) in enumerate(threads)
        ]
        live = list(range(len(threads)))
        passing: dict[int, Any] = {}  # what cuda.syncthreads_count/and/or returns to each thread
        number = 0
        while live:
            runtime.interval = number
            waiting: dict[int, int] = {}
            instances: dict[int, int] = {}
            finished: list[int] = []
            made: list[tuple[int, int]] = []
            segments: list[tuple[int, list[int]]] = []
            stop: Stop | None = None
            executed = runtime.executed  # a local in the loop, which runs for every thread of every interval
            starts = {t: len(streams[t]) for t in live}
            parked: dict[int, Request] = {}  # threads at a warp primitive (pysim.play.warps)
            warp_syncs: dict[int, list[tuple[int, int, int]]] = {}
            rounds = 0  # warp calls resolved so far: one instance per warp each round
            sends, votes = passing, {}  # what each resumed thread's call returns; syncthreads_count's votes
            queue = live
            while queue:
                for t in queue:
                    stream = streams[t]
                    start, before = len(stream), len(values)
                    runtime.stream, runtime.thread = stream, t
                    namespace["_pl_allow"] = budget - executed + start + before
                    runtime.charged = 0
                    try:
                        request = generators[t].send(sends.pop(t, None))
                        if len(request) <= 4:  # a barrier, or a counting barrier with its vote
                            waiting[t], instances[t] = request[:2]
                            votes[t] = request[2:]
                        else:
                            parked[t] = request
                    except StopIteration:
                        finished.append(t)
                    except StepBudgetError:
                        line = statements[stream[-1]].line if stream else 0
                        stop = Stop("step_budget", line, t, block, f"stopped after {runtime.max_steps:,} steps")
                    except Exception as error:  # noqa: BLE001 - the student's code may fail in any way
                        stop = Stop("error", error_line(error), t, block, f"{type(error).__name__}: {error}")
                    accesses = len(values) - before
                    if accesses:
                        made.append((t, accesses))
                    executed += len(stream) - start + accesses + runtime.charged
                    if stop is None and executed > budget:
                        stop = Stop("step_budget", 0, t, block, f"stopped after {runtime.max_steps:,} steps")
                    if stop is not None:
                        break
                if stop is not None or not parked:
                    break
                found: list[Problem] = []
                synced: dict[int, int] = {}
                try:
                    sends = resolve(parked, runtime.vectors, found, synced)
                except WarpError as error:
                    stop = Stop("error", error.line, error.thread, block, f"KernelError: {error}")
                    break
                finally:
                    runtime.warp_problems.extend((line, t, block, text) for line, t, text in found)
                for t, lanes in synced.items():  # the syncwarp is the thread's last statement so far
                    warp_syncs.setdefault(t, []).append((len(streams[t]) - starts[t], rounds, lanes))
                rounds += 1
                queue = sorted(sends)
            segments.extend((t, streams[t][starts[t] :]) for t in live if len(streams[t]) > starts[t])
            runtime.executed = executed
            on_interval(
                Interval(
                    block,
                    number,
                    tuple(segments),
                    tuple(made),
                    waiting,
                    instances,
                    tuple(finished),
                    stop is not None,
                    warp_syncs,
                )
            )
            if stop is not None:
                return stop
            live = [t for t in live if t in waiting]
            passing = tally(waiting, instances, votes)
            number += 1
    return None
