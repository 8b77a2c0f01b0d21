"""Kernel 3: shared-memory tiling (siboehm's kernel 3, shared-memory blocking).

Changes from kernel 1 (naive): the T×T threads of a block first copy a T×T tile
of A and one of B into shared memory, wait at a barrier, and then read their
operands from the tiles. Each element fetched from global memory is reused by T
threads, so global loads fall from 2·M·N·K to M·K·⌈N/T⌉ + K·N·⌈M/T⌉.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from math import ceil

import numpy as np

from ..core import banks
from ..core.counters import Counters
from ..core.instructions import Scalar, first_issued_reports, round_of, scalar_costs
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step, cells
from ..hardware.params import SmemParams
from .plumbing import block_span, guarded_load, guarded_store, span

NAME = "smem"
TITLE = "Shared-memory tiling"
PARAMS = SmemParams

LISTING = Listing("""\
// blockDim = ({T}, {T}), TILE_SIZE = {T}, grid = ({gx}, {gy})
__global__ void sgemm_smem(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float tileA[{T}][{T}];
  __shared__ float tileB[{T}][{T}];  // no padding needed (see the bank analysis)
  int tx = threadIdx.x, ty = threadIdx.y;  @@setup
  int globalRow = blockIdx.y * {T} + ty;  @@setup
  int globalCol = blockIdx.x * {T} + tx;  @@setup
  float partialSum = 0.0f;  @@setup
  for (int tileIdx = 0; tileIdx < {tiles}; tileIdx++) {{  // ceil(K / {T}) = ceil({K} / {T})
    int tileColA = tileIdx * {T} + tx, tileRowB = tileIdx * {T} + ty;
    tileA[ty][tx] = (globalRow < M && tileColA < K) ? A[globalRow * K + tileColA] : 0;  @@load_a
    tileB[ty][tx] = (tileRowB < K && globalCol < N) ? B[tileRowB * N + globalCol] : 0;  @@load_b
    __syncthreads();  // the whole tile must be loaded before anyone reads it  @@sync_loaded
    for (int k = 0; k < {T}; k++) {{
      partialSum += tileA[ty][k] * tileB[k][tx];  @@fma
    }}
    __syncthreads();  // stops fast threads overwriting a tile slow threads still read  @@sync_done
  }}
  if (globalRow < M && globalCol < N) C[globalRow * N + globalCol] = partialSum;  @@store
}}""")
SETUP, LOAD_A, LOAD_B, SYNC_LOADED, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker) for marker in ("setup", "load_a", "load_b", "sync_loaded", "fma", "sync_done", "store")
)


def source(p: SmemParams) -> list[str]:
    gx, gy = grid(p)
    return LISTING.render(T=p.T, K=p.K, gx=gx, gy=gy, tiles=p.tiles)


def grid(p: SmemParams) -> tuple[int, int]:
    return ceil(p.N / p.T), ceil(p.M / p.T)


def threads(p: SmemParams) -> int:
    return p.T * p.T


def thread_xy(p: SmemParams, thread: int) -> tuple[int, int]:
    return thread % p.T, thread // p.T


def steps_per_block(p: SmemParams) -> int:
    return 2 + p.tiles * (p.T + 4)


def owner(p: SmemParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and linear thread id that compute C[row][col]."""
    return (col // p.T, row // p.T), (row % p.T) * p.T + col % p.T


def regions(p: SmemParams, step: Step) -> dict[str, list[Cell]]:
    """The block's part of C and, inside the tile loop, the K-slice of A and B the block works on."""
    rows, cols = block_span(step.block, p.T, p.T, (p.M, p.N))
    found = {"C": cells(rows, cols)}
    if step.tile is not None:
        ks = span(step.tile * p.T, p.T, p.K)
        found |= {"A": cells(rows, ks), "B": cells(ks, cols)}
    return found


def focus(p: SmemParams, step: Step, thread: int) -> Focus:
    """The thread's element of C, its tileA row and tileB column, and the pair it multiplies now."""
    tx, ty = thread_xy(p, thread)
    row, col = step.block[1] * p.T + ty, step.block[0] * p.T + tx
    owned = ((row, col),) if row < p.M and col < p.N else ()
    operands = {"tileA": tuple((ty, k) for k in range(p.T)), "tileB": tuple((k, tx) for k in range(p.T))}
    current = {"tileA": ((ty, step.k),), "tileB": ((step.k, tx),)} if step.k is not None else {}
    return Focus(owned, operands, current)


def block_steps(p: SmemParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step, all its threads in lockstep."""
    T = p.T
    ty, tx = np.divmod(np.arange(T * T), T)  # linear thread id = tx + ty * T
    globalRow = by * T + ty
    globalCol = bx * T + tx
    tileA = np.full((T, T), np.nan, dtype=np.float32)
    tileB = np.full((T, T), np.nan, dtype=np.float32)
    partialSum = np.zeros(T * T, dtype=np.float32)
    tileStartSum = partialSum  # what partialSum carried into the current tile (for the lens)

    def state() -> dict:
        return {
            "registers": {"partialSum": partialSum, "tileStartSum": tileStartSum},
            "shared": {"tileA": tileA, "tileB": tileB},
        }

    yield Step("setup", SETUP, **state())
    for tileIdx in range(p.tiles):
        tileStartSum = partialSum
        tileColA = tileIdx * T + tx
        tileRowB = tileIdx * T + ty
        load, a = guarded_load("A", A, globalRow, tileColA)
        tileA = tileA.copy()
        tileA[ty, tx] = a
        loads = (load, Access("tileA", "shared", "store", ty, tx, T, a, zero_fill=~load.active[0]))
        yield Step("load", LOAD_A, tile=tileIdx, accesses=loads, **state())
        load, b = guarded_load("B", B, tileRowB, globalCol)
        tileB = tileB.copy()
        tileB[ty, tx] = b
        loads = (load, Access("tileB", "shared", "store", ty, tx, T, b, zero_fill=~load.active[0]))
        yield Step("load", LOAD_B, tile=tileIdx, accesses=loads, **state())
        yield Step("barrier", SYNC_LOADED, tile=tileIdx, barrier=True, **state())
        for k in range(T):
            a, b = tileA[ty, k], tileB[k, tx]
            partialSum = partialSum + a * b
            reads = (
                Access("tileA", "shared", "load", ty, np.full(T * T, k), T, a),
                Access("tileB", "shared", "load", np.full(T * T, k), tx, T, b),
            )
            yield Step("compute", FMA, tile=tileIdx, k=k, fma=T * T, accesses=reads, **state())
        yield Step("barrier", SYNC_DONE, tile=tileIdx, barrier=True, **state())

    store = guarded_store("C", (p.M, p.N), globalRow, globalCol, partialSum)
    yield Step("store", STORE, accesses=(store,), **state())


def tile_pattern(T: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the element each thread loads, relative to the tile origin."""
    ty, tx = np.divmod(np.arange(T * T), T)
    return ty[None, :], tx[None, :]


def _reads(T: int) -> list[Scalar]:
    """One tile step's T rounds of two scalar reads, tileA[ty][k] and tileB[k][tx], by every thread."""
    ty, tx = np.divmod(np.arange(T * T), T)
    pairs = [(k, ("tileA", ty * T + k), ("tileB", k * T + tx)) for k in range(T)]
    return [(name, words[None, :], round_of(k, 1, 2)) for k, *both in pairs for name, words in both]


@lru_cache(maxsize=64)
def shared_costs_per_tile(T: int) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one tile step: two tile stores and T rounds of two reads, the
    reads as nvcc issues them (a thread's tileA[ty][k..k+3] is one LDS.128 where T % 4 == 0)."""
    ty, tx = np.divmod(np.arange(T * T), T)
    found = [banks.costs(ty * T + tx)] * 2 + scalar_costs(_reads(T))
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def counters_for(p: SmemParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T, tiles = p.T, p.tiles
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * T, T).sum())
    cols = int(np.minimum(p.N - bxs * T, T).sum())
    rel_rows, rel_cols = tile_pattern(T)
    extra, waves = shared_costs_per_tile(T)
    tile_origins = np.arange(tiles) * T
    sectors = tile_load_sectors(
        rel_rows, rel_cols, p.K, bys * T, tile_origins, (p.M, p.K), len(bxs)
    ) + tile_load_sectors(rel_rows, rel_cols, p.N, tile_origins, bxs * T, (p.K, p.N), len(bys))
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * T * T * tiles * 2 * T,
        shared_stores=blocks * tiles * 2 * T * T,
        fma=blocks * T * T * tiles * T,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * tiles * extra,
        shared_wavefronts=blocks * tiles * waves,
    )


def read_bank_reports(p: SmemParams) -> tuple[tuple[banks.BankReport, int], tuple[banks.BankReport, int]]:
    """(bank analysis, width) of warp 0's reads at k = 0, tileA[ty][0] and tileB[0][tx], as nvcc issues them
    (`issued`: a thread's tileA[ty][0..3] is one LDS.128 where T % 4 == 0, [0..1] one LDS.64 where T is even)."""
    first, second = first_issued_reports(_reads(p.T), 2)
    return first, second
