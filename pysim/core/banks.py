"""Shared-memory bank analysis: which words each bank is asked for by one warp.

A bank serves one 4-byte word per cycle. Threads asking one bank for different
words are served one after another (a conflict); threads asking for the same
word are served together (a broadcast).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .constants import NUM_BANKS, WARP_SIZE
from .warps import INACTIVE, by_warp


@dataclass(frozen=True)
class BankReport:
    """One warp-wide shared access: words per bank, conflict degree, broadcasts."""

    words_per_bank: tuple[tuple[int, ...], ...]
    threads: int
    degree: int
    broadcast_words: int

    @property
    def extra_cycles(self) -> int:
        return max(self.degree - 1, 0)

    @property
    def banks_used(self) -> int:
        return sum(1 for words in self.words_per_bank if words)


def bank_of(word: np.ndarray | int) -> np.ndarray | int:
    return word % NUM_BANKS


def analyse(words: np.ndarray | list[int]) -> BankReport:
    """Analyse one warp's access: `words` are word addresses, INACTIVE for idle lanes."""
    active = np.asarray(words, dtype=np.int64)
    active = active[active != INACTIVE]
    distinct, uses = np.unique(active, return_counts=True)
    per_bank = tuple(tuple(int(w) for w in distinct[bank_of(distinct) == bank]) for bank in range(NUM_BANKS))
    degree = max((len(b) for b in per_bank), default=0)
    return BankReport(per_bank, int(active.size), degree, int(np.count_nonzero(uses > 1)))


def degrees(words: np.ndarray) -> np.ndarray:
    """Conflict degree of every warp: `words` is (..., threads) word addresses, INACTIVE where idle."""
    warps = by_warp(words)
    flat = warps.reshape(-1, WARP_SIZE)
    ordered = np.sort(flat, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    keep = first & (ordered != INACTIVE)
    rows = np.nonzero(keep)[0]
    banks = bank_of(ordered[keep])
    counts = np.zeros((flat.shape[0], NUM_BANKS), dtype=np.int64)
    np.add.at(counts, (rows, banks), 1)
    return counts.max(axis=1).reshape(warps.shape[:-1])


def extra_cycles(words: np.ndarray) -> int:
    """Cycles lost to conflicts over all warps of a warp-wide access (degree - 1 each)."""
    found = degrees(words)
    return int(np.maximum(found - 1, 0).sum())


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
