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

from ..core import banks
from ..core.constants import WARP_SIZE
from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step, cells
from ..core.warps import INACTIVE
from ..hardware.params import SmemParams

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


def _block_span(p: SmemParams, block: tuple[int, int]) -> tuple[range, range]:
    bx, by = block
    return range(by * p.T, min(by * p.T + p.T, p.M)), range(bx * p.T, min(bx * p.T + p.T, p.N))


def regions(p: SmemParams, step: Step) -> dict[str, list[Cell]]:
    """The block's part of C and, inside the tile loop, the K-slice of A and B the block works on."""
    rows, cols = _block_span(p, step.block)
    found = {"C": cells(rows, cols)}
    if step.tile is not None:
        ks = range(step.tile * p.T, min(step.tile * p.T + p.T, p.K))
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
        inA = (globalRow < p.M) & (tileColA < p.K)
        a = np.where(inA, A[np.minimum(globalRow, p.M - 1), np.minimum(tileColA, p.K - 1)], 0).astype(np.float32)
        tileA = tileA.copy()
        tileA[ty, tx] = a
        loads = (
            Access(
                "A", "global", "load", np.where(inA, globalRow, INACTIVE), np.where(inA, tileColA, INACTIVE), p.K, a
            ),
            Access("tileA", "shared", "store", ty, tx, T, a, zero_fill=~inA),
        )
        yield Step("load", LOAD_A, tile=tileIdx, accesses=loads, **state())
        inB = (tileRowB < p.K) & (globalCol < p.N)
        b = np.where(inB, B[np.minimum(tileRowB, p.K - 1), np.minimum(globalCol, p.N - 1)], 0).astype(np.float32)
        tileB = tileB.copy()
        tileB[ty, tx] = b
        loads = (
            Access(
                "B", "global", "load", np.where(inB, tileRowB, INACTIVE), np.where(inB, globalCol, INACTIVE), p.N, b
            ),
            Access("tileB", "shared", "store", ty, tx, T, b, zero_fill=~inB),
        )
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

    inC = (globalRow < p.M) & (globalCol < p.N)
    store = Access(
        "C", "global", "store", np.where(inC, globalRow, INACTIVE), np.where(inC, globalCol, INACTIVE), p.N, partialSum
    )
    yield Step("store", STORE, accesses=(store,), **state())


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
    """The selected-thread lens: its tileA row, tileB column and dot-product timeline.

    `carried` is what partialSum brought into the current tile from earlier tiles,
    so carried + the done terms = partial_sum. `terms` is empty while the tile is
    still being loaded; `final` marks the store, where partial_sum is C's value.
    """

    row: np.ndarray
    column: np.ndarray
    terms: tuple[Term, ...]
    carried: float
    partial_sum: float
    target: Cell | None
    final: bool

    @property
    def done_sum(self) -> float:
        return float(sum(np.float32(term.product) for term in self.terms if term.done))


def lens(step: Step, p: SmemParams, thread: int) -> Lens:
    tx, ty = thread_xy(p, thread)
    tileA, tileB = step.shared["tileA"], step.shared["tileB"]
    loaded = step.phase in ("compute", "store") or step.lines in (SYNC_LOADED, SYNC_DONE)
    if step.phase == "compute":
        last_done = step.k
    elif step.lines == SYNC_LOADED:
        last_done = -1
    else:
        last_done = p.T - 1
    terms = (
        tuple(Term(k, float(tileA[ty, k]), float(tileB[k, tx]), k <= last_done, k == step.k) for k in range(p.T))
        if loaded
        else ()
    )
    owned = focus(p, step, thread).owned
    return Lens(
        tileA[ty, :].copy(),
        tileB[:, tx].copy(),
        terms,
        float(step.registers["tileStartSum"][thread]),
        float(step.registers["partialSum"][thread]),
        owned[0] if owned else None,
        step.phase == "store",
    )


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
