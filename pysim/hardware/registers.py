"""Register budget of one thread of the register-tiled kernel (an estimate, stated as such).

A thread keeps TM·TN accumulators, TM values of regM and TN of regN in registers,
plus a few for indices, pointers and loop counters. The compiler decides the
real number (and spills to local memory past the limit); this estimate only
needs to be right about the order of magnitude, so the overhead is a round,
stated figure rather than a measurement.
"""

from __future__ import annotations

from dataclasses import dataclass

CUDA_GUIDE_LIMITS = (
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications"
)
MAX_REGISTERS_PER_THREAD = 255  # every compute capability from 3.5 on (CUDA C++ Programming Guide, table of limits)
OVERHEAD_ESTIMATE = 16  # indices, pointers, loop counters: an estimate, not a compiler's count


@dataclass(frozen=True)
class RegisterBudget:
    """Registers one thread needs for a TM×TN outer product, by part."""

    TM: int
    TN: int

    @property
    def accumulators(self) -> int:
        return self.TM * self.TN

    @property
    def fragments(self) -> int:
        return self.TM + self.TN

    @property
    def total(self) -> int:
        return self.accumulators + self.fragments + OVERHEAD_ESTIMATE

    @property
    def fits(self) -> bool:
        return self.total <= MAX_REGISTERS_PER_THREAD

    def breakdown(self) -> str:
        """The estimate by part, for messages: '16·16 = 256 accumulators + 16+16 = 32 fragments + 16 overhead = 304'."""
        return (
            f"{self.TM}·{self.TN} = {self.accumulators} accumulators + {self.TM}+{self.TN} = {self.fragments} "
            f"fragment values (regM, regN) + {OVERHEAD_ESTIMATE} overhead = {self.total}"
        )


def largest_square_tile(limit: int = MAX_REGISTERS_PER_THREAD) -> int:
    """The largest TM = TN whose estimate fits in `limit` registers: where the intensity chart's wall stands."""
    side = 1
    while RegisterBudget(side + 1, side + 1).total <= limit:
        side += 1
    return side
