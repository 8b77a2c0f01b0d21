"""Kernel 12: SGEMM on the tensor cores in TF32, one `mma.sync.m16n8k8` per 16×8×8 piece of a warp's tile
(TileLab's second rung past siboehm, sm_80 and later).

Changes from pipelined warptiling (k11): the FMAs of a warp's outer products become tensor-core
instructions. One mma.sync.m16n8k8 multiplies a 16×8 tile of A by an 8×8 tile of B into a 16×8 tile of C,
1,024 multiply-adds issued by the warp at once; the 32 lanes hold the tiles spread over their registers
(the fragments, pysim/core/fragments.py, as the PTX ISA's section 9.7.14.5.7 lays them out): 4 values of A,
2 of B and 4 of C per lane. The operands are TF32 (10 mantissa bits): each value read from shared memory is
rounded by cvt.rna.tf32.f32 first (pysim/core/tf32.py). split=3 is 3xTF32: each value is split into a
TF32 big part and a TF32 remainder, and three mmas recover float32's accuracy.

The tiles still come by cp.async into `stages` buffers, as in k11, now 16 bytes at a time for A too: A is
kept as it lies (As[m][k]), since a fragment reads A by rows. The fragment loads are 32-bit LDS whose 8
rows (A) or 4 rows (B) would fall in the same banks; the rows are padded (swizzle=0) or their 16-byte
chunks XOR-swizzled (swizzle=1, pysim/kernels/mma_layout.py).

Steps: a setup, per pipeline round k11's copies, commits, wait and barriers, and per k-step of 8 three steps
(A's fragments, B's fragments, the mmas); the stores. A thread is named (lane, warp). The counters count
no FMA (no FP32 core multiplies); `mma_instructions` counts the warp-wide tensor-core instructions.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..core import tf32
from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.counters import Counters
from ..core.fragments import A_MAP, B_MAP, C_MAP, MMA_K, MMA_M, MMA_N, gather, scatter
from ..core.listing import Listing
from ..core.trace import Access, Cell, Focus, Step
from ..core.warps import INACTIVE
from ..hardware.mma_params import MmaParams
from . import k11_pipelined as pipeline
from . import mma_layout as layout
from .plumbing import guarded_load, guarded_store, tile_grid, tile_regions

NAME = "mma"
TITLE = "TF32 tensor cores (mma.sync.m16n8k8)"
PARAMS = MmaParams

LISTING = Listing("""\
// TF32 tensor cores: BM={BM}, BN={BN}, BK={BK}, WM={WM}, WN={WN} ({MITER}×{NITER} mma tiles of 16×8 a warp), {threads} threads, {S} stages, {rows}, {arith}
__device__ __forceinline__ int swz(int w) {{ return {swizzle} ? w ^ (((w >> {swz_from}) & {swz_mask}) << {swz_base}) : w; }}  // {swz_what}
__device__ __forceinline__ void cpAsync16(float *dst, const float *src, bool inside) {{  // 16 bytes, global -> shared
  const unsigned dstShared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\n" ::"r"(dstShared), "l"(src), "r"(inside ? 16 : 0));  // src-size 0: zero-fill
}}
__device__ __forceinline__ unsigned tf32(float x) {{  // round to nearest, ties away from zero; low 13 bits 0
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\\n" : "=r"(r) : "f"(x));
  return r;
}}
__device__ __forceinline__ void mma1688(float *d, const unsigned *a, const unsigned *b) {{  // d += a·b, the whole warp
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{%0,%1,%2,%3}}, {{%4,%5,%6,%7}}, {{%8,%9}}, {{%0,%1,%2,%3}};\\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}}
__device__ __forceinline__ void mmaTf32(float *d, const float *a, const float *b) {{  // split=1: TF32
  const unsigned ta[4] = {{tf32(a[0]), tf32(a[1]), tf32(a[2]), tf32(a[3])}}, tb[2] = {{tf32(b[0]), tf32(b[1])}};
  mma1688(d, ta, tb);
}}
__device__ __forceinline__ void mma3xTf32(float *d, const float *a, const float *b) {{  // split=3: x = big + small
  unsigned bigA[4], smallA[4], bigB[2], smallB[2];
  for (int i = 0; i < 4; ++i) bigA[i] = tf32(a[i]), smallA[i] = tf32(a[i] - __uint_as_float(bigA[i]));
  for (int i = 0; i < 2; ++i) bigB[i] = tf32(b[i]), smallB[i] = tf32(b[i] - __uint_as_float(bigB[i]));
  mma1688(d, smallA, bigB);  // the small terms first, as CUTLASS's OpMultiplyAddFastF32
  mma1688(d, bigA, smallB);
  mma1688(d, bigA, bigB);
}}
// launch with {smem_bytes} bytes of dynamic shared memory (over 48 KB: cudaFuncSetAttribute first)
__global__ void sgemmMma(int M, int N, int K, const float *A, const float *B, float *C) {{
  extern __shared__ float smem[];
  float *As = smem;  // As[stage][m][k]: {S} stages of {BM} rows of {SA} words (A as it lies)
  float *Bs = smem + {S} * {BM} * {SA};  // Bs[stage][k][n]: {S} stages of {BK} rows of {SB} words
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, inGroup = lane % 4;  @@setup
  const int warpRow = warp / {warp_cols} * {WM}, warpCol = warp % {warp_cols} * {WN}, tiles = (K + {BK} - 1) / {BK};  @@setup
  float acc[{MITER}][{NITER}][4] = {{}}, a[{MITER}][4], b[{NITER}][2];  @@setup
  auto loadTile = [&](int tile, int stage) {{  // issue the copies of one tile; nobody waits for them here
    for (int i = threadIdx.x; i < {BM} * {BK} / 4; i += {threads}) {{
      const int r = i / {a4}, c = i % {a4} * 4, gr = blockIdx.y * {BM} + r, gc = tile * {BK} + c;
      cpAsync16(&As[swz((stage * {BM} + r) * {SA} + c)], &A[gr < M && gc < K ? gr * K + gc : 0], gr < M && gc < K);  @@load_a
    }}
    for (int i = threadIdx.x; i < {BK} * {BN} / 4; i += {threads}) {{
      const int r = i / {b4}, c = i % {b4} * 4, gr = tile * {BK} + r, gc = blockIdx.x * {BN} + c;
      cpAsync16(&Bs[swz((stage * {BK} + r) * {SB} + c)], &B[gr < K && gc < N ? gr * N + gc : 0], gr < K && gc < N);  @@load_b
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
    __syncthreads();  @@sync_loaded
    const int stage = tile % {S};
    for (int kk = 0; kk < {BK}; kk += 8) {{
      for (int mi = 0; mi < {MITER}; ++mi)
        for (int i = 0; i < 4; ++i)  // a0..a3: rows group, group+8; cols inGroup, inGroup+4 (PTX ISA 9.7.14.5.7)
          a[mi][i] = As[swz((stage * {BM} + warpRow + mi * 16 + group + i % 2 * 8) * {SA} + kk + inGroup + i / 2 * 4)];  @@frag_a
      for (int ni = 0; ni < {NITER}; ++ni)
        for (int i = 0; i < 2; ++i)  // b0, b1: rows inGroup, inGroup+4; col group
          b[ni][i] = Bs[swz((stage * {BK} + kk + inGroup + i * 4) * {SB} + warpCol + ni * 8 + group)];  @@frag_b
      for (int mi = 0; mi < {MITER}; ++mi)
        for (int ni = 0; ni < {NITER}; ++ni)
          {call}(acc[mi][ni], a[mi], b[ni]);  @@mma
    }}
    __syncthreads();  // next round's copy overwrites this stage: every warp must be done reading it  @@sync_done
  }}
  for (int mi = 0; mi < {MITER}; ++mi)
    for (int ni = 0; ni < {NITER}; ++ni)
      for (int h = 0; h < 2; ++h) {{  // c0, c1 in row group; c2, c3 in row group+8; cols inGroup·2, +1
        const int r = blockIdx.y * {BM} + warpRow + mi * 16 + group + h * 8, c = blockIdx.x * {BN} + warpCol + ni * 8 + inGroup * 2;
        if (r < M && c < N) *reinterpret_cast<float2 *>(&C[r * N + c]) = make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);  @@store
      }}
}}""")
MARKERS = "setup load_a load_b commit_first commit wait sync_loaded frag_a frag_b mma sync_done store"
SETUP, LOAD_A, LOAD_B, COMMIT_FIRST, COMMIT, WAIT, SYNC_LOADED, FRAG_A, FRAG_B, MMA, SYNC_DONE, STORE = (
    LISTING.at(marker) for marker in MARKERS.split()
)


def _swizzle_comment(p: MmaParams) -> str:
    """What swz does, in bytes: "16-byte chunk XOR (its 128-byte line mod 8)" at the defaults (Swizzle<3, 2, 3>)."""
    xor = p.xor
    return f"{WORD_BYTES * xor.chunk}-byte chunk XOR (its {WORD_BYTES * xor.line}-byte line mod {2**xor.bits})"


def source(p: MmaParams) -> list[str]:
    return LISTING.render(
        **{name: getattr(p, name) for name in ("BM", "BN", "BK", "WM", "WN", "MITER", "NITER", "threads")},
        S=p.stages,
        ahead=p.stages - 1,
        SA=p.a_stride,
        SB=p.b_stride,
        a4=p.BK // 4,
        b4=p.BN // 4,
        warp_cols=p.warp_cols,
        swizzle=p.swizzle,
        swz_from=p.xor.base + p.xor.shift,
        swz_mask=(1 << p.xor.bits) - 1,
        swz_base=p.xor.base,
        swz_what=_swizzle_comment(p),
        rows="XOR-swizzled rows" if p.swizzle else "padded rows",
        arith="3xTF32" if p.split == 3 else "TF32",
        call="mma3xTf32" if p.split == 3 else "mmaTf32",
        smem_bytes=f"{p.shared_bytes:,}",
    )


grid = tile_grid
regions = tile_regions
counters_for = layout.counters_for


def tensor_flops(p: MmaParams, counters: Counters) -> int:
    return layout.tensor_flops(counters)


def threads(p: MmaParams) -> int:
    return p.threads


def thread_xy(p: MmaParams, thread: int) -> tuple[int, int]:
    """(lane, warp) of a linear thread id."""
    return thread % WARP_SIZE, thread // WARP_SIZE


def steps_per_block(p: MmaParams) -> int:
    """setup, S-1 prologue commits, two copies per tile, and per tile a commit, a wait, two barriers and
    three steps per k-step of 8; the store."""
    return 2 + (p.stages - 1) + p.tiles * (2 + 4 + 3 * p.ksteps)


def _c_cells(p: MmaParams, block: tuple[int, int], thread: int) -> list[Cell]:
    """C[row][col] of each accumulator of `thread`, mi, ni, c0..c3 in order (outside C included)."""
    tops, lefts = layout.warp_origin(p)
    top, left = int(tops[thread]), int(lefts[thread])  # cells are Python ints: the page keys JS Maps by them
    lane = thread % WARP_SIZE
    bx, by = block
    return [
        (
            by * p.BM + top + mi * MMA_M + int(C_MAP[lane, i, 0]),
            bx * p.BN + left + ni * MMA_N + int(C_MAP[lane, i, 1]),
        )
        for mi in range(p.MITER)
        for ni in range(p.NITER)
        for i in range(4)
    ]


def owned_cells(p: MmaParams, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
    return tuple((r, c) for r, c in _c_cells(p, block, thread) if r < p.M and c < p.N)


def owner(p: MmaParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and thread whose accumulator holds C[row][col] (the C fragment map, inverted)."""
    r, c = row % p.BM, col % p.BN
    warp = r // p.WM * p.warp_cols + c // p.WN
    rr, cc = r % p.WM % MMA_M, c % p.WN % MMA_N
    lane = int(np.argwhere((C_MAP[..., 0] == rr) & (C_MAP[..., 1] == cc))[0, 0])
    return (col // p.BN, row // p.BM), warp * WARP_SIZE + lane


def focus(p: MmaParams, step: Step, thread: int) -> Focus:
    """What `thread` stores, and the cells its lane touches at this statement."""
    current = {access.array: tuple(access.cells(thread)) for access in step.accesses}
    return Focus(owned_cells(p, step.block, thread), {}, current)


def _copy(p: MmaParams, name: str, matrix: np.ndarray, origin: tuple[int, int], stage: int, shared: np.ndarray):
    """One tile of A or B copied by cp.async, 16 bytes a lane a round: the global load (zero outside the
    matrix) and the asynchronous shared store at its padded or swizzled place."""
    height, width = (p.BM, p.BK) if name == "A" else (p.BK, p.BN)
    rows, cols = layout.copy_rounds(p, height, width)
    live = rows != INACTIVE
    g_rows, g_cols = np.where(live, origin[0] + rows, INACTIVE), np.where(live, origin[1] + cols, INACTIVE)
    load, values = guarded_load(name, matrix, g_rows, g_cols, 4)
    words = (layout.a_words if name == "A" else layout.b_words)(p, stage, rows, cols)
    s_rows, s_cols = layout.place(p, words, shared.shape[1])
    store = Access(f"{name}s", "shared", "store", s_rows, s_cols, shared.shape[1], values, live & ~load.active, 4, True)
    shared = shared.copy()
    store.write_into(shared)
    return (load, store), shared


def _mma(p: MmaParams, a: np.ndarray, b: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """Every warp's MITER×NITER mmas of one k-step, its tiles assembled from its lanes' registers by the
    fragment maps and handed back the same way."""
    warps = p.warps
    a_tiles = scatter(a.reshape(warps, WARP_SIZE, p.MITER, 4).transpose(0, 2, 1, 3), A_MAP, (MMA_M, MMA_K))
    b_tiles = scatter(b.reshape(warps, WARP_SIZE, p.NITER, 2).transpose(0, 2, 1, 3), B_MAP, (MMA_K, MMA_N))
    c_lanes = acc.reshape(warps, WARP_SIZE, p.MITER, p.NITER, 4).transpose(0, 2, 3, 1, 4)
    c_tiles = scatter(c_lanes, C_MAP, (MMA_M, MMA_N))
    for x, y in tf32.terms(a_tiles, b_tiles, p.split):
        c_tiles = tf32.mma(c_tiles, x[:, :, None], y[:, None])
    return gather(c_tiles, C_MAP).transpose(0, 3, 1, 2, 4).reshape(acc.shape)


def block_steps(p: MmaParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    """Run one block, one CUDA statement per step: k11's pipeline, and per k-step the fragment loads and
    the warps' mmas on the stage that has landed."""
    n = p.threads
    As = np.full((p.stages * p.BM, p.a_stride), np.nan, dtype=np.float32)
    Bs = np.full((p.stages * p.BK, p.b_stride), np.nan, dtype=np.float32)
    registers = {
        "a": np.zeros((n, p.MITER, 4), dtype=np.float32),
        "b": np.zeros((n, p.NITER, 2), dtype=np.float32),
        "acc": np.zeros((n, p.MITER, p.NITER, 4), dtype=np.float32),
    }
    a_rows, a_cols, b_rows, b_cols = layout.fragment_reads(p)

    def state() -> dict:
        return {"registers": dict(registers), "shared": {"As": As, "Bs": Bs}}

    def load(tile: int) -> Iterator[Step]:
        nonlocal As, Bs
        stage = tile % p.stages
        accesses, As = _copy(p, "A", A, (by * p.BM, tile * p.BK), stage, As)
        yield Step("load", LOAD_A, tile=tile, accesses=accesses, **state())
        accesses, Bs = _copy(p, "B", B, (tile * p.BK, bx * p.BN), stage, Bs)
        yield Step("load", LOAD_B, tile=tile, accesses=accesses, **state())

    def read(array: str, shared: np.ndarray, words: np.ndarray) -> tuple[Access, np.ndarray]:
        rows, cols = layout.place(p, words, shared.shape[1])
        return Access(array, "shared", "load", rows, cols, shared.shape[1], shared[rows, cols]), shared[rows, cols]

    def compute(tile: int) -> Iterator[Step]:
        stage = tile % p.stages
        for k in range(0, p.BK, MMA_K):
            access, values = read("As", As, layout.a_words(p, stage, a_rows, a_cols + k))
            registers["a"] = values.T.reshape(n, p.MITER, 4)
            yield Step("compute", FRAG_A, tile=tile, k=tile * p.BK + k, accesses=(access,), **state())
            access, values = read("Bs", Bs, layout.b_words(p, stage, b_rows + k, b_cols))
            registers["b"] = values.T.reshape(n, p.NITER, 2)
            yield Step("compute", FRAG_B, tile=tile, k=tile * p.BK + k, accesses=(access,), **state())
            registers["acc"] = _mma(p, registers["a"], registers["b"], registers["acc"])
            mmas = p.warps * p.MITER * p.NITER * p.split
            yield Step("compute", MMA, tile=tile, k=tile * p.BK + k, mma=mmas, **state())

    yield Step("setup", SETUP, **state())
    yield from pipeline.rounds(p, LISTING, load, compute, state)
    yield Step("store", STORE, accesses=(_store(p, registers["acc"], bx, by),), **state())


def _store(p: MmaParams, acc: np.ndarray, bx: int, by: int) -> Access:
    """`if (r < M && c < N)` float2 stores of (c0, c1) and (c2, c3) of every mma tile, (MITER·NITER·2, threads)."""
    cells = np.array([_c_cells(p, (bx, by), t) for t in range(p.threads)])  # (threads, MITER·NITER·4, 2)
    firsts = cells[:, 0::2].transpose(1, 0, 2)
    values = acc.reshape(p.threads, -1, 2).transpose(1, 0, 2)
    return guarded_store("C", (p.M, p.N), firsts[..., 0], firsts[..., 1], values, 2)
