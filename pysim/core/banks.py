"""Shared-memory bank analysis: which words each bank is asked for by one warp.

A bank serves one 4-byte word per cycle. Threads asking one bank for different
words are served one after another (a conflict); threads asking for the same
word are served together (a broadcast).

A wide access (LDS/STS .64 or .128: each lane moves `width` consecutive words)
asks for more words than the 32 banks serve at once, so the hardware splits the
warp into phases of WARP_SIZE / width lanes (half-warps for 64-bit, quarter-warps
for 128-bit), one wavefront each when conflict-free; conflicts are counted only
between lanes of the same phase. Sources:
- NVIDIA's cuTENSOR talk, GTC 2019 (s9593), as quoted in
  https://github.com/Dao-AILab/flash-attention/issues/738: "when accessing shared
  memory in 128bits, thread 0-7 belongs to phase 1, thread 8-15 belongs to phase 2,
  and bank conflict occurs between threads in the same phase, not the same warp";
- https://forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228/2:
  "The return bandwidth of L1 and shared memory is 128 bytes/cycle == 1 register/cycle
  ... LDS.128 requires 4 requests per instruction as it returns 4 registers"; the same
  answer: uniform addresses in lane pairs can halve a 128-bit load's wavefronts.

The one 128-bit rule (`phase_degrees`, used by the counters, the lanes view and the speed
model alike): four quarter-warp phases, unless every lane pair (n, n^1), or every pair
(n, n^2), asks for one address; then two half-warp phases, each asking for the 8 distinct
quad-words of its 16 lanes. It gives the Nsight Compute figures posted (cc 8.6 and 9.0) in
https://forums.developer.nvidia.com/t/discrepancy-in-lds-128-wavefronts-does-smem-broadcast-across-quarter-warps/373160:
lanes 0-15 reading one 16-byte address and lanes 16-31 another take 2 wavefronts (a pair
shares, two half-warp phases of degree 1); lane i and lane i+16 sharing address 32*i bytes
take 8 (no pair (n, n^1) or (n, n^2) shares, four quarter-warps of degree 2: a broadcast
does not reach across quarter-warps). tests/unit/test_banks_128.py holds both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

import numpy as np

from .bulk import bank_degrees, row_groups
from .constants import NUM_BANKS, WARP_SIZE
from .sectors import widen
from .warps import INACTIVE, by_warp


@dataclass(frozen=True)
class BankReport:
    """One warp-wide shared access: words per bank, conflict degree (the worst phase), broadcasts,
    and the degree of each phase (one phase for a 32-bit access)."""

    words_per_bank: tuple[tuple[int, ...], ...]
    threads: int
    degree: int
    broadcast_words: int
    phase_degrees: tuple[int, ...]

    @property
    def extra_cycles(self) -> int:
        return sum(max(d - 1, 0) for d in self.phase_degrees)

    @property
    def wavefronts(self) -> int:
        return sum(self.phase_degrees)

    @property
    def banks_used(self) -> int:
        return sum(1 for words in self.words_per_bank if words)


@overload
def bank_of(word: int) -> int: ...
@overload
def bank_of(word: np.ndarray) -> np.ndarray: ...
def bank_of(word: np.ndarray | int) -> np.ndarray | int:
    return word % NUM_BANKS


def analyse(words: np.ndarray | list[int], width: int = 1) -> BankReport:
    """Analyse one warp's access: `words` are each lane's first word address, INACTIVE for idle lanes,
    and each lane moves `width` consecutive words."""
    lanes = np.asarray(words, dtype=np.int64)
    touched = widen(lanes, width).ravel()
    active = touched[touched != INACTIVE]
    distinct, uses = np.unique(active, return_counts=True)
    per_bank = tuple(tuple(int(w) for w in distinct[bank_of(distinct) == bank]) for bank in range(NUM_BANKS))
    phases = tuple(int(d) for d in phase_degrees(lanes, width).ravel())
    threads = int(np.count_nonzero(lanes != INACTIVE))
    return BankReport(per_bank, threads, max(phases, default=0), int(np.count_nonzero(uses > 1)), phases)


QUAD = 4  # words per lane of a 128-bit access
LANES = np.arange(WARP_SIZE)


def phase_degrees(words: np.ndarray, width: int = 1) -> np.ndarray:
    """Conflict degree of every phase of every warp, (..., warps, width): `words` is (..., threads)
    first word addresses, INACTIVE where idle; a phase is WARP_SIZE / width consecutive lanes, and a
    128-bit access whose lane pairs share addresses takes two half-warp phases (the module's rule):
    their degrees fill the first two of its four places, the other two are 0."""
    warps = by_warp(np.asarray(words))
    quarters = _phased(warps, width)
    if width != QUAD:
        return quarters
    found = quarters
    for partner in (2, 1):  # (n, n^1) wins where both share: the same half-warps either way
        other = LANES ^ partner
        mate = warps[..., other]
        shares = np.all((warps == mate) | (warps == INACTIVE) | (mate == INACTIVE), axis=-1)
        # One lane of each pair (its mate's address where it is idle): 8 lanes per half-warp, then 16 idle.
        kept = np.where(warps != INACTIVE, warps, mate)[..., (LANES & partner) == 0]
        halves = _phased(np.concatenate([kept, np.full(kept.shape, INACTIVE)], axis=-1), QUAD)
        found = np.where(shares[..., None], halves, found)
    return found


def _phased(warps: np.ndarray, width: int) -> np.ndarray:
    """Degrees of the phases of WARP_SIZE / width consecutive lanes, (..., warps, width)."""
    phases = warps.reshape(warps.shape[:-1] + (width, WARP_SIZE // width))
    touched = widen(phases, width).reshape(-1, WARP_SIZE)  # each phase asks for at most 32 words
    return _row_degrees(touched).reshape(warps.shape[:-1] + (width,))


def _row_degrees(rows: np.ndarray) -> np.ndarray:
    """Largest number of distinct words one bank is asked for, per row of word addresses."""
    return bank_degrees(*row_groups(rows, INACTIVE))


def degrees(words: np.ndarray) -> np.ndarray:
    """Conflict degree of every warp of a 32-bit access: `words` is (..., threads), INACTIVE where idle."""
    return phase_degrees(words)[..., 0]


def bank_words(words: np.ndarray, width: int = 1, element_words: int = 1) -> tuple[np.ndarray, int]:
    """(each lane's first 32-bit word, INACTIVE where idle; the 32-bit words each lane moves) of an access
    whose lanes each move `width` elements of `element_words` words from element index `words`: what the
    bank analysis reads (an 8-byte element is two banks' words)."""
    return np.where(words == INACTIVE, INACTIVE, words * element_words), width * element_words


def costs(words: np.ndarray, width: int = 1) -> tuple[int, int]:
    """(extra cycles, wavefronts) over all warps of a warp-wide access: a phase of degree d takes
    d wavefronts, d - 1 of them lost to conflicts (an idle phase takes none)."""
    found = phase_degrees(words, width)
    return int(np.maximum(found - 1, 0).sum()), int(found.sum())


def extra_cycles(words: np.ndarray, width: int = 1) -> int:
    """Cycles lost to conflicts over all warps of a warp-wide access (degree - 1 per phase)."""
    return costs(words, width)[0]


def wavefronts(words: np.ndarray, width: int = 1) -> int:
    """Wavefronts all warps of a warp-wide access take, conflicts included."""
    return costs(words, width)[1]


ACCESS_KINDS = ("row", "column", "broadcast")


def tile_warp_words(width: int, pad: int, access: str, index: int = 0) -> np.ndarray:
    """Word addresses of one warp reading tile[width][width + pad]: lane i reads
    tile[index][i] (row), tile[i][index] (column) or tile[index][index] (broadcast)."""
    lanes = np.arange(min(width, WARP_SIZE))
    stride = width + pad
    if access == "row":
        return index * stride + lanes
    if access == "column":
        return lanes * stride + index
    if access == "broadcast":
        return np.full(lanes.shape, index * stride + index)
    raise ValueError(f"access must be one of {', '.join(ACCESS_KINDS)}")
