"""Kernel 4: 1D blocktiling (siboehm's kernel 4).

Written after siboehm/SGEMM_CUDA, src/kernels/4_kernel_1D_blocktiling.cuh at commit
60cba6f9b20a198116c76f18de8047f44df8c8b8, with his runner's A6000 sizes as defaults
(BM = BN = 64, BK = 8, TM = 8: 512 threads).

Changes from shared-memory tiling: a block computes a BM×BN tile of C with BM·BN/TM
threads, and each thread computes TM results of one column. Per dotIdx a thread reads one
value of Bs into the register tmpB and reuses it for TM multiply-adds, each with its own
value of As: shared reads per FMA fall from 2 to (TM+1)/TM.

What siboehm's kernel assumes: M, N and K are multiples of BM, BN and BK (no bounds
checks), and every thread copies exactly one element of As and one of Bs (his asserts
BM·BK == BN·BK == blockDim.x). TileLab keeps the second as a parameter rule and adds the
guards: a load outside A or B writes 0 to shared memory, a store outside C is skipped, so
any M, N, K ≥ 1 runs. C = A·B (his alpha = 1, beta = 0).

Steps: one per statement, each of the TM multiply-adds of a dotIdx a step of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from ..core import banks
from ..core.counters import Counters
from ..core.instructions import Scalar, round_of, scalar_costs
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step, cells
from ..hardware.blocktile_params import Blocktile1DParams
from .plumbing import guarded_store, pattern_copy, tile_grid, tile_regions

NAME = "blocktile1d"
TITLE = "1D blocktiling"
PARAMS = Blocktile1DParams

LISTING = Listing("""\
// 1D blocktiling: BM={BM}, BN={BN}, BK={BK}, TM={TM}: a block of threads={threads} computes one {BM}x{BN} tile of C
__global__ void sgemm1DBlocktiling(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float As[{BM} * {BK}];
  __shared__ float Bs[{BK} * {BN}];
  const int threadCol = threadIdx.x % {BN}, threadRow = threadIdx.x / {BN};  // its {TM} results  @@setup
  const int innerColA = threadIdx.x % {BK}, innerRowA = threadIdx.x / {BK};  // its element of As  @@setup
  const int innerColB = threadIdx.x % {BN}, innerRowB = threadIdx.x / {BN};  // its element of Bs  @@setup
  float threadResults[{TM}] = {{0.0f}};  @@setup
  for (int bkIdx = 0; bkIdx < K; bkIdx += {BK}) {{
    int rA = blockIdx.y * {BM} + innerRowA, cA = bkIdx + innerColA;
    As[innerRowA * {BK} + innerColA] = (rA < M && cA < K) ? A[rA * K + cA] : 0;  // 0 outside A  @@load_a
    int rB = bkIdx + innerRowB, cB = blockIdx.x * {BN} + innerColB;
    Bs[innerRowB * {BN} + innerColB] = (rB < K && cB < N) ? B[rB * N + cB] : 0;  // 0 outside B  @@load_b
    __syncthreads();  @@sync_loaded
    for (int dotIdx = 0; dotIdx < {BK}; ++dotIdx) {{
      float tmpB = Bs[dotIdx * {BN} + threadCol];  // one value of Bs, reused {TM} times  @@load_tmp
      for (int resIdx = 0; resIdx < {TM}; ++resIdx)
        threadResults[resIdx] += As[(threadRow * {TM} + resIdx) * {BK} + dotIdx] * tmpB;  @@fma
    }}
    __syncthreads();  // stops fast threads overwriting As/Bs that slow threads still read  @@sync_done
  }}
  for (int resIdx = 0; resIdx < {TM}; ++resIdx) {{
    int r = blockIdx.y * {BM} + threadRow * {TM} + resIdx, c = blockIdx.x * {BN} + threadCol;
    if (r < M && c < N) C[r * N + c] = threadResults[resIdx];  // only inside C  @@store
  }}
}}""")
SETUP, LOAD_A, LOAD_B, SYNC_LOADED, LOAD_TMP, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker)
    for marker in ("setup", "load_a", "load_b", "sync_loaded", "load_tmp", "fma", "sync_done", "store")
)


def source(p: Blocktile1DParams) -> list[str]:
    return LISTING.render(BM=p.BM, BN=p.BN, BK=p.BK, TM=p.TM, threads=p.threads)


grid = tile_grid


def threads(p: Blocktile1DParams) -> int:
    return p.threads


def thread_xy(p: Blocktile1DParams, thread: int) -> tuple[int, int]:
    """(threadCol, threadRow)."""
    return thread % p.BN, thread // p.BN


def steps_per_block(p: Blocktile1DParams) -> int:
    return 2 + p.tiles * (4 + p.BK * (1 + p.TM))


def owner(p: Blocktile1DParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and linear thread id whose TM results hold C[row][col]."""
    return (col // p.BN, row // p.BM), ((row % p.BM) // p.TM) * p.BN + col % p.BN


def owned_cells(p: Blocktile1DParams, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
    """The cells of C among the thread's TM results (one column, TM rows)."""
    col, row = thread_xy(p, thread)
    top, left = block[1] * p.BM + row * p.TM, block[0] * p.BN + col
    return tuple(cells(range(top, min(top + p.TM, p.M)), range(left, min(left + 1, p.N))))


regions = tile_regions


def focus(p: Blocktile1DParams, step: Step, thread: int) -> Focus:
    """The thread's TM results, the As column slice and Bs value of this dotIdx, and the FMA in use."""
    col, row = thread_xy(p, thread)
    owned = owned_cells(p, step.block, thread)
    if step.k is None:
        return Focus(owned)
    operands = {"As": tuple((row * p.TM + i, step.k) for i in range(p.TM)), "Bs": ((step.k, col),)}
    current = {"Bs": ((step.k, col),)}
    if step.inner:
        (i,) = step.inner
        current["As"] = ((row * p.TM + i, step.k),)
        cell = (step.block[1] * p.BM + row * p.TM + i, step.block[0] * p.BN + col)
        if cell in owned:
            current["C"] = (cell,)
    return Focus(owned, operands, current)


def _layout(p: Blocktile1DParams) -> dict[str, np.ndarray]:
    """Each thread's indices, as the listing's setup lines compute them, shaped (1, threads)."""
    tid = np.arange(p.threads)[None, :]
    return {"col": tid % p.BN, "row": tid // p.BN, "a_row": tid // p.BK, "a_col": tid % p.BK, "b_col": tid % p.BN}


def block_steps(p: Blocktile1DParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step (each of the TM FMAs of a dotIdx is a step)."""
    n, at = p.threads, _layout(p)
    col, row = at["col"][0], at["row"][0]
    As = np.full((p.BM, p.BK), np.nan, dtype=np.float32)
    Bs = np.full((p.BK, p.BN), np.nan, dtype=np.float32)
    results = np.zeros((n, p.TM), dtype=np.float32)
    tmpB = np.zeros(n, dtype=np.float32)

    def state() -> dict:
        return {"registers": {"tmpB": tmpB, "threadResults": results}, "shared": {"As": As, "Bs": Bs}}

    yield Step("setup", SETUP, **state())
    for tile in range(p.tiles):
        bkIdx = tile * p.BK
        accesses, As = pattern_copy("As", A, "A", (by * p.BM, bkIdx), (at["a_row"], at["a_col"]), As)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = pattern_copy("Bs", B, "B", (bkIdx, bx * p.BN), (at["row"], at["b_col"]), Bs)
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())
        yield Step("barrier", SYNC_LOADED, tile=tile, barrier=True, **state())
        for dotIdx in range(p.BK):
            tmpB = Bs[dotIdx, col]
            access = Access("Bs", "shared", "load", np.full(n, dotIdx), col, p.BN, tmpB)
            yield Step("compute", LOAD_TMP, tile=tile, k=dotIdx, accesses=(access,), **state())
            for resIdx in range(p.TM):
                a_rows = row * p.TM + resIdx
                a = As[a_rows, dotIdx]
                results = results.copy()
                results[:, resIdx] += a * tmpB
                access = Access("As", "shared", "load", a_rows, np.full(n, dotIdx), p.BK, a)
                yield Step(
                    "compute",
                    FMA,
                    tile=tile,
                    k=dotIdx,
                    inner=(resIdx,),
                    accesses=(access,),
                    fma=n,
                    register_reads=n,  # tmpB; the As operand comes from shared memory
                    **state(),
                )
        yield Step("barrier", SYNC_DONE, tile=tile, barrier=True, **state())

    rows = by * p.BM + row[None, :] * p.TM + np.arange(p.TM)[:, None]  # one store instruction per resIdx
    store = guarded_store("C", (p.M, p.N), rows, bx * p.BN + col[None, :], results.T)
    yield Step("store", STORE, accesses=(store,), **state())


@lru_cache(maxsize=64)
def shared_costs_per_tile(p: Blocktile1DParams) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one bkIdx step: the two copies and BK rounds of reads."""
    at = _layout(p)
    reads: list[Scalar] = []
    for dotIdx in range(p.BK):
        round_ = round_of(dotIdx, p.TM, p.TM + 1)
        reads.append(("Bs", dotIdx * p.BN + at["col"], round_))
        reads.extend(("As", (at["row"] * p.TM + i) * p.BK + dotIdx, round_) for i in range(p.TM))
    copies = [banks.costs(words) for words in (at["a_row"] * p.BK + at["a_col"], at["row"] * p.BN + at["b_col"])]
    found = copies + scalar_costs(reads)
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def counters_for(p: Blocktile1DParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    n, tiles, at = p.threads, p.tiles, _layout(p)
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    fma = blocks * n * tiles * p.BK * p.TM
    k_origins = np.arange(tiles) * p.BK
    sectors = tile_load_sectors(at["a_row"], at["a_col"], p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs))
    sectors += tile_load_sectors(at["row"], at["b_col"], p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys))
    extra, waves = shared_costs_per_tile(p)
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * n * tiles * p.BK * (1 + p.TM),
        shared_stores=blocks * tiles * p.BK * (p.BM + p.BN),
        register_reads=fma,
        fma=fma,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * tiles * extra,
        shared_wavefronts=blocks * tiles * waves,
    )
