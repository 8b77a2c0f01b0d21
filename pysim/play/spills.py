"""Which `cuda.local.array`s a GPU keeps in registers, and which it spills to local memory.

A thread has at most 255 32-bit registers on every compute capability from 5.0 to 12.x (CUDA C++
Programming Guide, "Compute Capabilities", table "Technical Specifications per Compute Capability":
"Maximum number of 32-bit registers per thread: 255",
https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications).
nvcc keeps a local array in registers only whole (an array is one object, its words renamed to
registers once every index is a constant after unrolling); an array it cannot keep lives in local
memory, which is per-thread device memory reached through L1 like global memory.

TileLab's rule, a lower bound on what nvcc spills: local arrays take registers in the order the kernel
declares them; an array whose words do not fit in what is left of the 255 is spilled whole, and every
access to it is a local-memory access. Real kernels spill earlier (indices, addresses and loop counters
need registers too, and an array indexed by a run-time value goes to local memory at any size), so a
kernel this rule spills certainly spills on a GPU; the rule never charges an honest register tile
(siboehm's kernels hold at most 64 + 8 + 8 words).
"""

from __future__ import annotations

from .program import Allocation, Program

REGISTERS_PER_THREAD = 255


def spilled(program: Program) -> tuple[Allocation, ...]:
    """The local arrays of `program` that do not fit in a thread's registers (see the module docstring)."""
    left, found = REGISTERS_PER_THREAD, []
    for allocation in program.allocations:
        if allocation.space != "register":
            continue
        if allocation.words <= left:
            left -= allocation.words
        else:
            found.append(allocation)
    return tuple(found)


def spill_words(program: Program) -> int:
    """Local-memory words per thread: the spilled arrays' words."""
    return sum(allocation.words for allocation in spilled(program))


def spill_text(program: Program) -> str:
    """The spilled arrays named, e.g. "acc (4,096 words, line 12)"; empty when nothing spills."""
    return ", ".join(f"{a.name} ({a.words:,} words, line {a.line})" for a in spilled(program))
