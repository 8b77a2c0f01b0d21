"""An interval's warp instructions, one record per (access, row, warp), for the playground's table.

A row of an access holds the lanes that executed its site in one iteration of
the loops around it (pysim.play.counting: lockstep), so one (row, warp) is one
warp-wide instruction with its active lanes.

Each record says how many lanes take part and what the instruction costs: the
32-byte sectors of a global access (`pysim.core.sectors`) or the conflict degree
of a shared one (`pysim.core.banks`), as the counters count them. Its lanes, one
by one, come from `pysim.core.lanes` (the records the warp pictures draw).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..core import banks, lanes, sectors
from ..core.constants import SECTOR_BYTES, WARP_SIZE, WORD_BYTES
from ..core.trace import Access, Step
from ..core.warps import INACTIVE, by_warp
from .program import Program

# A warp's 32 floats in a row fill 4 sectors: a load or store touching no more is coalesced.
COALESCED_SECTORS = WARP_SIZE * WORD_BYTES // SECTOR_BYTES


@dataclass(frozen=True)
class WarpInstruction:
    """One warp-wide instruction of one access: `count` is its sectors (global) or conflict degree (shared)."""

    access: Access
    lines: tuple[int, ...]  # source lines of the subscripts it comes from
    occurrence: int  # the row of the access: which iteration of the site's loops (in execution order)
    warp: int
    active: int  # lanes that take part
    count: int

    @property
    def is_global(self) -> bool:
        return self.access.space == "global"

    @property
    def coalesced(self) -> bool:
        return self.count <= COALESCED_SECTORS

    @property
    def conflict_free(self) -> bool:
        return self.count <= 1

    def sectors(self) -> lanes.WarpSectors:
        """Its lanes and the sectors they touch (a global access)."""
        return lanes.warp_sectors(self.access, self.warp, self.occurrence)

    def banks(self) -> lanes.WarpBanks:
        """Its lanes and the words each bank serves (a shared access)."""
        return lanes.warp_banks(self.access, self.warp, self.occurrence)


def warp_instructions(program: Program, step: Step) -> Iterator[WarpInstruction]:
    """Every warp instruction of `step` in which some lane takes part, grouped by source line, then by warp (a
    warp's instructions of one line together, in execution order): the order the playground's table lists."""

    def lines_of(access: Access) -> tuple[int, ...]:
        return tuple(sorted({s.line for s in program.sites if s.array == access.array and s.op == access.op}))

    for access in sorted(step.accesses, key=lines_of):  # stable: one line's accesses keep their order
        found_lines = lines_of(access)
        words = access.words
        grouped = by_warp(words)  # (occurrences, warps, lanes)
        active = (grouped != INACTIVE).sum(axis=-1)
        if access.space == "global":
            counts = sectors.warp_sectors(words)
        else:  # the worst phase's degree (an 8-byte element's two halves of a warp are two phases)
            counts = banks.phase_degrees(*access.bank_words()).max(axis=-1)
        for warp in range(grouped.shape[1]):
            for occurrence in range(grouped.shape[0]):
                if active[occurrence, warp]:
                    yield WarpInstruction(
                        access,
                        found_lines,
                        occurrence,
                        warp,
                        int(active[occurrence, warp]),
                        int(counts[occurrence, warp]),
                    )
