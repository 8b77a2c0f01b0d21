"""What warp-level memory instructions cost: sectors, lines and L1TEX/shared wavefronts.

The bank model is *modelled* (scratch/speed FACTS.md §4), from NVIDIA forum answers, in
pysim.core.banks (one rule for the counters and this model): 32-bit accesses form one phase
of 32 lanes, 64-bit two phases of 16, 128-bit four quarter-warp phases of 8, or two of 16
when every lane pair (n, n^1) or (n, n^2) shares an address. A phase costs the largest number of *distinct* 4-byte words any
bank holds (one word read by many lanes is a broadcast). A global request costs
max(data-stage wavefronts by the same bank rule, lines / 4 tag lookups per clock).

Instructions are priced in bulk, one row of lane addresses per warp instruction, with NumPy over all
the rows of one kind and width at once: a block of the ladder's kernels issues thousands of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, fields

import numpy as np

from ..core.banks import phase_degrees
from ..core.bulk import distinct_per_group, row_groups
from ..core.constants import SECTOR_BYTES, WARP_SIZE, WORD_BYTES
from ..core.warps import INACTIVE

LINE_BYTES = 128
TAGS_PER_CLOCK = 4  # Volta's L1 tag stage (forum 49571/14), assumed on later chips
# Rows priced in one go: enough to spread NumPy's cost per call thin, few enough that the arrays stay a
# few MB (a block of 1,024 threads can issue ~80,000 warp instructions; a browser's heap never shrinks).
CHUNK_ROWS = 4096
Instr = tuple[str, int, np.ndarray]  # kind, bytes per lane (4, 8 or 16), byte address per lane: (..., WARP_SIZE)


def bank_wavefronts(addrs: np.ndarray, width: int) -> np.ndarray:
    """Wavefronts of each warp instruction, one per row of `addrs` (instructions, WARP_SIZE): its lanes
    touch `width` bytes at those addresses (negative: lane inactive). The phases, 128-bit pairs included,
    are pysim.core.banks's one rule."""
    words = np.where(addrs >= 0, addrs // WORD_BYTES, INACTIVE)
    return phase_degrees(words, width // WORD_BYTES).sum(axis=(1, 2))


def sectors_lines(addrs: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct 32 B sectors and 128 B lines each warp instruction (a row of `addrs`) touches: those of
    its lanes' first and last bytes (a lane's `width` bytes span at most two of each)."""
    active = addrs >= 0

    def spans(unit: int) -> np.ndarray:
        ends = [np.where(active, a // unit, INACTIVE) for a in (addrs, addrs + width - 1)]
        return distinct_per_group(*row_groups(np.concatenate(ends, axis=-1), INACTIVE))

    return spans(SECTOR_BYTES), spans(LINE_BYTES)


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


def tally(instructions: Iterable[Instr]) -> Tally:
    """Warp instructions summed, each (kind, width, addresses of one warp per row); kind is ldg (A/B),
    ldc (C read), stg, lds or sts. Instructions of one kind and width are priced together, CHUNK_ROWS
    rows at a time."""
    pending: dict[tuple[str, int], list[np.ndarray]] = {}
    held: Counter[tuple[str, int]] = Counter()
    total = Tally()
    for kind, width, addrs in instructions:
        key = (kind, width)
        pending.setdefault(key, []).append(addrs.reshape(-1, WARP_SIZE))
        held[key] += len(pending[key][-1])
        if held[key] >= CHUNK_ROWS:
            total += _priced(kind, width, np.concatenate(pending.pop(key)))
            del held[key]
    for (kind, width), rows in pending.items():
        total += _priced(kind, width, np.concatenate(rows))
    return total


def _priced(kind: str, width: int, addrs: np.ndarray) -> Tally:
    count, banks = len(addrs), bank_wavefronts(addrs, width)
    if kind in ("lds", "sts"):
        return Tally(lds=count * (kind == "lds"), sts=count * (kind == "sts"), shared_wavefronts=int(banks.sum()))
    found, lines = sectors_lines(addrs, width)
    # A global request: the data stage's wavefronts, or its lines at TAGS_PER_CLOCK a clock (rounded up).
    waves, sectors = int(np.maximum(banks, -(-lines // TAGS_PER_CLOCK)).sum()), int(found.sum())
    if kind == "ldg":
        return Tally(ldg=count, ldg_sectors=sectors, global_wavefronts=waves)
    if kind == "ldc":
        return Tally(c_ldg=count, c_sectors=sectors, global_wavefronts=waves)
    return Tally(stg=count, stg_sectors=sectors, global_wavefronts=waves)
