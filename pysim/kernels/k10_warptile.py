"""Kernel 10: warptiling (siboehm's kernel 10).

Written after siboehm/SGEMM_CUDA, src/kernels/10_kernel_warptiling.cuh at commit
60cba6f9b20a198116c76f18de8047f44df8c8b8 (his helpers loadFromGmem and processFromSmem
written inline), with his runner's A6000 sizes as defaults (128 threads, BM = BN = 128,
BK = 16, WM = WN = 64, WNITER = 4, TM = 8, TN = 4, so WMITER = 1).

Changes from the vectorized kernel: a third level of tiling between the block and the
thread. Each warp owns a WM×WN warp tile of the block tile, computed in WMITER×WNITER
subtiles of WSUBM×WSUBN; in each subtile the warp's 32 lanes own TM×TN patches side by
side. Per dotIdx a thread loads WMITER·TM values of As and WNITER·TN of Bs (128-bit
shared loads where TM, TN are multiples of 4) and performs WMITER·WNITER·TM·TN FMAs.
The float4 copies of A (transposed into As) and B loop over row offsets so any number
of threads fills the tiles.

What siboehm's kernel assumes: M, N, K multiples of BM, BN, BK (no bounds checks), the
runner's static_asserts (kept as parameter rules: see WarptileParams), full warps, and
16-byte aligned rows of A, B, C. TileLab requires K and N multiples of 4 (float4
alignment) and adds the guards: a float4 outside A or B writes zeros to shared memory,
one outside C is not stored. C = A·B (his alpha = 1, beta = 0).

Steps: one per statement; the warp-tile outer product is one step per subtile pair
(wSubRowIdx, wSubColIdx), its TM·TN FMAs at once (FMAs and register reads counted
exactly). A thread is named (lane, warp).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from functools import lru_cache

import numpy as np

from ..core import banks
from ..core.constants import WARP_SIZE
from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Cell, Focus, Step, cells
from ..hardware.blocktile_params import WarptileParams
from .k06_vectorized import VECTOR, read_pattern
from .plumbing import (
    guarded_store,
    pattern_copy,
    round_read_costs,
    shared_read,
    tile_grid,
    tile_regions,
    transposed_copy,
)

NAME = "warptile"
TITLE = "Warptiling"
PARAMS = WarptileParams

LISTING = Listing("""\
// warptiling: BM={BM}, BN={BN}, BK={BK}, WM={WM}, WN={WN}, WMITER={WMITER}, WNITER={WNITER}, TM={TM}, TN={TN}, {threads} threads
__global__ void sgemmWarptiling(int M, int N, int K, const float *A, const float *B, float *C) {{
  __shared__ float As[{BK} * {BM}];  // transposed: As[k][m]
  __shared__ float Bs[{BK} * {BN}];
  const int warpIdx = threadIdx.x / 32, warpCol = warpIdx % {warp_cols}, warpRow = warpIdx / {warp_cols};  @@setup
  const int threadColInWarp = threadIdx.x % 32 % {lane_cols}, threadRowInWarp = threadIdx.x % 32 / {lane_cols};  @@setup
  const int innerRowA = threadIdx.x / {a4}, innerColA = threadIdx.x % {a4};  // rowStrideA = {stride_a}  @@setup
  const int innerRowB = threadIdx.x / {b4}, innerColB = threadIdx.x % {b4};  // rowStrideB = {stride_b}  @@setup
  const float4 zero4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  @@setup
  float threadResults[{results}] = {{0.0f}}, regM[{WMITER} * {TM}] = {{0.0f}}, regN[{WNITER} * {TN}] = {{0.0f}};  @@setup
  for (int bkIdx = 0; bkIdx < K; bkIdx += {BK}) {{
    for (int offset = 0; offset + {stride_a} <= {BM}; offset += {stride_a}) {{  // loadFromGmem: A
      int rA = blockIdx.y * {BM} + innerRowA + offset, cA = bkIdx + innerColA * 4;
      float4 tmp = (rA < M && cA < K) ? reinterpret_cast<const float4 *>(&A[rA * K + cA])[0] : zero4;  @@load_a
      As[(innerColA * 4 + 0) * {BM} + innerRowA + offset] = tmp.x;  // A transposed while stored  @@load_a
      As[(innerColA * 4 + 1) * {BM} + innerRowA + offset] = tmp.y;  @@load_a
      As[(innerColA * 4 + 2) * {BM} + innerRowA + offset] = tmp.z;  @@load_a
      As[(innerColA * 4 + 3) * {BM} + innerRowA + offset] = tmp.w;  @@load_a
    }}
    for (int offset = 0; offset + {stride_b} <= {BK}; offset += {stride_b}) {{  // loadFromGmem: B
      int rB = bkIdx + innerRowB + offset, cB = blockIdx.x * {BN} + innerColB * 4;
      reinterpret_cast<float4 *>(&Bs[(innerRowB + offset) * {BN} + innerColB * 4])[0] =  @@load_b
          (rB < K && cB < N) ? reinterpret_cast<const float4 *>(&B[rB * N + cB])[0] : zero4;  @@load_b
    }}
    __syncthreads();  @@sync_loaded
    for (int dotIdx = 0; dotIdx < {BK}; ++dotIdx) {{  // processFromSmem
      for (int wSubRowIdx = 0; wSubRowIdx < {WMITER}; ++wSubRowIdx)
        for (int i = 0; i < {TM}; ++i)
          regM[wSubRowIdx * {TM} + i] = As[dotIdx * {BM} + warpRow * {WM} + wSubRowIdx * {WSUBM} + threadRowInWarp * {TM} + i];  @@load_m
      for (int wSubColIdx = 0; wSubColIdx < {WNITER}; ++wSubColIdx)
        for (int i = 0; i < {TN}; ++i)
          regN[wSubColIdx * {TN} + i] = Bs[dotIdx * {BN} + warpCol * {WN} + wSubColIdx * {WSUBN} + threadColInWarp * {TN} + i];  @@load_n
      for (int wSubRowIdx = 0; wSubRowIdx < {WMITER}; ++wSubRowIdx)
        for (int wSubColIdx = 0; wSubColIdx < {WNITER}; ++wSubColIdx)
          for (int resIdxM = 0; resIdxM < {TM}; ++resIdxM)
            for (int resIdxN = 0; resIdxN < {TN}; ++resIdxN)
              threadResults[(wSubRowIdx * {TM} + resIdxM) * {row_len} + wSubColIdx * {TN} + resIdxN] += regM[wSubRowIdx * {TM} + resIdxM] * regN[wSubColIdx * {TN} + resIdxN];  @@fma
    }}
    __syncthreads();  // stops fast threads overwriting As/Bs that slow threads still read  @@sync_done
  }}
  for (int wSubRowIdx = 0; wSubRowIdx < {WMITER}; ++wSubRowIdx)
    for (int wSubColIdx = 0; wSubColIdx < {WNITER}; ++wSubColIdx)
      for (int resIdxM = 0; resIdxM < {TM}; ++resIdxM)
        for (int resIdxN = 0; resIdxN < {TN}; resIdxN += 4) {{
          int r = blockIdx.y * {BM} + warpRow * {WM} + wSubRowIdx * {WSUBM} + threadRowInWarp * {TM} + resIdxM;
          int c = blockIdx.x * {BN} + warpCol * {WN} + wSubColIdx * {WSUBN} + threadColInWarp * {TN} + resIdxN;
          const float *res = &threadResults[(wSubRowIdx * {TM} + resIdxM) * {row_len} + wSubColIdx * {TN} + resIdxN];
          if (r < M && c < N) reinterpret_cast<float4 *>(&C[r * N + c])[0] = make_float4(res[0], res[1], res[2], res[3]);  @@store
        }}
}}""")
SETUP, LOAD_A, LOAD_B, SYNC_LOADED, LOAD_M, LOAD_N, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker)
    for marker in ("setup", "load_a", "load_b", "sync_loaded", "load_m", "load_n", "fma", "sync_done", "store")
)


def _strides(p: WarptileParams) -> tuple[int, int]:
    """(rowStrideA, rowStrideB): rows of A and of B one round of the float4 copy loops covers."""
    return p.threads * VECTOR // p.BK, p.threads // (p.BN // VECTOR)


def source(p: WarptileParams) -> list[str]:
    return LISTING.render(**listing_values(p))


def listing_values(p: WarptileParams) -> dict[str, int]:
    """The sizes the listing's slots name (pipelined warptiling's listing names them too)."""
    stride_a, stride_b = _strides(p)
    return dict(
        BM=p.BM,
        BN=p.BN,
        BK=p.BK,
        WM=p.WM,
        WN=p.WN,
        WMITER=p.WMITER,
        WNITER=p.WNITER,
        WSUBM=p.WSUBM,
        WSUBN=p.WSUBN,
        TM=p.TM,
        TN=p.TN,
        threads=p.threads,
        warp_cols=p.BN // p.WN,
        lane_cols=p.WSUBN // p.TN,
        a4=p.BK // VECTOR,
        b4=p.BN // VECTOR,
        stride_a=stride_a,
        stride_b=stride_b,
        results=p.WMITER * p.TM * p.WNITER * p.TN,
        row_len=p.WNITER * p.TN,
    )


grid = tile_grid


def threads(p: WarptileParams) -> int:
    return p.threads


def thread_xy(p: WarptileParams, thread: int) -> tuple[int, int]:
    """(lane, warp) of a linear thread id."""
    return thread % WARP_SIZE, thread // WARP_SIZE


def steps_per_block(p: WarptileParams) -> int:
    return 2 + p.tiles * (4 + p.BK * (2 + p.WMITER * p.WNITER))


@lru_cache(maxsize=16)  # asked at every step of a view; shared: read it, never change it
def _layout(p: WarptileParams) -> dict[str, np.ndarray]:
    """Each thread's indices, as the listing's setup lines compute them, shaped (threads,)."""
    tid = np.arange(p.threads)
    warp, lane = np.divmod(tid, WARP_SIZE)
    lane_cols = p.WSUBN // p.TN
    return {
        "warp_row": warp // (p.BN // p.WN),
        "warp_col": warp % (p.BN // p.WN),
        "lane_row": lane // lane_cols,
        "lane_col": lane % lane_cols,
    }


def _origins(p: WarptileParams) -> tuple[np.ndarray, np.ndarray]:
    """(top rows, left columns) of each thread's patch in every subtile, relative to the block tile:
    (threads, WMITER) and (threads, WNITER)."""
    at = _layout(p)
    top = (at["warp_row"] * p.WM + at["lane_row"] * p.TM)[:, None] + np.arange(p.WMITER) * p.WSUBM
    left = (at["warp_col"] * p.WN + at["lane_col"] * p.TN)[:, None] + np.arange(p.WNITER) * p.WSUBN
    return top, left


def owner(p: WarptileParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and linear thread id whose patches hold C[row][col]."""
    r, c = row % p.BM, col % p.BN
    warp = (r // p.WM) * (p.BN // p.WN) + c // p.WN
    lane = ((r % p.WM) % p.WSUBM // p.TM) * (p.WSUBN // p.TN) + (c % p.WN) % p.WSUBN // p.TN
    return (col // p.BN, row // p.BM), warp * WARP_SIZE + lane


def _patch_cells(
    p: WarptileParams, block: tuple[int, int], thread: int, subs: Sequence[tuple[int, ...]]
) -> tuple[Cell, ...]:
    top, left = _origins(p)
    found = []
    for i, j in subs:
        r0, c0 = block[1] * p.BM + top[thread, i], block[0] * p.BN + left[thread, j]
        found += cells(range(r0, min(r0 + p.TM, p.M)), range(c0, min(c0 + p.TN, p.N)))
    return tuple(sorted(found))


def owned_cells(p: WarptileParams, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
    """The cells of C in the thread's WMITER×WNITER patches of TM×TN, row by row."""
    return _patch_cells(p, block, thread, [(i, j) for i in range(p.WMITER) for j in range(p.WNITER)])


regions = tile_regions


def warp_regions(p: WarptileParams, step: Step, thread: int) -> dict[str, dict[str, tuple]]:
    """The followed thread's warp, per array (C, and the columns of As and Bs it reads):
    "warp" its warp tile's cells, "subtiles" the cells of each of its WMITER×WNITER subtiles
    (a tuple of cell tuples), "now" the subtile this outer-product step computes (else empty).
    The answer is cached and shared: read it, never change it."""
    at = _layout(p)
    return _warp_regions(p, step.block, int(at["warp_row"][thread]), int(at["warp_col"][thread]), step.inner)


@lru_cache(maxsize=256)  # a view asks at every step; the answer depends on the block, warp and subtile only
def _warp_regions(
    p: WarptileParams, block: tuple[int, int], warp_row: int, warp_col: int, inner: tuple[int, ...]
) -> dict[str, dict[str, tuple]]:
    top, left = warp_row * p.WM, warp_col * p.WN
    r0, c0 = block[1] * p.BM + top, block[0] * p.BN + left

    def rect(rows: range, cols: range, limit: tuple[int, int]) -> tuple[Cell, ...]:
        return tuple(cells(range(rows.start, min(rows.stop, limit[0])), range(cols.start, min(cols.stop, limit[1]))))

    def split(origin: int, size: int, count: int) -> list[range]:
        return [range(origin + i * size, origin + (i + 1) * size) for i in range(count)]

    m_subs, n_subs = split(r0, p.WSUBM, p.WMITER), split(c0, p.WSUBN, p.WNITER)
    a_subs, b_subs = split(top, p.WSUBM, p.WMITER), split(left, p.WSUBN, p.WNITER)
    k_rows = range(p.BK)
    found = {
        "C": {
            "warp": rect(range(r0, r0 + p.WM), range(c0, c0 + p.WN), (p.M, p.N)),
            "subtiles": tuple(rect(rows, cols, (p.M, p.N)) for rows in m_subs for cols in n_subs),
        },
        "As": {
            "warp": rect(k_rows, range(top, top + p.WM), (p.BK, p.BM)),
            "subtiles": tuple(rect(k_rows, cols, (p.BK, p.BM)) for cols in a_subs),
        },
        "Bs": {
            "warp": rect(k_rows, range(left, left + p.WN), (p.BK, p.BN)),
            "subtiles": tuple(rect(k_rows, cols, (p.BK, p.BN)) for cols in b_subs),
        },
    }
    for part in found.values():
        part["now"] = ()
    if inner:
        sub_m, sub_n = inner
        found["C"]["now"] = rect(m_subs[sub_m], n_subs[sub_n], (p.M, p.N))
        found["As"]["now"] = rect(k_rows, a_subs[sub_m], (p.BK, p.BM))
        found["Bs"]["now"] = rect(k_rows, b_subs[sub_n], (p.BK, p.BN))
    return found


def focus(p: WarptileParams, step: Step, thread: int) -> Focus:
    """The thread's patches of C, the As / Bs values of this dotIdx it copies into regM / regN
    (As is transposed), and at an outer-product step the subtile patch being updated."""
    owned = owned_cells(p, step.block, thread)
    if step.k is None:
        return Focus(owned)
    top, left = _origins(p)
    m_cols = [int(t) + i for t in top[thread] for i in range(p.TM)]
    n_cols = [int(c) + j for c in left[thread] for j in range(p.TN)]
    operands = {"As": tuple((step.k, c) for c in m_cols), "Bs": tuple((step.k, c) for c in n_cols)}
    current = {}
    if step.inner:
        sub_m, sub_n = step.inner
        current = {
            "As": tuple((step.k, int(top[thread, sub_m]) + i) for i in range(p.TM)),
            "Bs": tuple((step.k, int(left[thread, sub_n]) + j) for j in range(p.TN)),
        }
        patch = _patch_cells(p, step.block, thread, [step.inner])
        if patch:
            current["C"] = patch
    return Focus(owned, operands, current)


def copy_patterns(p: WarptileParams) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(rows, first cols) per round of the offset loops and per thread, for A's and B's float4 copies."""
    tid = np.arange(p.threads)[None, :]
    stride_a, stride_b = _strides(p)
    a_rows = tid // (p.BK // VECTOR) + np.arange(0, p.BM, stride_a)[:, None]
    b_rows = tid // (p.BN // VECTOR) + np.arange(0, p.BK, stride_b)[:, None]
    a_cols = np.broadcast_to(tid % (p.BK // VECTOR) * VECTOR, a_rows.shape)
    b_cols = np.broadcast_to(tid % (p.BN // VECTOR) * VECTOR, b_rows.shape)
    return (a_rows, a_cols), (b_rows, b_cols)


def _reads(p: WarptileParams) -> tuple[tuple[np.ndarray, int], tuple[np.ndarray, int]]:
    """(first column per instruction and thread, width) of the regM and regN loads of one dotIdx."""
    top, left = _origins(p)
    (m_cols, m_width), (n_cols, n_width) = read_pattern(top.T[:, None, :], p.TM), read_pattern(left.T[:, None, :], p.TN)
    return (m_cols.reshape(-1, p.threads), m_width), (n_cols.reshape(-1, p.threads), n_width)


def block_steps(p: WarptileParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step (each subtile pair of the outer product is a step)."""
    n = p.threads
    a_pattern, b_pattern = copy_patterns(p)
    As = np.full((p.BK, p.BM), np.nan, dtype=np.float32)
    Bs = np.full((p.BK, p.BN), np.nan, dtype=np.float32)
    registers = {
        "regM": np.zeros((n, p.WMITER * p.TM), dtype=np.float32),
        "regN": np.zeros((n, p.WNITER * p.TN), dtype=np.float32),
        "threadResults": np.zeros((n, p.WMITER * p.TM, p.WNITER * p.TN), dtype=np.float32),
    }

    def state() -> dict:
        return {"registers": dict(registers), "shared": {"As": As, "Bs": Bs}}

    yield Step("setup", SETUP, **state())
    for tile in range(p.tiles):
        bkIdx = tile * p.BK
        accesses, As = transposed_copy(A, (by * p.BM, bkIdx), a_pattern, As)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = pattern_copy("Bs", B, "B", (bkIdx, bx * p.BN), b_pattern, Bs, VECTOR)
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())
        yield Step("barrier", SYNC_LOADED, tile=tile, barrier=True, **state())
        registers = yield from outer_products(p, tile, 0, {"As": As, "Bs": Bs}, registers, (LOAD_M, LOAD_N, FMA))
        yield Step("barrier", SYNC_DONE, tile=tile, barrier=True, **state())
    yield Step("store", STORE, accesses=(_store(p, registers["threadResults"], bx, by),), **state())


def outer_products(
    p: WarptileParams,
    tile: int,
    row: int,
    shared: dict[str, np.ndarray],
    registers: dict[str, np.ndarray],
    lines: tuple[tuple[int, ...], ...],
) -> Generator[Step, None, dict[str, np.ndarray]]:
    """processFromSmem: BK rounds of dotIdx on the As[k][m] and Bs[k][n] tiles in `shared`, from their row `row`
    on (a pipeline's stage), one step per regM load, regN load and subtile outer product (`lines`: those three
    statements of the listing); returns the registers after them."""
    n = p.threads
    (m_cols, m_width), (n_cols, n_width) = _reads(p)
    load_m, load_n, fma_line = lines
    regs = dict(registers)
    for dotIdx in range(p.BK):
        access, values = shared_read("As", shared["As"], np.full_like(m_cols, row + dotIdx), m_cols, m_width)
        regs["regM"] = values.reshape(-1, n, m_width).transpose(1, 0, 2).reshape(n, -1)
        yield Step("compute", load_m, tile=tile, k=dotIdx, accesses=(access,), registers=dict(regs), shared=shared)
        access, values = shared_read("Bs", shared["Bs"], np.full_like(n_cols, row + dotIdx), n_cols, n_width)
        regs["regN"] = values.reshape(-1, n, n_width).transpose(1, 0, 2).reshape(n, -1)
        yield Step("compute", load_n, tile=tile, k=dotIdx, accesses=(access,), registers=dict(regs), shared=shared)
        for sub_m in range(p.WMITER):
            for sub_n in range(p.WNITER):
                rows, cols = slice(sub_m * p.TM, (sub_m + 1) * p.TM), slice(sub_n * p.TN, (sub_n + 1) * p.TN)
                results = regs["threadResults"].copy()
                results[:, rows, cols] += regs["regM"][:, rows, None] * regs["regN"][:, None, cols]
                regs["threadResults"] = results
                fma = n * p.TM * p.TN
                yield Step(
                    "compute",
                    fma_line,
                    tile=tile,
                    k=dotIdx,
                    inner=(sub_m, sub_n),
                    fma=fma,
                    register_reads=2 * fma,
                    registers=dict(regs),
                    shared=shared,
                )
    return regs


def _store(p: WarptileParams, results: np.ndarray, bx: int, by: int):
    """The float4 stores of C, one instruction per (wSubRowIdx, wSubColIdx, resIdxM, resIdxN / 4)."""
    top, left = _origins(p)
    sub_m, sub_n, i, q = np.meshgrid(
        np.arange(p.WMITER), np.arange(p.WNITER), np.arange(p.TM), np.arange(p.TN // VECTOR), indexing="ij"
    )
    order = [a.ravel()[:, None] for a in (sub_m, sub_n, i, q)]
    thread = np.arange(p.threads)[None, :]
    rows = by * p.BM + top[thread, order[0]] + order[2]
    cols = bx * p.BN + left[thread, order[1]] + order[3] * VECTOR
    first = (order[0] * p.TM + order[2]), (order[1] * p.TN + order[3] * VECTOR)
    values = results[thread[..., None], first[0][..., None], first[1][..., None] + np.arange(VECTOR)]
    return guarded_store("C", (p.M, p.N), rows, cols, values, VECTOR)


@lru_cache(maxsize=64)
def shared_costs_per_tile(p: WarptileParams) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one bkIdx step: the transposed As stores, the
    float4 Bs stores and BK rounds of regM/regN reads."""
    (a_rows, a_cols), (b_rows, b_cols) = copy_patterns(p)
    accesses = [((a_cols + j) * p.BM + a_rows, 1) for j in range(VECTOR)]
    accesses.append((b_rows * p.BN + b_cols, VECTOR))
    (m_cols, m_width), (n_cols, n_width) = _reads(p)
    reads = [("As", m_cols, m_width, p.BM), ("Bs", n_cols, n_width, p.BN)]
    ffma = p.WMITER * p.TM * p.WNITER * p.TN
    found = [banks.costs(words, width) for words, width in accesses] + round_read_costs(p.BK, ffma, reads)
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def counters_for(p: WarptileParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    n, tiles = p.threads, p.tiles
    blocks = len(bxs) * len(bys)
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    per_dot = p.WMITER * p.TM * p.WNITER * p.TN
    fma = blocks * n * tiles * p.BK * per_dot
    k_origins = np.arange(tiles) * p.BK
    a, b = copy_patterns(p)
    sectors = tile_load_sectors(*a, p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs), VECTOR)
    sectors += tile_load_sectors(*b, p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys), VECTOR)
    extra, waves = shared_costs_per_tile(p)
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * n * tiles * p.BK * (p.WMITER * p.TM + p.WNITER * p.TN),
        shared_stores=blocks * tiles * p.BK * (p.BM + p.BN),
        register_reads=2 * fma,
        fma=fma,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * tiles * extra,
        shared_wavefronts=blocks * tiles * waves,
    )
