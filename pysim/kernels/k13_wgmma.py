"""Kernel 13: SGEMM on Hopper, TMA + wgmma (TileLab's third rung past siboehm, sm_90a only).

Changes from the TF32 mma kernel (k12): nobody in the block copies tiles any more, and nobody loads fragments.
One producer thread issues a TMA copy (`cp.async.bulk.tensor`) per tile of A and of B: the tensor memory
accelerator moves the whole box from global to shared memory, writes zeros where the box leaves the matrix,
and lays it out with the 128-byte swizzle (pysim/core/swizzle.py). The copies report to an mbarrier: the
producer announces how many bytes will land (`mbarrier.arrive.expect_tx`), and the barrier's phase completes
when they have. The consumer warpgroups (128 threads each) wait on that barrier, then issue `wgmma.mma_async`,
one 64×BN×8 multiply-add per instruction for the whole warpgroup, its A and B read straight from shared memory
through two 64-bit descriptors; the accumulators stay in registers (PTX ISA, wgmma's D fragment). When a
warpgroup is done with a stage it arrives on that stage's `empty` barrier, and the producer, waiting on it,
refills the stage: the pipeline's full/empty barriers replace __syncthreads and cp.async's groups
(warp specialization: the producer warpgroup only copies, the consumers only compute; `setmaxnreg` moves
registers from the producer to the consumers, whose accumulators need them, one block an SM).

TF32 wgmma reads its operands K-major only (PTX ISA, "wgmma.mma_async": the transpose immediates exist for
.f16/.bf16 alone), and a TMA copy cannot transpose, so the kernel takes B transposed (Bt, N×K) from the host,
as cuBLAS's "TN" case: Bs[n][k]. No cvt rounds the operands: as Triton's maintainers report (issue 4574;
not documented in the PTX ISA), the tensor core then uses the top 19 bits of each float (pysim/core/tf32.py,
`truncate`); Triton's answer (PR 9295) was to round first, as a production kernel would.

Steps: setup, the barriers' init and the block's one __syncthreads, then in one order the hardware may take
(the producer fills every stage first; each later refill follows the consumers' release of that stage):
the producer's wait/expect/copies, and per tile the consumers' wait, one step per k-step of 8 (every
consumer's wgmmas), the commit-and-wait of the wgmmas and the release; the stores. A thread is named
(thread in its warpgroup, warpgroup); warpgroup 0 is the producer.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..core import tf32
from ..core.listing import Listing
from ..core.trace import Access, Cell, Focus, Step
from ..core.warps import INACTIVE
from ..hardware.wgmma_params import PRODUCER_REGISTERS, WARPGROUP, WGMMA_K, WGMMA_M, WgmmaParams
from . import wgmma_layout as layout
from .plumbing import guarded_store, tile_grid, tile_regions

NAME = "wgmma"
TITLE = "Hopper: TMA + wgmma (warp-specialized)"
PARAMS = WgmmaParams

LISTING = Listing("""\
// Hopper, TMA + wgmma (sm_90a): BM={BM}, BN={BN}, BK={BK}, {S} stages, {consumers} consumer warpgroup(s) + 1 producer, {threads} threads, TF32
#include <cuda.h>  // CUtensorMap: the host encodes A's ({BK}×{BM} boxes) and Bt's ({BK}×{BN}) with CU_TENSOR_MAP_SWIZZLE_128B
__device__ __forceinline__ unsigned smem(const void *p) {{ return static_cast<unsigned>(__cvta_generic_to_shared(p)); }}
__device__ __forceinline__ void init(unsigned long long *bar, int count) {{  // a barrier that completes after `count` arrivals
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n" ::"r"(smem(bar)), "r"(count));
}}
__device__ __forceinline__ void waitPhase(unsigned long long *bar, int parity) {{  // until the barrier's phase of this parity completes
  asm volatile("{{\\n.reg .pred done;\\nWAIT:\\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\\n@!done bra WAIT;\\n}}\\n" ::"r"(smem(bar)), "r"(parity) : "memory");
}}
__device__ __forceinline__ void arrive(unsigned long long *bar) {{
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\\n" ::"r"(smem(bar)) : "memory");
}}
__device__ __forceinline__ void expectBytes(unsigned long long *bar, unsigned bytes) {{  // arrive, and say how many bytes will land
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\\n" ::"r"(smem(bar)), "r"(bytes) : "memory");
}}
__device__ __forceinline__ void tmaLoad(float *dst, const CUtensorMap *map, int col, int row, unsigned long long *bar) {{  // one thread, one box
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {{%2, %3}}], [%4];\\n"
               ::"r"(smem(dst)), "l"(map), "r"(col), "r"(row), "r"(smem(bar)) : "memory");  // outside the matrix: zeros
}}
__device__ __forceinline__ unsigned long long desc(const float *tile) {{  // K-major rows of 128 bytes, 128-byte swizzle (PTX ISA "Matrix Descriptor")
  return (smem(tile) & 0x3FFFF) >> 4 | 1ull << 16 | 64ull << 32 | 1ull << 62;  // start; LBO unused; SBO 1,024 B (8 rows); swizzle
}}
__device__ __forceinline__ void wgmma(float *d, unsigned long long a, unsigned long long b) {{  // d += a·b: m64n{BN}k8, the whole warpgroup
  asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\nwgmma.mma_async.sync.aligned.m64n{BN}k8.f32.tf32.tf32 {{{d_list}}}, %{a_at}, %{b_at}, p, 1, 1;\\n}}\\n"
               : {d_ops} : "l"(a), "l"(b));
}}
// launch: {threads} threads, {smem_bytes} bytes of dynamic shared memory (cudaFuncSetAttribute first); Bt is B transposed (N×K): wgmma reads TF32 K-major only
__global__ void __launch_bounds__({threads}, 1) sgemmWgmma(int M, int N, int K, const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapBt, float *C) {{
  extern __shared__ __align__(1024) float smem_[];  // the swizzle repeats every 1,024 bytes: tiles start on a multiple
  float *As = smem_, *Bs = smem_ + {S} * {BM} * {BK};  // As[stage][m][k], Bs[stage][n][k]: {BK} floats (128 bytes) a row, swizzled
  __shared__ unsigned long long full[{S}], empty[{S}];  // a stage has landed / a stage may be overwritten
  const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128, tiles = (K + {BK} - 1) / {BK};  @@setup
  if (threadIdx.x == 0)
    for (int s = 0; s < {S}; ++s) init(&full[s], 1), init(&empty[s], {consumers});  @@init
  asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");  // the barriers' first state, visible to the TMA unit
  __syncthreads();  @@sync_init
  if (warpgroup == 0) {{  // the producer: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 {producer_regs};\\n");  // it needs few registers: hand them to the consumers
    if (tid == 0)
      for (int tile = 0; tile < tiles; ++tile) {{
        const int stage = tile % {S};
        if (tile >= {S}) waitPhase(&empty[stage], (tile / {S} - 1) % 2);  // every consumer is done with this stage's last tile  @@wait_empty
        expectBytes(&full[stage], {stage_bytes});  // full[stage] completes when {stage_bytes} bytes have landed  @@expect
        tmaLoad(&As[stage * {BM} * {BK}], &mapA, tile * {BK}, blockIdx.y * {BM}, &full[stage]);  @@tma_a
        tmaLoad(&Bs[stage * {BN} * {BK}], &mapBt, tile * {BK}, blockIdx.x * {BN}, &full[stage]);  @@tma_b
      }}
  }} else {{  // a consumer warpgroup: {rows} rows of the block's tile, {MITER} m64 tile(s)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 {consumer_regs};\\n");  // room for {accumulators} accumulators
    const int top = (warpgroup - 1) * {rows}, warp = tid / 32, group = tid % 32 / 4, inGroup = tid % 4;
    float d[{MITER}][{half}] = {{}};  // the accumulators: each thread {half} per 64 rows (PTX ISA, wgmma's D fragment)
    for (int tile = 0; tile < tiles; ++tile) {{
      const int stage = tile % {S};
      waitPhase(&full[stage], tile / {S} % 2);  // this tile's bytes have landed  @@wait_full
      asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
      for (int k = 0; k < {BK}; k += 8)
        for (int mi = 0; mi < {MITER}; ++mi)
          wgmma(d[mi], desc(&As[(stage * {BM} + top + mi * 64) * {BK} + k]), desc(&Bs[stage * {BN} * {BK} + k]));  @@wgmma
      asm volatile("wgmma.commit_group.sync.aligned;\\nwgmma.wait_group.sync.aligned 0;\\n" ::: "memory");  // all of them done  @@wgmma_wait
      if (tid == 0) arrive(&empty[stage]);  // this warpgroup no longer reads the stage  @@release
    }}
    #pragma unroll  // d must stay in registers: rolled, these loops index it at run time, which puts it in local memory
    for (int mi = 0; mi < {MITER}; ++mi)
      #pragma unroll
      for (int j = 0; j < {half}; j += 2) {{  // d[j], d[j+1]: row group (+8 when j % 4 == 2), cols (j / 4)·8 + inGroup·2, +1
        const int r = blockIdx.y * {BM} + top + mi * 64 + warp * 16 + group + j % 4 / 2 * 8, c = blockIdx.x * {BN} + j / 4 * 8 + inGroup * 2;
        if (r < M && c < N) *reinterpret_cast<float2 *>(&C[r * N + c]) = make_float2(d[mi][j], d[mi][j + 1]);  @@store
      }}
  }}
}}""")
MARKERS = "setup init sync_init wait_empty expect tma_a tma_b wait_full wgmma wgmma_wait release store"
SETUP, INIT, SYNC_INIT, WAIT_EMPTY, EXPECT, TMA_A, TMA_B, WAIT_FULL, WGMMA, WGMMA_WAIT, RELEASE, STORE = (
    LISTING.at(marker) for marker in MARKERS.split()
)


def source(p: WgmmaParams) -> list[str]:
    half = p.BN // 2
    return LISTING.render(
        **{name: getattr(p, name) for name in ("BM", "BN", "BK", "consumers", "threads", "MITER")},
        S=p.stages,
        rows=p.rows_per_consumer,
        half=half,
        stage_bytes=p.stage_bytes,
        smem_bytes=f"{p.stages * p.stage_bytes:,}",  # the barriers are static
        d_list=", ".join(f"%{i}" for i in range(half)),
        d_ops=", ".join(f'"+f"(d[{i}])' for i in range(half)),
        producer_regs=PRODUCER_REGISTERS,
        consumer_regs=p.consumer_registers,
        accumulators=p.accumulators,
        a_at=half,
        b_at=half + 1,
    )


grid = tile_grid
regions = tile_regions
counters_for = layout.counters_for
tensor_flops = layout.tensor_flops


def threads(p: WgmmaParams) -> int:
    return p.threads


def thread_xy(p: WgmmaParams, thread: int) -> tuple[int, int]:
    """(thread in its warpgroup, warpgroup) of a linear thread id."""
    return thread % WARPGROUP, thread // WARPGROUP


def steps_per_block(p: WgmmaParams) -> int:
    """setup, init, __syncthreads; per tile the producer's expect and two copies (a wait before each refill),
    the consumers' wait, a step per k-step, the wgmmas' commit-and-wait and the release; the store."""
    return 4 + p.tiles * (6 + p.ksteps) + max(0, p.tiles - p.stages)


def _c_cells(p: WgmmaParams, block: tuple[int, int], thread: int) -> list[Cell]:
    """C[row][col] of each accumulator of a consumer thread, d[mi][0..BN/2) in order (outside C included)."""
    group, tid = divmod(thread, WARPGROUP)
    if group == 0:
        return []
    bx, by = block
    top = by * p.BM + (group - 1) * p.rows_per_consumer
    where = layout.d_map(p.BN)[tid]
    return [(top + mi * WGMMA_M + int(row), bx * p.BN + int(col)) for mi in range(p.MITER) for row, col in where]


def owned_cells(p: WgmmaParams, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
    return tuple((r, c) for r, c in _c_cells(p, block, thread) if r < p.M and c < p.N)


def owner(p: WgmmaParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and thread whose accumulator holds C[row][col] (wgmma's D map, inverted)."""
    r, c = row % p.BM, col % p.BN
    group = 1 + r // p.rows_per_consumer
    rr = r % p.rows_per_consumer % WGMMA_M
    where = layout.d_map(p.BN)
    tid = int(np.argwhere((where[..., 0] == rr) & (where[..., 1] == c))[0, 0])
    return (col // p.BN, row // p.BM), group * WARPGROUP + tid


def focus(p: WgmmaParams, step: Step, thread: int) -> Focus:
    """What `thread` stores, and the cells it touches at this statement."""
    current = {access.array: tuple(access.cells(thread)) for access in step.accesses}
    return Focus(owned_cells(p, step.block, thread), {}, current)


def _tma(
    p: WgmmaParams, name: str, matrix: np.ndarray, origin: tuple[int, int], height: int, stage: int, shared: np.ndarray
) -> tuple[tuple[Access, Access], np.ndarray]:
    """One box of `height` rows × BK floats of `matrix` at `origin`, copied by the TMA into stage `stage` of
    `shared` (rows of BK floats, swizzled): the global read of the elements inside the matrix and the shared
    write of the whole box (zeros outside), both made by thread 0's one instruction."""
    rows, cols = (a.ravel() for a in np.meshgrid(np.arange(height), np.arange(p.BK), indexing="ij"))
    g_rows, g_cols = origin[0] + rows, origin[1] + cols
    inside = (g_rows < matrix.shape[0]) & (g_cols < matrix.shape[1])
    values = np.where(
        inside, matrix[np.minimum(g_rows, matrix.shape[0] - 1), np.minimum(g_cols, matrix.shape[1] - 1)], 0
    )
    values = values.astype(np.float32)[:, None]
    load = Access(
        name,
        "global",
        "load",
        g_rows[inside][:, None],
        g_cols[inside][:, None],
        matrix.shape[1],
        values[inside],
        bulk=True,
    )
    s_rows, s_cols = layout.place(stage * height, rows, cols, p.BK)
    store = Access(
        f"{name[0]}s", "shared", "store", s_rows[:, None], s_cols[:, None], p.BK, values, ~inside[:, None], bulk=True
    )
    shared = shared.copy()
    store.write_into(shared)
    return (load, store), shared


def _operand(p: WgmmaParams, shared: np.ndarray, first_row: int, height: int, k: int) -> np.ndarray:
    """The height×8 slice (rows first_row.., cols k..k+7) a descriptor points at, read through the swizzle."""
    rows, cols = np.meshgrid(np.arange(height), k + np.arange(WGMMA_K), indexing="ij")
    s_rows, s_cols = layout.place(first_row, rows, cols, p.BK)
    return shared[s_rows, s_cols]


def block_steps(p: WgmmaParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block: the producer's TMA copies and the consumers' wgmmas, in the order the docstring gives."""
    As = np.full((p.stages * p.BM, p.BK), np.nan, dtype=np.float32)
    Bs = np.full((p.stages * p.BN, p.BK), np.nan, dtype=np.float32)
    Bt = B.T  # the host's transposed copy of B (wgmma reads TF32 K-major only)
    d = np.zeros((p.threads, p.MITER, p.BN // 2), dtype=np.float32)
    where = layout.d_map(p.BN)
    consumer_threads = p.consumers * WARPGROUP

    def state() -> dict:
        return {"registers": {"d": d.copy()}, "shared": {"As": As, "Bs": Bs}}

    def produce(tile: int) -> Iterator[Step]:
        nonlocal As, Bs
        stage = tile % p.stages
        if tile >= p.stages:
            yield Step("wait", WAIT_EMPTY, tile=tile, waits=1, **state())
        yield Step("load", EXPECT, tile=tile, **state())
        accesses, As = _tma(p, "A", A, (by * p.BM, tile * p.BK), p.BM, stage, As)
        yield Step("load", TMA_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = _tma(p, "Bt", Bt, (bx * p.BN, tile * p.BK), p.BN, stage, Bs)
        yield Step("load", TMA_B, tile=tile, accesses=accesses, **state())

    def consume(tile: int) -> Iterator[Step]:
        stage = tile % p.stages
        yield Step("wait", WAIT_FULL, tile=tile, waits=consumer_threads, **state())
        for k in range(0, p.BK, WGMMA_K):
            b = tf32.truncate(_operand(p, Bs, stage * p.BN, p.BN, k)).T
            for group in range(p.consumers):
                lanes = slice(WARPGROUP * (1 + group), WARPGROUP * (2 + group))
                for mi in range(p.MITER):
                    top = stage * p.BM + group * p.rows_per_consumer + mi * WGMMA_M
                    a = tf32.truncate(_operand(p, As, top, WGMMA_M, k))
                    tile_d = np.zeros((WGMMA_M, p.BN), dtype=np.float32)
                    tile_d[where[..., 0], where[..., 1]] = d[lanes, mi]
                    d[lanes, mi] = tf32.mma(tile_d, a, b)[where[..., 0], where[..., 1]]
            yield Step("compute", WGMMA, tile=tile, k=tile * p.BK + k, mma=p.consumers * p.MITER, **state())
        yield Step("compute", WGMMA_WAIT, tile=tile, **state())
        yield Step("barrier", RELEASE, tile=tile, **state())

    yield Step("setup", SETUP, **state())
    yield Step("setup", INIT, **state())
    yield Step("barrier", SYNC_INIT, barrier=True, **state())
    for tile in range(min(p.stages, p.tiles)):
        yield from produce(tile)
    for tile in range(p.tiles):
        yield from consume(tile)
        if tile + p.stages < p.tiles:
            yield from produce(tile + p.stages)
    yield Step("store", STORE, accesses=(_store(p, d, bx, by),), **state())


def _store(p: WgmmaParams, d: np.ndarray, bx: int, by: int) -> Access:
    """`if (r < M && c < N)` float2 stores of (d[j], d[j+1]) of every consumer thread, (MITER·BN/4, threads);
    the producer's threads store nothing."""
    pairs = p.MITER * p.BN // 4
    rows = np.full((pairs, p.threads), INACTIVE)
    cols = np.full((pairs, p.threads), INACTIVE)
    for thread in range(WARPGROUP, p.threads):
        cells = np.array(_c_cells(p, (bx, by), thread))[0::2]
        rows[:, thread], cols[:, thread] = cells[:, 0], cells[:, 1]
    values = d.reshape(p.threads, pairs, 2).transpose(1, 0, 2)
    return guarded_store("C", (p.M, p.N), rows, cols, values, 2)
