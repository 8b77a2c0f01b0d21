"""Kernel 6: vectorized 2D blocktiling (siboehm's kernel 6).

Written after siboehm/SGEMM_CUDA, src/kernels/6_kernel_vectorize.cuh at commit
60cba6f9b20a198116c76f18de8047f44df8c8b8, with his runner's A6000 sizes as defaults
(BM = BN = 128, BK = 8, TM = TN = 8: 256 threads).

Changes from the 2D kernel (register tiling): every global load moves a float4 (LDG.128,
4 floats per lane), so a tile takes a quarter of the load instructions; A is stored
transposed (As[k][m]), so a thread's TM values of As for one dotIdx lie side by side and
are read, like its TN values of Bs, with 128-bit shared loads (LDS.128) where TM (or TN)
is a multiple of 4; C is written with float4 stores.

What siboehm's kernel assumes: M, N, K multiples of BM, BN, BK (no bounds checks), each
thread loads exactly one float4 of A and one of B per bkIdx (BM·BK = BN·BK = 4·threads),
TN a multiple of 4, and rows of A, B and C that start on 16-byte boundaries. TileLab keeps
those as parameter rules (K and N must be multiples of 4: a float4 must be 16-byte
aligned, and a scalar fallback would be another kernel, not this lesson) and adds the
guards: a float4 outside A or B writes zeros to shared memory, one outside C is not
stored. Because K, N, BK, BN and TN are multiples of 4, a float4 is always wholly inside
or wholly outside its matrix. C = A·B (his alpha = 1, beta = 0).

Steps: one per statement; the outer product is one step per row resIdxM (its TN FMAs at
once), where the 2D kernel takes one per pair.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from ..core import banks, instructions
from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Focus, Step
from ..hardware.blocktile_params import VectorizedParams

# The 2D kernel's thread layout, unchanged (explicit re-exports: they are this module's contract members).
from .k05_register_tiled import owned_cells as owned_cells
from .k05_register_tiled import owner as owner
from .k05_register_tiled import thread_xy as thread_xy
from .plumbing import (
    guarded_store,
    pattern_copy,
    round_read_costs,
    shared_read,
    tile_grid,
    tile_regions,
    transposed_copy,
)

NAME = "vectorized"
TITLE = "Vectorized 2D blocktiling"
PARAMS = VectorizedParams
VECTOR = 4  # floats in a float4

LISTING = Listing("""\
// vectorized 2D tiling: BM={BM}, BN={BN}, BK={BK}, TM={TM}, TN={TN}: {threads} threads, float4 loads
__global__ void sgemmVectorize(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float As[{BK} * {BM}];  // transposed: As[k][m]
  __shared__ float Bs[{BK} * {BN}];
  const int threadCol = threadIdx.x % {cols}, threadRow = threadIdx.x / {cols};  // its {TM}x{TN} patch  @@setup
  const int innerRowA = threadIdx.x / {a4}, innerColA = threadIdx.x % {a4};  // its float4 of A  @@setup
  const int innerRowB = threadIdx.x / {b4}, innerColB = threadIdx.x % {b4};  // its float4 of B  @@setup
  const float4 zero4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  @@setup
  float threadResults[{TM} * {TN}] = {{0.0f}}, regM[{TM}] = {{0.0f}}, regN[{TN}] = {{0.0f}};  @@setup
  for (int bkIdx = 0; bkIdx < K; bkIdx += {BK}) {{
    int rA = blockIdx.y * {BM} + innerRowA, cA = bkIdx + innerColA * 4;
    float4 tmp = (rA < M && cA < K) ? reinterpret_cast<const float4 *>(&A[rA * K + cA])[0] : zero4;  @@load_a
    As[(innerColA * 4 + 0) * {BM} + innerRowA] = tmp.x;  // A transposed while it is stored  @@load_a
    As[(innerColA * 4 + 1) * {BM} + innerRowA] = tmp.y;  @@load_a
    As[(innerColA * 4 + 2) * {BM} + innerRowA] = tmp.z;  @@load_a
    As[(innerColA * 4 + 3) * {BM} + innerRowA] = tmp.w;  @@load_a
    int rB = bkIdx + innerRowB, cB = blockIdx.x * {BN} + innerColB * 4;
    reinterpret_cast<float4 *>(&Bs[innerRowB * {BN} + innerColB * 4])[0] =  @@load_b
        (rB < K && cB < N) ? reinterpret_cast<const float4 *>(&B[rB * N + cB])[0] : zero4;  @@load_b
    __syncthreads();  @@sync_loaded
    for (int dotIdx = 0; dotIdx < {BK}; ++dotIdx) {{
      for (int i = 0; i < {TM}; ++i) regM[i] = As[dotIdx * {BM} + threadRow * {TM} + i];  // {m_loads}  @@load_m
      for (int i = 0; i < {TN}; ++i) regN[i] = Bs[dotIdx * {BN} + threadCol * {TN} + i];  // {n_loads}  @@load_n
      for (int resIdxM = 0; resIdxM < {TM}; ++resIdxM)
        for (int resIdxN = 0; resIdxN < {TN}; ++resIdxN)
          threadResults[resIdxM * {TN} + resIdxN] += regM[resIdxM] * regN[resIdxN];  @@fma
    }}
    __syncthreads();  // stops fast threads overwriting As/Bs that slow threads still read  @@sync_done
  }}
  for (int resIdxM = 0; resIdxM < {TM}; ++resIdxM)
    for (int resIdxN = 0; resIdxN < {TN}; resIdxN += 4) {{
      int r = blockIdx.y * {BM} + threadRow * {TM} + resIdxM, c = blockIdx.x * {BN} + threadCol * {TN} + resIdxN;
      const float *res = &threadResults[resIdxM * {TN} + resIdxN];
      if (r < M && c < N) reinterpret_cast<float4 *>(&C[r * N + c])[0] = make_float4(res[0], res[1], res[2], res[3]);  @@store
    }}
}}""")
SETUP, LOAD_A, LOAD_B, SYNC_LOADED, LOAD_M, LOAD_N, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker)
    for marker in ("setup", "load_a", "load_b", "sync_loaded", "load_m", "load_n", "fma", "sync_done", "store")
)


def read_width(length: int) -> int:
    """Words per shared load when a thread reads `length` consecutive floats: LDS.128 when
    they come in whole float4s (the tile layouts keep them 16-byte aligned), else LDS.32."""
    return VECTOR if length % VECTOR == 0 else 1


def _loads_note(length: int, unsure: bool) -> str:
    """The shared loads a thread issues for `length` consecutive floats at a multiple of `length` (the `merge`
    rule: e.g. '2 LDS.128', '1 LDS.64'), and `kept-loop-base`'s caveat where the loop is long."""
    runs = [width for _, width in instructions.merged_runs(range(length), instructions.alignment_of([length]))]
    note = ", ".join(
        f"{runs.count(width)} {instructions.instruction_class('LDS', width)}" for width in (4, 2, 1) if width in runs
    )
    return note + instructions.WIDTHS_CAVEAT if unsure else note


def _widths_unsure(p: VectorizedParams) -> bool:
    """`kept-loop-base` at these sizes. This module is the kernel (it has the contract's members the rule reads),
    so the registry, which imports it, is not needed."""
    return instructions.widths_unsure(sys.modules[__name__], p)


def source(p: VectorizedParams) -> list[str]:
    unsure = _widths_unsure(p)
    return LISTING.render(
        BM=p.BM,
        BN=p.BN,
        BK=p.BK,
        TM=p.TM,
        TN=p.TN,
        threads=p.threads,
        cols=p.BN // p.TN,
        a4=p.BK // VECTOR,
        b4=p.BN // VECTOR,
        m_loads=_loads_note(p.TM, unsure),
        n_loads=_loads_note(p.TN, unsure),
    )


grid = tile_grid


def threads(p: VectorizedParams) -> int:
    return p.threads


def steps_per_block(p: VectorizedParams) -> int:
    return 2 + p.tiles * (4 + p.BK * (2 + p.TM))


regions = tile_regions


def focus(p: VectorizedParams, step: Step, thread: int) -> Focus:
    """The thread's patch of C, the As row / Bs row it copies into regM / regN (As is transposed),
    and at an outer-product step the row resIdxM of its patch being updated."""
    tx, ty = thread_xy(p, thread)
    owned = owned_cells(p, step.block, thread)
    if step.k is None:
        return Focus(owned)
    operands = {
        "As": tuple((step.k, ty * p.TM + i) for i in range(p.TM)),
        "Bs": tuple((step.k, tx * p.TN + j) for j in range(p.TN)),
    }
    current = {}
    if step.inner:
        (i,) = step.inner
        current = {"As": ((step.k, ty * p.TM + i),), "Bs": operands["Bs"]}
        row = tuple(cell for cell in owned if cell[0] == step.block[1] * p.BM + ty * p.TM + i)
        if row:
            current["C"] = row
    return Focus(owned, operands, current)


def _layout(p: VectorizedParams) -> dict[str, np.ndarray]:
    """Each thread's indices, as the listing's setup lines compute them, shaped (1, threads)."""
    tid = np.arange(p.threads)[None, :]
    a4, b4, cols = p.BK // VECTOR, p.BN // VECTOR, p.BN // p.TN
    return {
        "col": tid % cols,
        "row": tid // cols,
        "a_row": tid // a4,
        "a_col": tid % a4 * VECTOR,
        "b_row": tid // b4,
        "b_col": tid % b4 * VECTOR,
    }


def read_pattern(first: np.ndarray, length: int) -> tuple[np.ndarray, int]:
    """(first word of each instruction per lane, width) of a thread reading `length` consecutive
    floats from `first` on: one row per LDS.128 (or per LDS.32)."""
    width = read_width(length)
    return first + np.arange(0, length, width)[:, None], width


def block_steps(p: VectorizedParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step (each row of the outer product is a step)."""
    n, at = p.threads, _layout(p)
    col, row = at["col"][0], at["row"][0]
    As = np.full((p.BK, p.BM), np.nan, dtype=np.float32)
    Bs = np.full((p.BK, p.BN), np.nan, dtype=np.float32)
    results = np.zeros((n, p.TM, p.TN), dtype=np.float32)
    regM = np.zeros((n, p.TM), dtype=np.float32)
    regN = np.zeros((n, p.TN), dtype=np.float32)

    def state() -> dict:
        return {"registers": {"regM": regM, "regN": regN, "threadResults": results}, "shared": {"As": As, "Bs": Bs}}

    yield Step("setup", SETUP, **state())
    for tile in range(p.tiles):
        bkIdx = tile * p.BK
        accesses, As = transposed_copy(A, (by * p.BM, bkIdx), (at["a_row"], at["a_col"]), As)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = pattern_copy("Bs", B, "B", (bkIdx, bx * p.BN), (at["b_row"], at["b_col"]), Bs, VECTOR)
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())
        yield Step("barrier", SYNC_LOADED, tile=tile, barrier=True, **state())
        for dotIdx in range(p.BK):
            m_cols, width = read_pattern(row * p.TM, p.TM)
            access, values = shared_read("As", As, np.full_like(m_cols, dotIdx), m_cols, width)
            regM = values.reshape(-1, n, width).transpose(1, 0, 2).reshape(n, p.TM)
            yield Step("compute", LOAD_M, tile=tile, k=dotIdx, accesses=(access,), **state())
            n_cols, width = read_pattern(col * p.TN, p.TN)
            access, values = shared_read("Bs", Bs, np.full_like(n_cols, dotIdx), n_cols, width)
            regN = values.reshape(-1, n, width).transpose(1, 0, 2).reshape(n, p.TN)
            yield Step("compute", LOAD_N, tile=tile, k=dotIdx, accesses=(access,), **state())
            for i in range(p.TM):
                results = results.copy()
                results[:, i, :] += regM[:, i, None] * regN
                yield Step(
                    "compute",
                    FMA,
                    tile=tile,
                    k=dotIdx,
                    inner=(i,),
                    fma=n * p.TN,
                    register_reads=2 * n * p.TN,
                    **state(),
                )
        yield Step("barrier", SYNC_DONE, tile=tile, barrier=True, **state())

    # One float4 store instruction per (resIdxM, resIdxN / 4), in the listing's loop order.
    quads = p.TN // VECTOR
    rows = by * p.BM + row[None, :] * p.TM + np.repeat(np.arange(p.TM), quads)[:, None]
    cols = bx * p.BN + col[None, :] * p.TN + np.tile(np.arange(0, p.TN, VECTOR), p.TM)[:, None]
    values = results.reshape(n, p.TM * quads, VECTOR).transpose(1, 0, 2)
    store = guarded_store("C", (p.M, p.N), rows, cols, values, VECTOR)
    yield Step("store", STORE, accesses=(store,), **state())


@lru_cache(maxsize=64)
def shared_costs_per_tile(p: VectorizedParams) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one bkIdx step: the transposed As stores, the
    float4 Bs stores and BK rounds of regM/regN reads."""
    at = _layout(p)
    accesses = [((at["a_col"] + j) * p.BM + at["a_row"], 1) for j in range(VECTOR)]
    accesses.append((at["b_row"] * p.BN + at["b_col"], VECTOR))
    m_cols, m_width = read_pattern(at["row"][0] * p.TM, p.TM)
    n_cols, n_width = read_pattern(at["col"][0] * p.TN, p.TN)
    reads = [("As", m_cols, m_width, p.BM), ("Bs", n_cols, n_width, p.BN)]
    found = [banks.costs(words, width) for words, width in accesses] + round_read_costs(p.BK, p.TM * p.TN, reads)
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def counters_for(p: VectorizedParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    n, tiles, at = p.threads, p.tiles, _layout(p)
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    fma = blocks * n * tiles * p.BK * p.TM * p.TN
    k_origins = np.arange(tiles) * p.BK
    a, b = (at["a_row"], at["a_col"]), (at["b_row"], at["b_col"])
    sectors = tile_load_sectors(*a, p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs), VECTOR)
    sectors += tile_load_sectors(*b, p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys), VECTOR)
    extra, waves = shared_costs_per_tile(p)
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * n * tiles * p.BK * (p.TM + p.TN),
        shared_stores=blocks * tiles * p.BK * (p.BM + p.BN),
        register_reads=2 * fma,
        fma=fma,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * tiles * extra,
        shared_wavefronts=blocks * tiles * waves,
    )
