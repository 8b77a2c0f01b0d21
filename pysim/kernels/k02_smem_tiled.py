"""Kernel 2: shared-memory tiling.

Changes from kernel 1 (naive): the T×T threads of a block first copy a T×T tile
of A and one of B into shared memory, wait at a barrier, and then read their
operands from the tiles. Each element fetched from global memory is reused by T
threads, so global loads fall from 2·M·N·K to M·K·⌈N/T⌉ + K·N·⌈M/T⌉.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from math import ceil

import numpy as np

from .. import banks
from ..constants import WARP_SIZE
from ..counters import Counters
from ..matrices import sliced_product
from ..params import SmemParams
from ..sectors import tile_load_sectors
from ..trace import Access, Step
from ..warps import INACTIVE

NAME = "smem"
TITLE = "Shared-memory tiling"
PARAMS = SmemParams

SOURCE = """\
// blockDim = ({T}, {T}), TILE_SIZE = {T}, grid = ({gx}, {gy})
__global__ void sgemm_smem(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float tileA[{T}][{T}];
  __shared__ float tileB[{T}][{T}];  // no padding needed (see the bank analysis)
  int tx = threadIdx.x, ty = threadIdx.y;
  int globalRow = blockIdx.y * {T} + ty;
  int globalCol = blockIdx.x * {T} + tx;
  float partialSum = 0.0f;
  for (int tileIdx = 0; tileIdx < {tiles}; tileIdx++) {{  // ceil(K / {T}) = ceil({K} / {T})
    int tileColA = tileIdx * {T} + tx, tileRowB = tileIdx * {T} + ty;
    tileA[ty][tx] = (globalRow < M && tileColA < K) ? A[globalRow * K + tileColA] : 0;
    tileB[ty][tx] = (tileRowB < K && globalCol < N) ? B[tileRowB * N + globalCol] : 0;
    __syncthreads();  // the whole tile must be loaded before anyone reads it
    for (int k = 0; k < {T}; k++) {{
      partialSum += tileA[ty][k] * tileB[k][tx];
    }}
    __syncthreads();  // stops fast threads overwriting a tile slow threads still read
  }}
  if (globalRow < M && globalCol < N) C[globalRow * N + globalCol] = partialSum;
}}"""

SETUP, LOAD_A, LOAD_B, SYNC_LOADED, FMA, SYNC_DONE, STORE = (
    (5, 8),
    (10, 11),
    (12, 12),
    (13, 13),
    (15, 15),
    (17, 17),
    (19, 19),
)
STATEMENT_LINES = frozenset(
    line
    for lines in (SETUP, LOAD_A, LOAD_B, SYNC_LOADED, FMA, SYNC_DONE, STORE)
    for line in range(lines[0], lines[1] + 1)
)


def source(p: SmemParams) -> list[str]:
    gx, gy = grid(p)
    return SOURCE.format(T=p.T, K=p.K, gx=gx, gy=gy, tiles=p.tiles).splitlines()


def grid(p: SmemParams) -> tuple[int, int]:
    return ceil(p.N / p.T), ceil(p.M / p.T)


def threads(p: SmemParams) -> int:
    return p.T * p.T


def thread_xy(p: SmemParams, thread: int) -> tuple[int, int]:
    return thread % p.T, thread // p.T


def steps_per_block(p: SmemParams) -> int:
    return 2 + p.tiles * (p.T + 4)


def c_region(p: SmemParams, bx: int, by: int) -> tuple[slice, slice]:
    return slice(by * p.T, min((by + 1) * p.T, p.M)), slice(bx * p.T, min((bx + 1) * p.T, p.N))


def block_steps(p: SmemParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step, all its threads in lockstep."""
    T = p.T
    ty, tx = np.divmod(np.arange(T * T), T)  # linear thread id = tx + ty * T
    globalRow = by * T + ty
    globalCol = bx * T + tx
    tileA = np.full((T, T), np.nan, dtype=np.float32)
    tileB = np.full((T, T), np.nan, dtype=np.float32)
    partialSum = np.zeros(T * T, dtype=np.float32)
    yield Step("setup", SETUP, registers={"partialSum": partialSum}, shared={"tileA": tileA, "tileB": tileB})

    for tileIdx in range(p.tiles):
        tileColA = tileIdx * T + tx
        tileRowB = tileIdx * T + ty
        inA = (globalRow < p.M) & (tileColA < p.K)
        tileA = tileA.copy()
        tileA[ty, tx] = np.where(inA, A[np.minimum(globalRow, p.M - 1), np.minimum(tileColA, p.K - 1)], 0)
        yield Step(
            "load",
            LOAD_A,
            tile=tileIdx,
            accesses=(
                Access(
                    "A", "global", "load", np.where(inA, globalRow, INACTIVE), np.where(inA, tileColA, INACTIVE), p.K
                ),
                Access("tileA", "shared", "store", ty, tx, T, zero_fill=~inA),
            ),
            registers={"partialSum": partialSum},
            shared={"tileA": tileA, "tileB": tileB},
        )
        inB = (tileRowB < p.K) & (globalCol < p.N)
        tileB = tileB.copy()
        tileB[ty, tx] = np.where(inB, B[np.minimum(tileRowB, p.K - 1), np.minimum(globalCol, p.N - 1)], 0)
        yield Step(
            "load",
            LOAD_B,
            tile=tileIdx,
            accesses=(
                Access(
                    "B", "global", "load", np.where(inB, tileRowB, INACTIVE), np.where(inB, globalCol, INACTIVE), p.N
                ),
                Access("tileB", "shared", "store", ty, tx, T, zero_fill=~inB),
            ),
            registers={"partialSum": partialSum},
            shared={"tileA": tileA, "tileB": tileB},
        )
        yield Step(
            "barrier",
            SYNC_LOADED,
            tile=tileIdx,
            barrier=True,
            registers={"partialSum": partialSum},
            shared={"tileA": tileA, "tileB": tileB},
        )
        for k in range(T):
            partialSum = partialSum + tileA[ty, k] * tileB[k, tx]
            yield Step(
                "compute",
                FMA,
                tile=tileIdx,
                k=k,
                fma=T * T,
                accesses=(
                    Access("tileA", "shared", "load", ty, np.full(T * T, k), T),
                    Access("tileB", "shared", "load", np.full(T * T, k), tx, T),
                ),
                registers={"partialSum": partialSum},
                shared={"tileA": tileA, "tileB": tileB},
            )
        yield Step(
            "barrier",
            SYNC_DONE,
            tile=tileIdx,
            barrier=True,
            registers={"partialSum": partialSum},
            shared={"tileA": tileA, "tileB": tileB},
        )

    inC = (globalRow < p.M) & (globalCol < p.N)
    yield Step(
        "store",
        STORE,
        accesses=(
            Access("C", "global", "store", np.where(inC, globalRow, INACTIVE), np.where(inC, globalCol, INACTIVE), p.N),
        ),
        registers={"partialSum": partialSum},
        shared={"tileA": tileA, "tileB": tileB},
    )


def tile_pattern(T: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the element each thread loads, relative to the tile origin."""
    ty, tx = np.divmod(np.arange(T * T), T)
    return ty[None, :], tx[None, :]


@lru_cache(maxsize=64)
def shared_extra_cycles_per_tile(T: int) -> int:
    """Bank-conflict cycles of one tile step: two tile stores and T rounds of two reads."""
    ty, tx = np.divmod(np.arange(T * T), T)
    stores = 2 * banks.extra_cycles(ty * T + tx)
    reads = sum(banks.extra_cycles(ty * T + k) + banks.extra_cycles(k * T + tx) for k in range(T))
    return stores + reads


def counters_for(p: SmemParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T, tiles = p.T, p.tiles
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * T, T).sum())
    cols = int(np.minimum(p.N - bxs * T, T).sum())
    rel_rows, rel_cols = tile_pattern(T)
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
        bank_extra_cycles=blocks * tiles * shared_extra_cycles_per_tile(T),
    )


def block_counters(p: SmemParams, bx: int, by: int) -> Counters:
    return counters_for(p, np.array([bx]), np.array([by]))


def counters(p: SmemParams) -> Counters:
    gx, gy = grid(p)
    return counters_for(p, np.arange(gx), np.arange(gy))


def reference(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """What C must equal: NumPy's product."""
    return A @ B


def run_c(p: SmemParams, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """C as the kernel computes it: float32 partial sums accumulated tile by tile."""
    return sliced_product(A, B, p.T)


def describe(step: Step, p: SmemParams, thread: int) -> str:
    """What one thread does in this step, in words (monitor table and narration)."""
    tx, ty = thread_xy(p, thread)
    if step.phase == "setup":
        return f"computes globalRow={step.block[1] * p.T + ty}, globalCol={step.block[0] * p.T + tx}"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        source, tile = step.accesses
        if bool(tile.zero_fill[0, thread]):
            return f"writes 0 to {tile.array}[{ty}][{tx}] (edge: outside {source.array})"
        return f"loads {source.array}[{source.rows[0, thread]}][{source.cols[0, thread]}] into {tile.array}[{ty}][{tx}]"
    if step.phase == "compute":
        k = step.k
        a, b = step.shared["tileA"][ty, k], step.shared["tileB"][k, tx]
        return (
            f"partialSum += tileA[{ty}][{k}]·tileB[{k}][{tx}] = {a:g}·{b:g} → {step.registers['partialSum'][thread]:g}"
        )
    store = step.accesses[0]
    if store.rows[0, thread] == INACTIVE:
        return "stores nothing (outside C)"
    return f"stores C[{store.rows[0, thread]}][{store.cols[0, thread]}] = {step.registers['partialSum'][thread]:g}"


def narrate(step: Step, p: SmemParams, thread: int) -> str:
    """One sentence for the live region: where we are and what the followed thread does."""
    tx, ty = thread_xy(p, thread)
    where = f"Block ({step.block[0]},{step.block[1]})"
    if step.tile is not None:
        where += f", tile {step.tile + 1} of {p.tiles}"
        if step.k is not None:
            where += f", k={step.k}"
    return f"{where}: thread ({tx},{ty}) {describe(step, p, thread)}."


@dataclass(frozen=True)
class Term:
    """One product of the followed thread's dot product within the current tile."""

    k: int
    a: float
    b: float
    done: bool
    current: bool

    @property
    def product(self) -> float:
        return float(np.float32(self.a) * np.float32(self.b))


@dataclass(frozen=True)
class Lens:
    """The selected-thread lens: its tileA row, tileB column and dot-product timeline."""

    row: np.ndarray
    column: np.ndarray
    terms: tuple[Term, ...]
    partial_sum: float
    target: tuple[int, int]


def lens(step: Step, p: SmemParams, thread: int) -> Lens:
    tx, ty = thread_xy(p, thread)
    tileA, tileB = step.shared["tileA"], step.shared["tileB"]
    in_loop = step.phase == "compute" or (step.phase == "barrier" and step.lines == SYNC_DONE)
    last_done = step.k if step.phase == "compute" else (p.T - 1 if in_loop else -1)
    terms = tuple(Term(k, float(tileA[ty, k]), float(tileB[k, tx]), k <= last_done, k == step.k) for k in range(p.T))
    target = (step.block[1] * p.T + ty, step.block[0] * p.T + tx)
    return Lens(tileA[ty, :].copy(), tileB[:, tx].copy(), terms, float(step.registers["partialSum"][thread]), target)


def phase_detail(step: Step, p: SmemParams) -> str:
    """What the whole block is doing in this step."""
    threads = p.T * p.T
    if step.phase == "setup":
        return f"Setup: each of the {threads} threads computes which element of C it owns; partialSum starts at 0."
    if step.phase == "barrier":
        if step.lines == SYNC_LOADED:
            return "Barrier: no thread may read the tiles until every thread has written its element."
        return "Barrier: no thread may load the next tile while another still reads this one."
    if step.phase == "load":
        source, tile = step.accesses
        zeros = len(tile.zero_cells())
        loaded = int(np.count_nonzero(source.active))
        text = f"Cooperative load: {loaded} threads each copy one element of {source.array} from global memory into {tile.array}"
        return text + (f"; {zeros} threads outside {source.array} write 0 instead (edge tile)." if zeros else ".")
    if step.phase == "compute":
        return (
            f"Compute, k={step.k}: every thread reads tileA[ty][{step.k}] and tileB[{step.k}][tx] from shared memory "
            f"and adds their product to partialSum ({threads} FMAs)."
        )
    stored = int(np.count_nonzero(step.accesses[0].active))
    return f"Store: {stored} threads write partialSum to C; threads outside C write nothing."


def read_bank_reports(p: SmemParams, k: int = 0) -> tuple[banks.BankReport, banks.BankReport]:
    """Bank analysis of warp 0's two reads at step k: tileA[ty][k] and tileB[k][tx]."""
    ty, tx = np.divmod(np.arange(min(p.T * p.T, WARP_SIZE)), p.T)
    return banks.analyse(ty * p.T + k), banks.analyse(k * p.T + tx)
