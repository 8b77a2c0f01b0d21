"""Kernel 11: warptiling fed by cp.async, `stages` tiles in flight (TileLab's first rung past siboehm).

Changes from warptiling (k10): the copies of A and B into shared memory are `cp.async` (LDGSTS,
sm_80 and later): each lane asks for 16 bytes of global memory to land in shared memory, with no
register in between and without waiting for them. The block keeps `stages` buffers of As and Bs
(dynamic shared memory) and copies S-1 tiles ahead: while it computes tile t from stage t % S,
the copies of tiles t+1 .. t+S-1 are travelling. `cp.async.commit_group` closes the copies of
one tile into a group; `cp.async.wait_group S-1` waits until at most S-1 groups are still in
flight, that is, until tile t has landed. The cost it removes is the wait: in warptiling every
tile's global latency is paid in full before its first FMA; here it overlaps the FMAs of the
tiles before it.

A copy moves bytes as they lie, so a 16-byte copy cannot transpose A as warptiling did through
registers. Kept as A lies (As[m][k]), the TM values of a lane would be BK floats apart: 32-bit
reads whose lanes fall in one bank. So A is copied 4 bytes at a time (cp.async.ca, 4 per float4
of warptiling), each float to its transposed place As[k][m], and regM keeps its 128-bit reads;
B goes 16 bytes at a time (cp.async.cg). Out-of-range copies are zero-filled by the copy itself
(src-size 0). An empty group is committed when no tile is left to copy, so the count that
wait_group checks stays the same in every round (CUTLASS's multistage mainloop does the same).

Steps: warptiling's, plus one per commit and one per wait. A thread is named (lane, warp).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from ..core.constants import WORD_BYTES
from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step
from ..hardware.pipelined_params import PipelinedParams
from . import k10_warptile as warptile
from .k06_vectorized import VECTOR
from .plumbing import guarded_load, pattern_copy, tile_grid, tile_regions

NAME = "pipelined"
TITLE = "Pipelined warptiling (cp.async)"
PARAMS = PipelinedParams

LISTING = Listing("""\
// pipelined warptiling: BM={BM}, BN={BN}, BK={BK}, WM={WM}, WN={WN}, WMITER={WMITER}, WNITER={WNITER}, TM={TM}, TN={TN}, {threads} threads, {S} stages
__device__ __forceinline__ void cpAsync4(float *dst, const float *src, bool inside) {{  // 4 bytes: may scatter (transpose)
  const unsigned dstShared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\\n" ::"r"(dstShared), "l"(src), "r"(inside ? 4 : 0));  // src-size 0: zero-fill
}}
__device__ __forceinline__ void cpAsync16(float *dst, const float *src, bool inside) {{  // 16 bytes, global -> shared
  const unsigned dstShared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\n" ::"r"(dstShared), "l"(src), "r"(inside ? 16 : 0));
}}
// launch with {smem_bytes} bytes of dynamic shared memory (over 48 KB: cudaFuncSetAttribute first)
__global__ void sgemmPipelined(int M, int N, int K, const float *A, const float *B, float *C) {{
  extern __shared__ float smem[];
  float *As = smem;  // As[stage][k][m]: {S} stages of {BK}×{BM}, A transposed as in warptiling
  float *Bs = smem + {S} * {BK} * {BM};  // Bs[stage][k][n]: {S} stages of {BK}×{BN}
  const int warpIdx = threadIdx.x / 32, warpCol = warpIdx % {warp_cols}, warpRow = warpIdx / {warp_cols};  @@setup
  const int threadColInWarp = threadIdx.x % 32 % {lane_cols}, threadRowInWarp = threadIdx.x % 32 / {lane_cols};  @@setup
  const int innerRowA = threadIdx.x / {a4}, innerColA = threadIdx.x % {a4};  // rowStrideA = {stride_a}  @@setup
  const int innerRowB = threadIdx.x / {b4}, innerColB = threadIdx.x % {b4};  // rowStrideB = {stride_b}  @@setup
  const int tiles = (K + {BK} - 1) / {BK};  @@setup
  float threadResults[{results}] = {{0.0f}}, regM[{WMITER} * {TM}] = {{0.0f}}, regN[{WNITER} * {TN}] = {{0.0f}};  @@setup
  auto loadTile = [&](int tile, int stage) {{  // issue the copies of one tile; nobody waits for them here
    for (int offset = 0; offset + {stride_a} <= {BM}; offset += {stride_a}) {{
      const int rA = blockIdx.y * {BM} + innerRowA + offset, cA = tile * {BK} + innerColA * 4;
      const bool inA = rA < M && cA < K;
      for (int j = 0; j < 4; ++j)  // one float each: As[k][m] = A[m][k]
        cpAsync4(&As[(stage * {BK} + innerColA * 4 + j) * {BM} + innerRowA + offset], &A[inA ? rA * K + cA + j : 0], inA);  @@load_a
    }}
    for (int offset = 0; offset + {stride_b} <= {BK}; offset += {stride_b}) {{
      const int rB = tile * {BK} + innerRowB + offset, cB = blockIdx.x * {BN} + innerColB * 4;
      const bool inB = rB < K && cB < N;
      cpAsync16(&Bs[(stage * {BK} + innerRowB + offset) * {BN} + innerColB * 4], &B[inB ? rB * N + cB : 0], inB);  @@load_b
    }}
  }};
  for (int s = 0; s < {S} - 1; ++s) {{  // prologue: the first {ahead} tiles set off
    if (s < tiles) loadTile(s, s);
    asm volatile("cp.async.commit_group;\\n" ::);  // one group per tile (empty past the last)  @@commit_first
  }}
  for (int tile = 0; tile < tiles; ++tile) {{
    if (tile + {S} - 1 < tiles) loadTile(tile + {S} - 1, (tile + {S} - 1) % {S});  // into the stage computed last round
    asm volatile("cp.async.commit_group;\\n" ::);  @@commit
    asm volatile("cp.async.wait_group {ahead};\\n" ::);  // at most {ahead} groups in flight: this tile's has landed  @@wait
    __syncthreads();  // every thread's copies of this tile are visible to all  @@sync_loaded
    const float *AsNow = As + (tile % {S}) * {BK} * {BM}, *BsNow = Bs + (tile % {S}) * {BK} * {BN};
    for (int dotIdx = 0; dotIdx < {BK}; ++dotIdx) {{
      for (int wSubRowIdx = 0; wSubRowIdx < {WMITER}; ++wSubRowIdx)
        for (int i = 0; i < {TM}; ++i)
          regM[wSubRowIdx * {TM} + i] = AsNow[dotIdx * {BM} + warpRow * {WM} + wSubRowIdx * {WSUBM} + threadRowInWarp * {TM} + i];  @@load_m
      for (int wSubColIdx = 0; wSubColIdx < {WNITER}; ++wSubColIdx)
        for (int i = 0; i < {TN}; ++i)
          regN[wSubColIdx * {TN} + i] = BsNow[dotIdx * {BN} + warpCol * {WN} + wSubColIdx * {WSUBN} + threadColInWarp * {TN} + i];  @@load_n
      for (int wSubRowIdx = 0; wSubRowIdx < {WMITER}; ++wSubRowIdx)
        for (int wSubColIdx = 0; wSubColIdx < {WNITER}; ++wSubColIdx)
          for (int resIdxM = 0; resIdxM < {TM}; ++resIdxM)
            for (int resIdxN = 0; resIdxN < {TN}; ++resIdxN)
              threadResults[(wSubRowIdx * {TM} + resIdxM) * {row_len} + wSubColIdx * {TN} + resIdxN] += regM[wSubRowIdx * {TM} + resIdxM] * regN[wSubColIdx * {TN} + resIdxN];  @@fma
    }}
    __syncthreads();  // next round's copy overwrites this stage: every thread must be done reading it  @@sync_done
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
SETUP, LOAD_A, LOAD_B, COMMIT_FIRST, COMMIT, WAIT, SYNC_LOADED, LOAD_M, LOAD_N, FMA, SYNC_DONE, STORE = (
    LISTING.at(marker)
    for marker in (
        "setup",
        "load_a",
        "load_b",
        "commit_first",
        "commit",
        "wait",
        "sync_loaded",
        "load_m",
        "load_n",
        "fma",
        "sync_done",
        "store",
    )
)


def source(p: PipelinedParams) -> list[str]:
    extra = {"S": p.stages, "ahead": p.stages - 1, "smem_bytes": f"{p.shared_bytes:,}"}
    return LISTING.render(**warptile.listing_values(p), **extra)


# C is owned, threads are named and blocks are tiled exactly as in warptiling.
grid = tile_grid
threads = warptile.threads
thread_xy = warptile.thread_xy
owner = warptile.owner
owned_cells = warptile.owned_cells
regions = tile_regions


def steps_per_block(p: PipelinedParams) -> int:
    """setup, S-1 prologue commits, two copies per tile, and per tile a commit, a wait, two barriers and
    warptiling's BK·(2 + WMITER·WNITER) compute steps; the store."""
    return 2 + (p.stages - 1) + p.tiles * (2 + 4 + p.BK * (2 + p.WMITER * p.WNITER))


def stage_of(p: PipelinedParams, tile: int) -> int:
    """The buffer tile `tile` is copied into and computed from."""
    return tile % p.stages


def step_stage(p: PipelinedParams, step: Step) -> int:
    """The stage a load, wait, barrier or compute step copies into, waits for or computes from."""
    if step.tile is None:
        raise ValueError(f"step {step.index} ({step.phase}) names no tile")
    return stage_of(p, step.tile)


def _in_stage(p: PipelinedParams, tile: int, found: dict[str, tuple[Cell, ...]]) -> dict[str, tuple[Cell, ...]]:
    """Warptiling's As[k][m] and Bs[k][n] cells moved down to this tile's stage (stage·BK rows)."""
    shift = stage_of(p, tile) * p.BK
    return {
        array: tuple((k + shift, c) for k, c in cells_) if array in ("As", "Bs") else cells_
        for array, cells_ in found.items()
    }


def warp_regions(p: PipelinedParams, step: Step, thread: int) -> dict[str, dict[str, tuple]]:
    """Warptiling's warp regions (k10.warp_regions), As and Bs in the stage this step works on."""
    found = warptile.warp_regions(p, step, thread)
    if step.tile is None:
        return found
    moved = {}
    for array, parts in found.items():
        moved[array] = {
            "warp": _in_stage(p, step.tile, {array: parts["warp"]})[array],
            "now": _in_stage(p, step.tile, {array: parts["now"]})[array],
            "subtiles": tuple(_in_stage(p, step.tile, {array: sub})[array] for sub in parts["subtiles"]),
        }
    return moved


def focus(p: PipelinedParams, step: Step, thread: int) -> Focus:
    """Warptiling's focus (k10.focus) with As and Bs cells in this tile's stage."""
    found = warptile.focus(p, step, thread)
    if step.k is None or step.tile is None:
        return found
    return Focus(
        found.owned, _in_stage(p, step.tile, dict(found.operands)), _in_stage(p, step.tile, dict(found.current))
    )


def _copy_a(p: PipelinedParams, A: np.ndarray, origin: tuple[int, int], As: np.ndarray, stage: int):
    """The 4-byte cp.async copies of A: for each round of the offset loop and each j of the float4 warptiling
    loaded, every lane copies A[r][c + j] to As[stage·BK + c + j][r] (zero-filled outside A): one global load
    and one asynchronous shared store per (round, j), stacked as instructions."""
    rows, cols = warptile.copy_patterns(p)[0]
    parts = np.arange(VECTOR)[:, None, None]
    t_rows = np.broadcast_to(rows, (VECTOR, *rows.shape)).reshape(-1, p.threads)
    t_cols = (cols[None] + parts).reshape(-1, p.threads)
    load, values = guarded_load("A", A, origin[0] + t_rows, origin[1] + t_cols)
    store = Access(
        "As",
        "shared",
        "store",
        stage * p.BK + t_cols,
        t_rows,
        As.shape[1],
        values,
        zero_fill=~load.active,
        asynchronous=True,
    )
    As = As.copy()
    store.write_into(As)
    return (load, store), As


def block_steps(p: PipelinedParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step: the copies, commits and waits of the pipeline, and
    warptiling's outer products (k10.outer_products) on the stage that has landed."""
    n = p.threads
    b_pattern = warptile.copy_patterns(p)[1]
    As = np.full((p.stages * p.BK, p.BM), np.nan, dtype=np.float32)
    Bs = np.full((p.stages * p.BK, p.BN), np.nan, dtype=np.float32)
    registers = {
        "regM": np.zeros((n, p.WMITER * p.TM), dtype=np.float32),
        "regN": np.zeros((n, p.WNITER * p.TN), dtype=np.float32),
        "threadResults": np.zeros((n, p.WMITER * p.TM, p.WNITER * p.TN), dtype=np.float32),
    }

    def state() -> dict:
        return {"registers": dict(registers), "shared": {"As": As, "Bs": Bs}}

    def load(tile: int) -> Iterator[Step]:
        nonlocal As, Bs
        stage = stage_of(p, tile)
        accesses, As = _copy_a(p, A, (by * p.BM, tile * p.BK), As, stage)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = pattern_copy(
            "Bs", B, "B", (tile * p.BK, bx * p.BN), b_pattern, Bs, VECTOR, stage * p.BK, asynchronous=True
        )
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())

    def compute(tile: int) -> Iterator[Step]:
        nonlocal registers
        row, lines = stage_of(p, tile) * p.BK, (LOAD_M, LOAD_N, FMA)
        registers = yield from warptile.outer_products(p, tile, row, {"As": As, "Bs": Bs}, registers, lines)

    yield Step("setup", SETUP, **state())
    yield from rounds(p, LISTING, load, compute, state)
    yield Step("store", STORE, accesses=(warptile._store(p, registers["threadResults"], bx, by),), **state())


def rounds(
    p: Any,
    listing: Listing,
    load: Callable[[int], Iterator[Step]],
    compute: Callable[[int], Iterator[Step]],
    state: Callable[[], dict],
) -> Iterator[Step]:
    """The pipeline between setup and store, for any kernel whose listing marks the same statements (k12's
    too): S-1 tiles copied and committed ahead, then per round the copy of the tile S-1 ahead, its commit,
    the wait for this tile's group, a barrier, `compute(tile)` and the barrier before its stage is reused."""
    for s in range(p.stages - 1):
        if s < p.tiles:
            yield from load(s)
        yield Step("commit", listing.at("commit_first"), tile=s if s < p.tiles else None, **state())
    for tile in range(p.tiles):
        if tile + p.stages - 1 < p.tiles:
            yield from load(tile + p.stages - 1)
        yield Step("commit", listing.at("commit"), tile=tile, **state())
        yield Step("wait", listing.at("wait"), tile=tile, **state())
        yield Step("barrier", listing.at("sync_loaded"), tile=tile, barrier=True, **state())
        yield from compute(tile)
        yield Step("barrier", listing.at("sync_done"), tile=tile, barrier=True, **state())


def counters_for(p: PipelinedParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Warptiling's counts (the same global loads, shared loads, bank costs and FMAs: As is written and read
    where warptiling wrote and read it), except that no thread stores to shared memory (the tiles arrive as
    async-copy bytes, zero-fills included) and A comes in 4-byte copies, each its own load instruction."""
    same = warptile.counters_for(p, bxs, bys)
    k_origins = np.arange(p.tiles) * p.BK
    (a_rows, a_cols), b = warptile.copy_patterns(p)
    sectors = sum(
        tile_load_sectors(a_rows, a_cols + j, p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs)) for j in range(VECTOR)
    )
    sectors += tile_load_sectors(*b, p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys), VECTOR)
    return replace(same, shared_stores=0, async_copy_bytes=same.shared_stores * WORD_BYTES, global_sectors=int(sectors))
