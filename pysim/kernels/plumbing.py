"""What every kernel's step generator does the same way: block spans, guarded loads and
stores, and the strided cooperative copy of a tile into shared memory.

A guarded access is CUDA's `(r < M && c < K) ? A[r * K + c] : 0`: a thread outside the
matrix reads nothing from global memory (its lane is INACTIVE in the access) and gets 0.
"""

from __future__ import annotations

from math import ceil

import numpy as np

from ..core import banks
from ..core.instructions import Scalar, round_of, scalar_costs
from ..core.trace import Access, Cell, Step, cells
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


def guarded_load(
    name: str, matrix: np.ndarray, rows: np.ndarray, cols: np.ndarray, width: int = 1
) -> tuple[Access, np.ndarray]:
    """Every lane reads matrix[rows][cols .. cols+width-1] where that lies inside it, 0 elsewhere:
    the global load (idle lanes INACTIVE) and the values each lane got (float32; a last axis of
    `width` when width > 1). A vector is loaded whole or not at all: the kernels that use one
    keep every vector aligned, so it is never cut by the matrix edge."""
    rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
    mask = inside(matrix, rows, cols) & (cols + width <= matrix.shape[1])
    words = cols[..., None] + np.arange(width)
    clipped = matrix[np.clip(rows, 0, matrix.shape[0] - 1)[..., None], np.clip(words, 0, matrix.shape[1] - 1)]
    values = np.where(mask[..., None], clipped, 0).astype(np.float32)
    values = values if width > 1 else values[..., 0]
    access = Access(
        name,
        "global",
        "load",
        np.where(mask, rows, INACTIVE),
        np.where(mask, cols, INACTIVE),
        matrix.shape[1],
        values,
        width=width,
    )
    return access, values


def guarded_store(
    name: str, shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray, values: np.ndarray, width: int = 1
) -> Access:
    """`if (r < M && c < N) C[r * N + c] = value` (for a vector: its last column < N): the store of
    the lanes inside C."""
    rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
    mask = (rows != INACTIVE) & (rows < shape[0]) & (cols + width <= shape[1])
    return Access(
        name,
        "global",
        "store",
        np.where(mask, rows, INACTIVE),
        np.where(mask, cols, INACTIVE),
        shape[1],
        values,
        width=width,
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
    return pattern_copy(array, matrix, name, origin, load_pattern(*shape, nthreads), tile)


def pattern_copy(
    array: str,
    matrix: np.ndarray,
    name: str,
    origin: tuple[int, int],
    pattern: tuple[np.ndarray, np.ndarray],
    tile: np.ndarray,
    width: int = 1,
    first_row: int = 0,
    asynchronous: bool = False,
) -> tuple[tuple[Access, Access], np.ndarray]:
    """Every lane copies `width` words of `matrix` at origin + (row, col) into tile[row][col..]
    (`pattern` gives (row, col) per instruction and lane, INACTIVE where idle; zero outside the
    matrix): the global load, the shared store, and the tile after it. `first_row` is where the
    pattern's row 0 lies in `tile` (a pipeline stacks its stages' buffers down one array);
    `asynchronous` marks a cp.async copy."""
    rows, cols = pattern
    active = rows != INACTIVE
    g_rows, g_cols = np.where(active, origin[0] + rows, INACTIVE), np.where(active, origin[1] + cols, INACTIVE)
    load, values = guarded_load(name, matrix, g_rows, g_cols, width)
    s_rows = np.where(active, rows + first_row, INACTIVE)
    store = Access(
        array,
        "shared",
        "store",
        s_rows,
        cols,
        tile.shape[1],
        values,
        zero_fill=active & ~load.active,
        width=width,
        asynchronous=asynchronous,
    )
    tile = tile.copy()
    store.write_into(tile)
    return (load, store), tile


def shared_read(
    array: str, tile: np.ndarray, rows: np.ndarray, cols: np.ndarray, width: int = 1
) -> tuple[Access, np.ndarray]:
    """Every lane reads tile[rows][cols .. cols+width-1] (one LDS, or LDS.64/.128 when width > 1):
    the shared load and the values read (a last axis of `width` when width > 1)."""
    rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
    values = tile[rows[..., None], cols[..., None] + np.arange(width)]
    values = values if width > 1 else values[..., 0]
    return Access(array, "shared", "load", rows, cols, tile.shape[1], values, width=width), values


def transposed_copy(
    matrix: np.ndarray, origin: tuple[int, int], pattern: tuple[np.ndarray, np.ndarray], tile: np.ndarray
) -> tuple[tuple[Access, Access], np.ndarray]:
    """siboehm's `float4 tmp = A[..]; As[(innerColA * 4 + j) * BM + innerRowA] = tmp.j`: every lane
    loads one float4 of A at origin + (row, col) (`pattern`, col a multiple of 4; zero outside A)
    and stores its 4 values down a column of the transposed tile As[k][m], one store per value."""
    rows, cols = pattern
    active = rows != INACTIVE
    g_rows, g_cols = np.where(active, origin[0] + rows, INACTIVE), np.where(active, origin[1] + cols, INACTIVE)
    load, values = guarded_load("A", matrix, g_rows, g_cols, 4)
    parts = np.arange(4)[:, None, None]  # tmp.x .. tmp.w: one store instruction each
    t_rows = np.where(active, cols + parts, INACTIVE).reshape(-1, rows.shape[-1])
    t_cols = np.broadcast_to(rows, (4, *rows.shape)).reshape(-1, rows.shape[-1])
    stored = np.moveaxis(values, -1, 0).reshape(-1, rows.shape[-1])
    zero = np.broadcast_to(active & ~load.active, (4, *rows.shape)).reshape(-1, rows.shape[-1])
    store = Access("As", "shared", "store", t_rows, t_cols, tile.shape[1], stored, zero_fill=zero)
    tile = tile.copy()
    store.write_into(tile)
    return (load, store), tile


def tile_grid(p) -> tuple[int, int]:
    """(gridDim.x, gridDim.y) of a kernel whose blocks compute BM×BN tiles of C."""
    return ceil(p.N / p.BN), ceil(p.M / p.BM)


def tile_regions(p, step: Step) -> dict[str, list[Cell]]:
    """The block's BM×BN tile of C and, inside the bkIdx loop, the BK-slice of A and B it works on."""
    rows, cols = block_span(step.block, p.BM, p.BN, (p.M, p.N))
    found = {"C": cells(rows, cols)}
    if step.tile is not None:
        ks = span(step.tile * p.BK, p.BK, p.K)
        found |= {"A": cells(rows, ks), "B": cells(ks, cols)}
    return found


def round_read_costs(BK: int, ffma: int, reads: list[tuple[str, np.ndarray, int, int]]) -> list[tuple[int, int]]:
    """(bank-conflict cycles, wavefronts) of BK rounds of register reads, each (array, its words at dotIdx 0
    (instructions, threads), width, words per dotIdx step): float4 reads as written, scalar ones as nvcc
    issues them (`issued`; round by round where a round of `ffma` FFMA and these reads keeps the loop)."""
    found: list[tuple[int, int]] = []
    scalar: list[Scalar] = []
    for dotIdx in range(BK):
        round_ = round_of(dotIdx, ffma, sum(len(words) for _, words, _, _ in reads))
        for name, words, width, stride in reads:
            if width == 1:
                scalar.append((name, words + dotIdx * stride, round_))
            else:
                found.append(banks.costs(words + dotIdx * stride, width))
    return found + scalar_costs(scalar)
