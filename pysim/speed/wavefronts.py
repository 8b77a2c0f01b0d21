"""What one warp-level memory instruction costs: sectors, lines and L1TEX/shared wavefronts.

The bank model is *modelled* (scratch/speed FACTS.md §4), from NVIDIA forum answers:
32-bit accesses form one phase of 32 lanes, 64-bit two phases of 16, 128-bit four
quarter-warp phases of 8, or two of 16 when every lane pair (n, n^1) or (n, n^2)
shares an address. A phase costs the largest number of *distinct* 4-byte words any
bank holds (one word read by many lanes is a broadcast). A global request costs
max(data-stage wavefronts by the same bank rule, lines / 4 tag lookups per clock).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import ceil

import numpy as np

from ..core.constants import NUM_BANKS, SECTOR_BYTES, WARP_SIZE, WORD_BYTES

LINE_BYTES = 128
TAGS_PER_CLOCK = 4  # Volta's L1 tag stage (forum 49571/14), assumed on later chips
LANES = np.arange(
    WARP_SIZE, dtype=np.int64
)  # byte addresses pass 2**31: int64 even where NumPy defaults to int32 (Pyodide)
ALL_LANES = [LANES]


def _phases(addrs: np.ndarray, width: int) -> list[np.ndarray]:
    """The lane groups the hardware serves one after another (negative address: lane inactive)."""
    if width <= WORD_BYTES:
        return ALL_LANES
    if width == 2 * WORD_BYTES:
        return [LANES[:16], LANES[16:]]
    active = addrs >= 0
    for partner in (1, 2):
        other = LANES ^ partner
        if np.all((addrs == addrs[other]) | ~active | ~active[other]):
            return [LANES[:16], LANES[16:]]
    return [LANES[i : i + 8] for i in range(0, WARP_SIZE, 8)]


def bank_wavefronts(addrs: np.ndarray, width: int) -> int:
    """Wavefronts of one warp instruction whose lanes touch `width` bytes at `addrs`."""
    total = 0
    for phase in _phases(addrs, width):
        a = addrs[phase]
        a = a[a >= 0]
        if a.size:
            words = np.unique((a[:, None] // WORD_BYTES + np.arange(width // WORD_BYTES)[None, :]).ravel())
            total += int(np.bincount((words % NUM_BANKS).astype(np.intp), minlength=NUM_BANKS).max())
    return total


def sectors_lines(addrs: np.ndarray, width: int) -> tuple[int, int]:
    """Distinct 32 B sectors and 128 B lines one request touches."""
    a = addrs[addrs >= 0]
    if a.size == 0:
        return 0, 0
    ends = a + width - 1
    sectors = np.unique(np.concatenate([a // SECTOR_BYTES, ends // SECTOR_BYTES])).size
    lines = np.unique(np.concatenate([a // LINE_BYTES, ends // LINE_BYTES])).size
    return int(sectors), int(lines)


@dataclass(frozen=True)
class Tally:
    """Warp-level memory instructions and what they cost, summed. `c_*` is the beta·C read of the epilogue."""

    ldg: int = 0
    ldg_sectors: int = 0
    c_ldg: int = 0
    c_sectors: int = 0
    stg: int = 0
    stg_sectors: int = 0
    global_wavefronts: int = 0
    lds: int = 0
    sts: int = 0
    shared_wavefronts: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def times(self, factor: int) -> Tally:
        return Tally(*(getattr(self, f.name) * factor for f in fields(self)))


def tally(kind: str, width: int, addrs: np.ndarray) -> Tally:
    """One instruction: kind is ldg (A/B), ldc (C read), stg, lds or sts; `width` in bytes per lane."""
    if kind in ("lds", "sts"):
        waves = bank_wavefronts(addrs, width)
        return Tally(lds=kind == "lds", sts=kind == "sts", shared_wavefronts=waves)
    sectors, lines = sectors_lines(addrs, width)
    waves = max(bank_wavefronts(addrs, width), ceil(lines / TAGS_PER_CLOCK))
    if kind == "ldg":
        return Tally(ldg=1, ldg_sectors=sectors, global_wavefronts=waves)
    if kind == "ldc":
        return Tally(c_ldg=1, c_sectors=sectors, global_wavefronts=waves)
    return Tally(stg=1, stg_sectors=sectors, global_wavefronts=waves)
