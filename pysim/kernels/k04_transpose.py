"""Kernel 4: matrix transpose through shared memory, the bank-conflict lesson.

Not a step of SGEMM but the case the "why no padding" note points to: a warp
reads one column of a TILE×TILE tile at once, so with TILE = 32 all 32 words sit
in one bank and are served one by one. Padding each row by one word moves each
row's start to the next bank and spreads the column over all 32 banks.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import ceil

import numpy as np

from .. import banks
from ..counters import Counters
from ..params import TransposeParams
from ..sectors import tile_load_sectors
from ..trace import Access, Step
from ..warps import INACTIVE

NAME = "transpose"
TITLE = "Transpose (bank conflicts)"
PARAMS = TransposeParams

SOURCE = """\
// blockDim = ({TILE}, {TILE}), grid = ({g}, {g}), each tile row padded by {pad}
__global__ void transpose(int n, const float *A, float *C) {{
  __shared__ float tile[{TILE}][{TILE} + {pad}];
  int x = blockIdx.x * {TILE} + threadIdx.x, y = blockIdx.y * {TILE} + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = (x < n && y < n) ? A[y * n + x] : 0;  // a warp reads a row
  __syncthreads();
  x = blockIdx.y * {TILE} + threadIdx.x; y = blockIdx.x * {TILE} + threadIdx.y;
  if (x < n && y < n) C[y * n + x] = tile[threadIdx.x][threadIdx.y];  // a warp reads a column
}}"""

SETUP, LOAD, SYNC, STORE = (4, 4), (5, 5), (6, 6), (7, 8)
STATEMENT_LINES = frozenset([4, 5, 6, 7, 8])


def source(p: TransposeParams) -> list[str]:
    return SOURCE.format(TILE=p.TILE, pad=p.pad, g=grid(p)[0]).splitlines()


def grid(p: TransposeParams) -> tuple[int, int]:
    return ceil(p.n / p.TILE), ceil(p.n / p.TILE)


def threads(p: TransposeParams) -> int:
    return p.TILE * p.TILE


def thread_xy(p: TransposeParams, thread: int) -> tuple[int, int]:
    return thread % p.TILE, thread // p.TILE


def steps_per_block(p: TransposeParams) -> int:
    return 4


def c_region(p: TransposeParams, bx: int, by: int) -> tuple[slice, slice]:
    return slice(bx * p.TILE, min((bx + 1) * p.TILE, p.n)), slice(by * p.TILE, min((by + 1) * p.TILE, p.n))


def block_steps(p: TransposeParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block: load a tile row-wise, wait, write it back column-wise."""
    T, stride = p.TILE, p.TILE + p.pad
    ty, tx = np.divmod(np.arange(T * T), T)
    tile = np.full((T, stride), np.nan, dtype=np.float32)
    yield Step("setup", SETUP, shared={"tile": tile})
    x, y = bx * T + tx, by * T + ty
    inside = (x < p.n) & (y < p.n)
    tile = tile.copy()
    tile[ty, tx] = np.where(inside, A[np.minimum(y, p.n - 1), np.minimum(x, p.n - 1)], 0)
    yield Step(
        "load",
        LOAD,
        accesses=(
            Access("A", "global", "load", np.where(inside, y, INACTIVE), np.where(inside, x, INACTIVE), p.n),
            Access("tile", "shared", "store", ty, tx, stride, zero_fill=~inside),
        ),
        shared={"tile": tile},
    )
    yield Step("barrier", SYNC, barrier=True, shared={"tile": tile})
    x, y = by * T + tx, bx * T + ty
    inside = (x < p.n) & (y < p.n)
    yield Step(
        "store",
        STORE,
        accesses=(
            Access("tile", "shared", "load", np.where(inside, tx, INACTIVE), np.where(inside, ty, INACTIVE), stride),
            Access("C", "global", "store", np.where(inside, y, INACTIVE), np.where(inside, x, INACTIVE), p.n),
        ),
        shared={"tile": tile},
    )


def counters_for(p: TransposeParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T, stride = p.TILE, p.TILE + p.pad
    ty, tx = np.divmod(np.arange(T * T), T)
    cols = np.minimum(p.n - bxs * T, T)
    rows = np.minimum(p.n - bys * T, T)
    loads = int(cols.sum() * rows.sum())
    store_cycles = banks.extra_cycles(ty * stride + tx) * len(bxs) * len(bys)
    read_cycles = 0
    # The column read is guarded, so edge blocks read fewer words: count per extent.
    for row_extent, row_count in zip(*np.unique(rows, return_counts=True)):
        for col_extent, col_count in zip(*np.unique(cols, return_counts=True)):
            # Reading thread (tx, ty) of block (bx, by) writes C[bx*T + ty][by*T + tx].
            inside = (tx < row_extent) & (ty < col_extent)
            words = np.where(inside, tx * stride + ty, INACTIVE)
            read_cycles += banks.extra_cycles(words) * int(row_count * col_count)
    return Counters(
        global_loads=loads,
        global_stores=loads,
        shared_loads=loads,
        shared_stores=len(bxs) * len(bys) * T * T,
        barriers=len(bxs) * len(bys),
        global_sectors=tile_load_sectors(ty[None, :], tx[None, :], p.n, bys * T, bxs * T, (p.n, p.n), 1),
        bank_extra_cycles=store_cycles + read_cycles,
    )


def block_counters(p: TransposeParams, bx: int, by: int) -> Counters:
    return counters_for(p, np.array([bx]), np.array([by]))


def counters(p: TransposeParams) -> Counters:
    gx, gy = grid(p)
    return counters_for(p, np.arange(gx), np.arange(gy))


def reference(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """What C must equal: NumPy's transpose of A."""
    return A.T


def run_c(p: TransposeParams, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """C as the kernel writes it: tile by tile, each element through the shared tile."""
    c = np.zeros((p.n, p.n), dtype=np.float32)
    for by in range(grid(p)[1]):
        for bx in range(grid(p)[0]):
            rows, cols = c_region(p, bx, by)
            c[rows, cols] = A[cols, rows].T
    return c


def describe(step: Step, p: TransposeParams, thread: int) -> str:
    tx, ty = thread_xy(p, thread)
    if step.phase == "setup":
        return f"computes x={step.block[0] * p.TILE + tx}, y={step.block[1] * p.TILE + ty}"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        return f"copies A[{step.block[1] * p.TILE + ty}][{step.block[0] * p.TILE + tx}] into tile[{ty}][{tx}]"
    words = step.accesses[0]
    if words.rows[0, thread] == INACTIVE:
        return "stores nothing (outside C)"
    return f"reads tile[{tx}][{ty}] (bank {(tx * (p.TILE + p.pad) + ty) % 32}) and stores it to C"


def narrate(step: Step, p: TransposeParams, thread: int) -> str:
    tx, ty = thread_xy(p, thread)
    return f"Block ({step.block[0]},{step.block[1]}): thread ({tx},{ty}) {describe(step, p, thread)}."
