"""What every kernel's step generator does the same way: block spans, guarded loads and
stores, and the strided cooperative copy of a tile into shared memory.

A guarded access is CUDA's `(r < M && c < K) ? A[r * K + c] : 0`: a thread outside the
matrix reads nothing from global memory (its lane is INACTIVE in the access) and gets 0.
"""

from __future__ import annotations

from math import ceil

import numpy as np

from ..core.trace import Access
from ..core.warps import INACTIVE


def span(origin: int, size: int, limit: int) -> range:
    """The indices origin .. origin+size-1 that lie inside 0..limit-1 (an edge tile is shorter)."""
    return range(origin, min(origin + size, limit))


def block_span(block: tuple[int, int], height: int, width: int, shape: tuple[int, int]) -> tuple[range, range]:
    """The rows and columns of C (shape M×N) that block (bx, by) of a height×width tiling covers."""
    bx, by = block
    return span(by * height, height, shape[0]), span(bx * width, width, shape[1])


def inside(matrix: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Where (rows, cols) lies inside `matrix` (and the lane is active)."""
    return (rows != INACTIVE) & (cols != INACTIVE) & (rows < matrix.shape[0]) & (cols < matrix.shape[1])


def guarded_load(name: str, matrix: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> tuple[Access, np.ndarray]:
    """Every lane reads matrix[rows][cols] where that lies inside it, 0 elsewhere: the global
    load (idle lanes INACTIVE) and the values each lane got (float32)."""
    rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
    mask = inside(matrix, rows, cols)
    clipped = matrix[np.clip(rows, 0, matrix.shape[0] - 1), np.clip(cols, 0, matrix.shape[1] - 1)]
    values = np.where(mask, clipped, 0).astype(np.float32)
    access = Access(
        name, "global", "load", np.where(mask, rows, INACTIVE), np.where(mask, cols, INACTIVE), matrix.shape[1], values
    )
    return access, values


def guarded_store(name: str, shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> Access:
    """`if (r < M && c < N) C[r * N + c] = value`: the store of the lanes inside C."""
    rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
    mask = (rows != INACTIVE) & (rows < shape[0]) & (cols < shape[1])
    return Access(
        name, "global", "store", np.where(mask, rows, INACTIVE), np.where(mask, cols, INACTIVE), shape[1], values
    )


def load_pattern(height: int, width: int, nthreads: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the element each thread loads in each pass of the strided copy loop
    `for (i = threadIdx.x; i < height * width; i += nthreads)`; INACTIVE past the end."""
    passes = ceil(height * width / nthreads)
    index = np.arange(passes)[:, None] * nthreads + np.arange(nthreads)[None, :]
    active = index < height * width
    return np.where(active, index // width, INACTIVE), np.where(active, index % width, INACTIVE)


def cooperative_copy(
    array: str,
    matrix: np.ndarray,
    name: str,
    origin: tuple[int, int],
    shape: tuple[int, int],
    nthreads: int,
    tile: np.ndarray,
) -> tuple[tuple[Access, Access], np.ndarray]:
    """One strided copy of a shape-sized window of `matrix` at `origin` into `tile` (zero
    outside the matrix): the global load, the shared store, and the tile after it."""
    rows, cols = load_pattern(*shape, nthreads)
    active = rows != INACTIVE
    g_rows, g_cols = np.where(active, origin[0] + rows, INACTIVE), np.where(active, origin[1] + cols, INACTIVE)
    load, values = guarded_load(name, matrix, g_rows, g_cols)
    tile = tile.copy()
    tile[rows[active], cols[active]] = values[active]
    store = Access(array, "shared", "store", rows, cols, shape[1], values, zero_fill=active & ~load.active)
    return (load, store), tile
