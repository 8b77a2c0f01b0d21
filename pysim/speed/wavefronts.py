"""What warp-level memory instructions cost: sectors, lines and L1TEX/shared wavefronts.

The bank model is *modelled* (scratch/speed FACTS.md §4), from NVIDIA forum answers, in
pysim.core.banks (one rule for the counters and this model): 32-bit accesses form one phase
of 32 lanes, 64-bit two phases of 16, 128-bit four quarter-warp phases of 8, or two of 16
when every lane pair (n, n^1) or (n, n^2) shares an address. A phase costs the largest number of *distinct* 4-byte words any
bank holds (one word read by many lanes is a broadcast). A global request costs
max(data-stage wavefronts by the same bank rule, lines / 4 tag lookups per clock).

The tag stage's 4 lines a clock is sourced (forum 49571/14: "The tag stage can look up 4 tags per cycle");
the bank rule's half is *modelled, unverified* for global loads: no NVIDIA document, forum answer or
published measurement found says a global request's data stage is served by banks as shared memory is
(issue 42 item 1: the Nsight Compute guide's L1TEX model and forums 165293/4, 273699/8 and 49571/14 describe
wavefronts of global requests by lines and sectors only). Where it raises a request's wavefronts, it is
what makes the naive kernel with threadIdx.x along C's rows 3-4× faster at N = 4097 than at 4096, in the
model only; `global_bank_wavefronts` counts what it adds, and the sentences resting on it say so.

Instructions are priced in bulk, one row of lane addresses per warp instruction, with NumPy over all
the rows of one kind and width at once: a block of the ladder's kernels issues thousands of them, in
a few hundred distinct access patterns (`patterns`), each priced once.
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
# Odd 64-bit multipliers of a row's lanes, their sum wrapping: a row's fingerprint (fixed, so runs repeat).
MIX = np.random.default_rng(44).integers(1, 1 << 62, WARP_SIZE, dtype=np.int64) | 1
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
    global_bank_wavefronts: int = 0  # of those, what the bank rule adds over the tag stage's (unverified)
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


def patterns(addrs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct access patterns among the rows of `addrs`, each once, and how many rows have it. A row's
    pattern is the row less its lowest active address rounded down to a line: a multiple of LINE_BYTES moves
    no lane to another bank (a line is one row of the 32 banks), sector or line than the others, so a pattern
    costs what each of its rows costs. A block's warps and iterations repeat a few hundred patterns in
    thousands of rows (13,200 rows, 310 patterns for the ladder's page at N=4096)."""
    active = addrs >= 0
    low = np.where(active, addrs, np.iinfo(np.int64).max).min(axis=1, keepdims=True)
    shifted = np.where(active, addrs - low // LINE_BYTES * LINE_BYTES, INACTIVE)
    # Rows are told apart by one 64-bit fingerprint each (a sort of 1-D keys: np.unique over rows sorts
    # them as raw bytes, several times slower); the patterns found are checked against every row, so a
    # fingerprint two different rows share only costs the slower way.
    _, first, which, counts = np.unique(shifted @ MIX, return_index=True, return_inverse=True, return_counts=True)
    found = shifted[first]
    if not np.array_equal(found[which.reshape(-1)], shifted):
        found, counts = np.unique(shifted, axis=0, return_counts=True)
    return found, counts


def _priced(kind: str, width: int, addrs: np.ndarray) -> Tally:
    count = len(addrs)
    rows, weight = patterns(addrs)
    banks = bank_wavefronts(rows, width)
    if kind in ("lds", "sts"):
        shared = int((banks * weight).sum())
        return Tally(lds=count * (kind == "lds"), sts=count * (kind == "sts"), shared_wavefronts=shared)
    found, lines = sectors_lines(rows, width)
    # A global request: the data stage's wavefronts, or its lines at TAGS_PER_CLOCK a clock (rounded up).
    tags = -(-lines // TAGS_PER_CLOCK)
    waves, tag_waves = int((np.maximum(banks, tags) * weight).sum()), int((tags * weight).sum())
    sectors = int((found * weight).sum())
    cost = {"global_wavefronts": waves, "global_bank_wavefronts": waves - tag_waves}
    if kind == "ldg":
        return Tally(ldg=count, ldg_sectors=sectors, **cost)
    if kind == "ldc":
        return Tally(c_ldg=count, c_sectors=sectors, **cost)
    return Tally(stg=count, stg_sectors=sectors, **cost)
