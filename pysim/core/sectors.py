"""Global-memory coalescing: 32-byte sectors touched by each warp-wide load.

Arrays are row-major float32 with a base aligned to 128 bytes, so element e of
an array lives in sector e // WORDS_PER_SECTOR of that array. A vector access
(LDG .64/.128) moves `width` consecutive elements per lane: the sectors counted
are those covering every byte each lane really touches.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .bulk import row_groups, sectors_per_group
from .constants import WARP_SIZE, WORDS_PER_SECTOR
from .warps import INACTIVE, by_warp


def widen(first: np.ndarray, width: int) -> np.ndarray:
    """The `width` consecutive words each lane touches, (..., lanes) -> (..., lanes, width); INACTIVE stays."""
    first = np.asarray(first)[..., None]
    return np.where(first == INACTIVE, INACTIVE, first + np.arange(width))


def warp_sectors(elements: np.ndarray, width: int = 1) -> np.ndarray:
    """Sectors per warp for each lane's first element index (..., threads), INACTIVE where a thread
    loads nothing; each lane touches `width` consecutive elements."""
    warps = widen(by_warp(elements), width)
    group, count, words = row_groups(warps.reshape(-1, WARP_SIZE * width), INACTIVE)  # a group per warp
    return sectors_per_group(group, count, words).reshape(warps.shape[:-2])


def tile_load_sectors(
    rows: np.ndarray,
    cols: np.ndarray,
    ld: int,
    row_starts: np.ndarray,
    col_starts: np.ndarray,
    limits: tuple[int, int],
    repeat: int,
    width: int = 1,
) -> int:
    """See `_tile_load_sectors`; cached, because per-block counts repeat along a block row or column."""
    key = (
        rows.shape,
        rows.tobytes(),
        cols.tobytes(),
        ld,
        np.asarray(row_starts).tobytes(),
        np.asarray(col_starts).tobytes(),
        limits,
        width,
    )
    return _cached(key, rows, cols, row_starts, col_starts) * repeat


_CACHE: dict = {}
_CACHE_SIZE = 4096


def clear_cache() -> None:
    """Forget cached counts (benchmarks time the cold computation)."""
    _CACHE.clear()


def _cached(key: tuple, rows: np.ndarray, cols: np.ndarray, row_starts: np.ndarray, col_starts: np.ndarray) -> int:
    if key not in _CACHE:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = _tile_load_sectors(
            rows, cols, key[3], np.asarray(row_starts), np.asarray(col_starts), key[6], key[7]
        )
    return _CACHE[key]


def _tile_load_sectors(
    rows: np.ndarray,
    cols: np.ndarray,
    ld: int,
    row_starts: np.ndarray,
    col_starts: np.ndarray,
    limits: tuple[int, int],
    width: int,
) -> int:
    """Sum of sectors over every warp-wide load of a tile pattern placed at every origin.

    `rows`/`cols` (instructions, threads) give each thread's first element relative
    to the tile origin (INACTIVE for a lane that loads nothing); each lane loads
    `width` consecutive elements, all of them or none (a vector inside the matrix,
    as plumbing.guarded_load decides). The pattern is loaded at each (row_start,
    col_start) pair, `repeat` times, and only where row < limits[0] and the
    vector's last col < limits[1].

    A warp's sector count depends on its origin only through the origin's
    element index mod WORDS_PER_SECTOR and on how many rows and columns are in
    range, so origins are grouped by those keys (rows and columns separately,
    then combined) and each group is counted once.
    """
    height = int(rows.max()) + 1
    extent = int(cols.max()) + width
    row_groups = Counter(zip((row_starts * ld) % WORDS_PER_SECTOR, np.minimum(limits[0] - row_starts, height)))
    col_groups = Counter(zip(col_starts % WORDS_PER_SECTOR, np.minimum(limits[1] - col_starts, extent)))
    total = 0
    for (row_phase, row_extent), row_count in row_groups.items():
        for (col_phase, col_extent), col_count in col_groups.items():
            phase = int(row_phase + col_phase) % WORDS_PER_SECTOR
            valid = (rows != INACTIVE) & (rows < row_extent) & (cols + width <= col_extent)
            elements = np.where(valid, phase + rows * ld + cols, INACTIVE)
            total += int(warp_sectors(elements, width).sum()) * row_count * col_count
    return total
