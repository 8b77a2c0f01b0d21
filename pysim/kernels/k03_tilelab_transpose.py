"""TileLab's matrix transpose through shared memory, the bank-conflict lesson beside kernel 3.

Not one of siboehm's kernels, nor a step of SGEMM, but the case the "why no padding" note points to: a warp
reads one column of a TILE×TILE tile at once, so with TILE = 32 all 32 words sit
in one bank and are served one by one. Padding each row by one word moves each
row's start to the next bank and spreads the column over all 32 banks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from math import ceil

import numpy as np

from ..core import banks
from ..core.constants import WARP_SIZE
from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step, cells
from ..core.warps import INACTIVE
from ..hardware.params import TransposeParams
from .plumbing import block_span, guarded_load, guarded_store

NAME = "transpose"
TITLE = "Transpose (bank conflicts)"
PARAMS = TransposeParams

LISTING = Listing("""\
// blockDim = ({TILE}, {TILE}), grid = ({g}, {g}), each tile row padded by {pad}
__global__ void transpose(int n, const float *A, float *C) {{
  __shared__ float tile[{TILE}][{TILE} + {pad}];
  int x = blockIdx.x * {TILE} + threadIdx.x, y = blockIdx.y * {TILE} + threadIdx.y;  @@setup
  tile[threadIdx.y][threadIdx.x] = (x < n && y < n) ? A[y * n + x] : 0;  // a warp reads a row  @@load
  __syncthreads();  @@sync
  x = blockIdx.y * {TILE} + threadIdx.x; y = blockIdx.x * {TILE} + threadIdx.y;
  if (x < n && y < n) C[y * n + x] = tile[threadIdx.x][threadIdx.y];  // a warp reads a column  @@store
}}""")
SETUP, LOAD, SYNC, STORE = (LISTING.at(marker) for marker in ("setup", "load", "sync", "store"))


def source(p: TransposeParams) -> list[str]:
    return LISTING.render(TILE=p.TILE, pad=p.pad, g=grid(p)[0])


def grid(p: TransposeParams) -> tuple[int, int]:
    return ceil(p.n / p.TILE), ceil(p.n / p.TILE)


def threads(p: TransposeParams) -> int:
    return p.TILE * p.TILE


def thread_xy(p: TransposeParams, thread: int) -> tuple[int, int]:
    return thread % p.TILE, thread // p.TILE


def steps_per_block(p: TransposeParams) -> int:
    return 4


def owner(p: TransposeParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and thread that store C[row][col]: block (bx, by) writes C[bx·T + ty][by·T + tx]."""
    return (row // p.TILE, col // p.TILE), (row % p.TILE) * p.TILE + col % p.TILE


def regions(p: TransposeParams, step: Step) -> dict[str, list[Cell]]:
    """The tile of A the block reads and the tile of C it writes (mirrored across the diagonal)."""
    a_rows, a_cols = block_span(step.block, p.TILE, p.TILE, (p.n, p.n))
    return {"A": cells(a_rows, a_cols), "C": cells(a_cols, a_rows)}


def focus(p: TransposeParams, step: Step, thread: int) -> Focus:
    """The element of A the thread copies in and the element of C it writes out."""
    tx, ty = thread_xy(p, thread)
    T = p.TILE
    read = (step.block[1] * T + ty, step.block[0] * T + tx)
    written = (step.block[0] * T + ty, step.block[1] * T + tx)
    owned = (written,) if max(written) < p.n else ()
    current = {"A": (read,)} if step.lines == LOAD and max(read) < p.n else {}
    return Focus(owned, {"tile": ((tx, ty),)}, current)


def block_steps(p: TransposeParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block: load a tile row-wise, wait, write it back column-wise."""
    T, stride = p.TILE, p.TILE + p.pad
    ty, tx = np.divmod(np.arange(T * T), T)
    tile = np.full((T, stride), np.nan, dtype=np.float32)
    yield Step("setup", SETUP, shared={"tile": tile})
    load, values = guarded_load("A", A, by * T + ty, bx * T + tx)
    tile = tile.copy()
    tile[ty, tx] = values
    loads = (load, Access("tile", "shared", "store", ty, tx, stride, values, zero_fill=~load.active[0]))
    yield Step("load", LOAD, accesses=loads, shared={"tile": tile})
    yield Step("barrier", SYNC, barrier=True, shared={"tile": tile})
    x, y = by * T + tx, bx * T + ty
    inside = (x < p.n) & (y < p.n)
    values = tile[tx, ty]
    stores = (
        Access(
            "tile", "shared", "load", np.where(inside, tx, INACTIVE), np.where(inside, ty, INACTIVE), stride, values
        ),
        guarded_store("C", (p.n, p.n), y, x, values),
    )
    yield Step("store", STORE, accesses=stores, shared={"tile": tile})


def counters_for(p: TransposeParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T, stride = p.TILE, p.TILE + p.pad
    ty, tx = np.divmod(np.arange(T * T), T)
    cols = np.minimum(p.n - bxs * T, T)
    rows = np.minimum(p.n - bys * T, T)
    loads = int(cols.sum() * rows.sum())
    store_cycles, store_waves = (cost * len(bxs) * len(bys) for cost in banks.costs(ty * stride + tx))
    read_cycles = read_waves = 0
    # The column read is guarded, so edge blocks read fewer words: count per extent.
    for row_extent, row_count in zip(*np.unique(rows, return_counts=True)):
        for col_extent, col_count in zip(*np.unique(cols, return_counts=True)):
            # Reading thread (tx, ty) of block (bx, by) writes C[bx*T + ty][by*T + tx].
            inside = (tx < row_extent) & (ty < col_extent)
            extra, waves = banks.costs(np.where(inside, tx * stride + ty, INACTIVE))
            read_cycles += extra * int(row_count * col_count)
            read_waves += waves * int(row_count * col_count)
    return Counters(
        global_loads=loads,
        global_stores=loads,
        shared_loads=loads,
        shared_stores=len(bxs) * len(bys) * T * T,
        barriers=len(bxs) * len(bys),
        global_sectors=tile_load_sectors(ty[None, :], tx[None, :], p.n, bys * T, bxs * T, (p.n, p.n), 1),
        bank_extra_cycles=store_cycles + read_cycles,
        shared_wavefronts=store_waves + read_waves,
    )


REFERENCE_LABEL = "A.T"


def reference(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """What C must equal: NumPy's transpose of A (B is not used)."""
    return A.T


def padding_cells(p: TransposeParams) -> list[Cell]:
    """The tile's padding words: never written or read, they only shift each row's first bank."""
    return cells(range(p.TILE), range(p.TILE, p.TILE + p.pad))


@dataclass(frozen=True)
class PadChoice:
    """What one padding does to warp 0 of a full block, and to the whole run's conflicts."""

    pad: int
    stride: int  # words per tile row
    write_degree: int  # conflict degree of warp 0 writing tile[threadIdx.y][threadIdx.x] (a row)
    read_degree: int  # conflict degree of warp 0 reading tile[threadIdx.x][threadIdx.y] (a column)
    run_cycles: int  # bank-conflict cycles of the whole run with this pad (closed form)


def pad_choices(p: TransposeParams, pads: range = range(3)) -> tuple[PadChoice, ...]:
    """Warp 0's conflict degrees and the run's extra cycles for each pad (the view's table)."""
    T = p.TILE
    ty, tx = np.divmod(np.arange(min(T * T, WARP_SIZE)), T)  # warp 0 of a block with every thread inside
    found = []
    for pad in pads:
        q = replace(p, pad=pad)
        stride = T + pad
        gx, gy = grid(q)
        run = counters_for(q, np.arange(gx), np.arange(gy)).bank_extra_cycles
        write, read = banks.analyse(ty * stride + tx), banks.analyse(tx * stride + ty)
        found.append(PadChoice(pad, stride, write.degree, read.degree, run))
    return tuple(found)
