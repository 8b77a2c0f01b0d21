"""Kernel 5: 2D register tiling, the outer product (siboehm's kernel 5, 2D blocktiling).

Changes from kernel 3 (shared-memory tiling): a block computes a BM×BN tile of C with
(BM/TM)·(BN/TN) threads, each owning a TM×TN patch. For every dotIdx a thread
copies TM values of a column of As into regM and TN values of a row of Bs into
regN, then performs TM·TN multiply-adds from registers alone. Shared reads per
FMA fall from 2 to (TM+TN)/(TM·TN). Kernel 4 (1D blocktiling) is the case TN = 1.
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
from ..core.warps import INACTIVE
from ..hardware.params import RegisterParams
from .plumbing import block_span, cooperative_copy, guarded_store, load_pattern, span

NAME = "register"
TITLE = "2D register tiling"
PARAMS = RegisterParams

LISTING = Listing("""\
// 2D tiling: BM={BM}, BN={BN}, BK={BK}, TM={TM}, TN={TN}: a block of threads={threads} computes one {BM}x{BN} tile of C
__global__ void sgemm_2d(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float As[{BM}][{BK}];
  __shared__ float Bs[{BK}][{BN}];
  int tx = threadIdx.x % {cols}, ty = threadIdx.x / {cols};  // this thread's {TM}x{TN} patch  @@setup
  float threadResults[{TM} * {TN}] = {{0.0f}};  @@setup
  float regM[{TM}] = {{0.0f}}, regN[{TN}] = {{0.0f}};  @@setup
  for (int bkIdx = 0; bkIdx < K; bkIdx += {BK}) {{
    for (int i = threadIdx.x; i < {BM} * {BK}; i += {threads}) {{  // cooperative load of As
      int r = blockIdx.y * {BM} + i / {BK}, c = bkIdx + i % {BK};
      As[i / {BK}][i % {BK}] = (r < M && c < K) ? A[r * K + c] : 0;  // 0 outside A  @@load_a
    }}
    for (int i = threadIdx.x; i < {BK} * {BN}; i += {threads}) {{  // cooperative load of Bs
      int r = bkIdx + i / {BN}, c = blockIdx.x * {BN} + i % {BN};
      Bs[i / {BN}][i % {BN}] = (r < K && c < N) ? B[r * N + c] : 0;  // 0 outside B  @@load_b
    }}
    __syncthreads();  @@sync_loaded
    for (int dotIdx = 0; dotIdx < {BK}; ++dotIdx) {{
      for (int i = 0; i < {TM}; ++i) regM[i] = As[ty * {TM} + i][dotIdx];  @@load_m
      for (int j = 0; j < {TN}; ++j) regN[j] = Bs[dotIdx][tx * {TN} + j];  @@load_n
      for (int i = 0; i < {TM}; ++i)
        for (int j = 0; j < {TN}; ++j)
          threadResults[i * {TN} + j] += regM[i] * regN[j];  @@fma
    }}
    __syncthreads();  // stops fast threads overwriting As/Bs that slow threads still read  @@sync_done
  }}
  for (int i = 0; i < {TM}; ++i)
    for (int j = 0; j < {TN}; ++j) {{
      int r = blockIdx.y * {BM} + ty * {TM} + i, c = blockIdx.x * {BN} + tx * {TN} + j;
      if (r < M && c < N) C[r * N + c] = threadResults[i * {TN} + j];  // only inside C  @@store
    }}
}}""")
SETUP, LOAD_A, LOAD_B, SYNC_LOADED, LOAD_M, LOAD_N, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker)
    for marker in ("setup", "load_a", "load_b", "sync_loaded", "load_m", "load_n", "fma", "sync_done", "store")
)


def source(p: RegisterParams) -> list[str]:
    return LISTING.render(BM=p.BM, BN=p.BN, BK=p.BK, TM=p.TM, TN=p.TN, threads=p.threads, cols=p.BN // p.TN)


def grid(p: RegisterParams) -> tuple[int, int]:
    return ceil(p.N / p.BN), ceil(p.M / p.BM)


def threads(p: RegisterParams) -> int:
    return p.threads


def thread_xy(p: RegisterParams, thread: int) -> tuple[int, int]:
    return thread % (p.BN // p.TN), thread // (p.BN // p.TN)


def steps_per_block(p: RegisterParams) -> int:
    return 2 + p.tiles * (4 + p.BK * (2 + p.TM * p.TN))


def owner(p: RegisterParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and linear thread id whose TM×TN patch holds C[row][col]."""
    tx, ty = (col % p.BN) // p.TN, (row % p.BM) // p.TM
    return (col // p.BN, row // p.BM), ty * (p.BN // p.TN) + tx


def owned_cells(p: RegisterParams, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
    """The cells of C inside the thread's TM×TN patch, row by row."""
    tx, ty = thread_xy(p, thread)
    top, left = block[1] * p.BM + ty * p.TM, block[0] * p.BN + tx * p.TN
    return tuple(cells(range(top, min(top + p.TM, p.M)), range(left, min(left + p.TN, p.N))))


def regions(p: RegisterParams, step: Step) -> dict[str, list[Cell]]:
    """The block's tile of C and, inside the bkIdx loop, the BK-slice of A and B it works on."""
    rows, cols = block_span(step.block, p.BM, p.BN, (p.M, p.N))
    found = {"C": cells(rows, cols)}
    if step.tile is not None:
        ks = span(step.tile * p.BK, p.BK, p.K)
        found |= {"A": cells(rows, ks), "B": cells(ks, cols)}
    return found


def focus(p: RegisterParams, step: Step, thread: int) -> Focus:
    """The thread's patch of C, the As column / Bs row it copies into regM / regN, and the pair in use."""
    tx, ty = thread_xy(p, thread)
    owned = owned_cells(p, step.block, thread)
    if step.k is None:
        return Focus(owned)
    operands = {
        "As": tuple((ty * p.TM + i, step.k) for i in range(p.TM)),
        "Bs": tuple((step.k, tx * p.TN + j) for j in range(p.TN)),
    }
    current = {}
    if step.pair is not None:
        i, j = step.pair
        current = {"As": ((ty * p.TM + i, step.k),), "Bs": ((step.k, tx * p.TN + j),)}
        cell = (step.block[1] * p.BM + ty * p.TM + i, step.block[0] * p.BN + tx * p.TN + j)
        if cell in owned:
            current["C"] = (cell,)
    return Focus(owned, operands, current)


def block_steps(p: RegisterParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step (each FMA of the outer product is a step)."""
    n = p.threads
    tid = np.arange(n)
    ty, tx = np.divmod(tid, p.BN // p.TN)
    As = np.full((p.BM, p.BK), np.nan, dtype=np.float32)
    Bs = np.full((p.BK, p.BN), np.nan, dtype=np.float32)
    results = np.zeros((n, p.TM, p.TN), dtype=np.float32)
    regM = np.zeros((n, p.TM), dtype=np.float32)
    regN = np.zeros((n, p.TN), dtype=np.float32)

    def state() -> dict:
        return {"registers": {"regM": regM, "regN": regN, "threadResults": results}, "shared": {"As": As, "Bs": Bs}}

    yield Step("setup", SETUP, **state())
    for tile in range(p.tiles):
        bkIdx = tile * p.BK
        accesses, As = cooperative_copy("As", A, "A", (by * p.BM, bkIdx), (p.BM, p.BK), n, As)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = cooperative_copy("Bs", B, "B", (bkIdx, bx * p.BN), (p.BK, p.BN), n, Bs)
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())
        yield Step("barrier", SYNC_LOADED, tile=tile, barrier=True, **state())
        for dotIdx in range(p.BK):
            m_rows = ty[None, :] * p.TM + np.arange(p.TM)[:, None]  # one instruction per i
            read = As[m_rows, dotIdx]
            regM = read.T.copy()
            access = Access("As", "shared", "load", m_rows, np.full_like(m_rows, dotIdx), p.BK, read)
            yield Step("compute", LOAD_M, tile=tile, k=dotIdx, accesses=(access,), **state())
            n_cols = tx[None, :] * p.TN + np.arange(p.TN)[:, None]
            read = Bs[dotIdx, n_cols]
            regN = read.T.copy()
            access = Access("Bs", "shared", "load", np.full_like(n_cols, dotIdx), n_cols, p.BN, read)
            yield Step("compute", LOAD_N, tile=tile, k=dotIdx, accesses=(access,), **state())
            for i in range(p.TM):
                for j in range(p.TN):
                    results = results.copy()
                    results[:, i, j] += regM[:, i] * regN[:, j]
                    yield Step("compute", FMA, tile=tile, k=dotIdx, pair=(i, j), fma=n, register_reads=2 * n, **state())
        yield Step("barrier", SYNC_DONE, tile=tile, barrier=True, **state())

    rows = by * p.BM + ty[None, :] * p.TM + np.repeat(np.arange(p.TM), p.TN)[:, None]
    cols = bx * p.BN + tx[None, :] * p.TN + np.tile(np.arange(p.TN), p.TM)[:, None]
    values = results.reshape(n, p.TM * p.TN).T  # one store instruction per (i, j)
    store = guarded_store("C", (p.M, p.N), rows, cols, values)
    yield Step("store", STORE, accesses=(store,), **state())


def _reads(p: RegisterParams) -> list[Scalar]:
    """One bkIdx step's regM and regN reads, round by round (a round's reads are named by kind)."""
    ty, tx = np.divmod(np.arange(p.threads), p.BN // p.TN)
    reads: list[Scalar] = []
    for dotIdx in range(p.BK):
        round_ = round_of(dotIdx, p.TM * p.TN, p.TM + p.TN)
        reads.append(("regM", (ty[None, :] * p.TM + np.arange(p.TM)[:, None]) * p.BK + dotIdx, round_))
        reads.append(("regN", dotIdx * p.BN + tx[None, :] * p.TN + np.arange(p.TN)[:, None], round_))
    return reads


@lru_cache(maxsize=64)
def shared_costs_per_tile(p: RegisterParams) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one bkIdx step: the two copies and BK rounds of regM/regN reads."""
    found = shared_costs_by_access(p).values()
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def shared_costs_by_access(p: RegisterParams) -> dict[str, tuple[int, int]]:
    """(bank-conflict cycles, wavefronts) of one bkIdx step per kind of shared access: the copies into
    As and Bs, the BK·TM regM reads and the BK·TN regN reads as nvcc issues them (`issued`: a thread's
    consecutive aligned reads as one LDS.64 or LDS.128; the register view explains each)."""
    n = p.threads
    a_rows, a_cols = load_pattern(p.BM, p.BK, n)
    b_rows, b_cols = load_pattern(p.BK, p.BN, n)
    copies = [
        np.where(a_rows == INACTIVE, INACTIVE, a_rows * p.BK + a_cols),
        np.where(b_rows == INACTIVE, INACTIVE, b_rows * p.BN + b_cols),
    ]
    reads = _reads(p)
    found = {"copies": [banks.costs(words) for words in copies], "regM": [], "regN": []}
    for (kind, _, _), costs in zip(reads, scalar_costs(reads), strict=True):
        found[kind].append(costs)
    return {kind: (sum(e for e, _ in costs), sum(w for _, w in costs)) for kind, costs in found.items()}


def counters_for(p: RegisterParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    n, tiles = p.threads, p.tiles
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    fma = blocks * n * tiles * p.BK * p.TM * p.TN
    k_origins = np.arange(tiles) * p.BK
    sectors = tile_load_sectors(*load_pattern(p.BM, p.BK, n), p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs))
    sectors += tile_load_sectors(*load_pattern(p.BK, p.BN, n), p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys))
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * n * tiles * p.BK * (p.TM + p.TN),
        shared_stores=blocks * tiles * p.BK * (p.BM + p.BN),
        register_reads=2 * fma,
        fma=fma,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * tiles * shared_costs_per_tile(p)[0],
        shared_wavefronts=blocks * tiles * shared_costs_per_tile(p)[1],
    )


def read_bank_reports(p: RegisterParams) -> tuple[tuple[banks.BankReport, int], tuple[banks.BankReport, int]]:
    """(bank analysis, width) of warp 0's first regM instruction (the one reading As[ty*TM][0]) and first
    regN instruction (reading Bs[0][tx*TN]), as nvcc issues them (`issued`: LDS, LDS.64 or LDS.128)."""
    first, second = first_issued_reports(_reads(p), 2)
    return first, second
