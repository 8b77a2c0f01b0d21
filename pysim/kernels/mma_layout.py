"""Where the TF32 kernel (k12_mma.py) puts things and who touches what: the padded or XOR-swizzled shared
rows, the cp.async copy rounds, the fragment reads of each warp, and the closed-form counters built on them.

The swizzle is the editor's Swizzle<B, M, S> on the word index within As or Bs (pysim/core/swizzle.py):
w' = w ^ (((w >> (M + S)) & (2^B - 1)) << M). Its defaults are CUTLASS's Swizzle<3, 2, 3> on float words,
the 128-byte swizzle the Hopper kernel's TMA and wgmma use: each 16-byte chunk of a 128-byte line of shared
memory (32 banks × 4 bytes) goes to chunk XOR (line mod 8). Rows that straddle the same banks in one read
land in different chunks, without the padding's extra bytes. A word never leaves its aligned block of 2^(M+B)
words, and a swizzled row is whole blocks (MmaParams refuses others), so the XOR permutes each row, and so
each stage, within itself.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core import banks
from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.counters import Counters
from ..core.fragments import A_MAP, B_MAP, MMA_K, MMA_M, MMA_N
from ..core.sectors import tile_load_sectors
from ..core.warps import INACTIVE
from ..hardware.mma_params import COPY_FLOATS, MmaParams

# Index arrays are int64 where they are made: the speed model adds them to byte bases past 2**31, and NumPy's
# default integer is int32 in Pyodide (wasm), where such a sum overflows.


def place(p: MmaParams, words: np.ndarray, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) in a shared array of rows `stride` words long, of logical words row·stride + col."""
    physical = physical_words(p, words)
    rows, cols = np.divmod(physical, stride)
    idle = words == INACTIVE
    return np.where(idle, INACTIVE, rows), np.where(idle, INACTIVE, cols)


@lru_cache(maxsize=16)
def copy_rounds(p: MmaParams, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """`for (i = threadIdx.x; i < height·width/4; i += threads)`: (row, first col) of the 16-byte chunk each
    lane copies in each round, (rounds, threads), INACTIVE past the tile's last chunk."""
    chunks, per_row = height * width // COPY_FLOATS, width // COPY_FLOATS
    i = (
        np.arange(-(-chunks // p.threads), dtype=np.int64)[:, None] * p.threads
        + np.arange(p.threads, dtype=np.int64)[None, :]
    )
    live = i < chunks
    return np.where(live, i // per_row, INACTIVE), np.where(live, i % per_row * COPY_FLOATS, INACTIVE)


def warp_origin(p: MmaParams) -> tuple[np.ndarray, np.ndarray]:
    """(warpRow, warpCol) of each thread's warp inside the block tile, (threads,)."""
    warp = np.arange(p.threads, dtype=np.int64) // WARP_SIZE
    return warp // p.warp_cols * p.WM, warp % p.warp_cols * p.WN


@lru_cache(maxsize=16)
def fragment_reads(p: MmaParams) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Logical (row, col) inside one stage's As (m, k) and Bs (k, n) of every fragment load of k-step 0,
    (instructions, threads): MITER·4 loads of A (a0..a3 per mma row), NITER·2 of B (b0, b1)."""
    top, left = warp_origin(p)
    lane = np.arange(p.threads) % WARP_SIZE
    a_rows = top[None, None] + np.arange(p.MITER, dtype=np.int64)[:, None, None] * MMA_M + A_MAP[lane, :, 0].T[None]
    a_cols = np.broadcast_to(A_MAP[lane, :, 1].T[None], a_rows.shape)
    b_rows = np.broadcast_to(B_MAP[lane, :, 0].T[None], (p.NITER, 2, p.threads))
    b_cols = left[None, None] + np.arange(p.NITER, dtype=np.int64)[:, None, None] * MMA_N + B_MAP[lane, :, 1].T[None]
    shape_a, shape_b = (p.MITER * 4, p.threads), (p.NITER * 2, p.threads)
    return a_rows.reshape(shape_a), a_cols.reshape(shape_a), b_rows.reshape(shape_b), b_cols.reshape(shape_b)


def a_words(p: MmaParams, stage: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Logical words of As[stage][rows][cols] (INACTIVE stays)."""
    words = (stage * p.BM + rows) * p.a_stride + cols
    return np.where(rows == INACTIVE, INACTIVE, words)


def b_words(p: MmaParams, stage: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    words = (stage * p.BK + rows) * p.b_stride + cols
    return np.where(rows == INACTIVE, INACTIVE, words)


def physical_words(p: MmaParams, words: np.ndarray) -> np.ndarray:
    """Where the listing's `swz` puts logical words of As or Bs: moved by the swizzle, or where they are."""
    return p.xor.words(words) if p.swizzle else words


def tile_accesses(p: MmaParams, stage: int) -> tuple[tuple[str, np.ndarray, int], ...]:
    """The shared accesses of one tile computed from `stage`, by kind: its cp.async chunks landing (16 bytes a
    lane) and BK/8 k-steps of fragment loads (4 bytes a lane), each as (kind, physical words (instructions,
    threads), words a lane)."""
    found = [
        ("copy A", a_words(p, stage, *copy_rounds(p, p.BM, p.BK)), COPY_FLOATS),
        ("copy B", b_words(p, stage, *copy_rounds(p, p.BK, p.BN)), COPY_FLOATS),
    ]
    a_rows, a_cols, b_rows, b_cols = fragment_reads(p)
    for k in range(0, p.BK, MMA_K):
        found += [("fragments A", a_words(p, stage, a_rows, a_cols + k), 1)]
        found += [("fragments B", b_words(p, stage, b_rows + k, b_cols), 1)]
    return tuple((kind, physical_words(p, words), width) for kind, words, width in found)


@lru_cache(maxsize=16)
def shared_costs(p: MmaParams, stage: int) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one tile computed from `stage` (every access of tile_accesses)."""
    found = [banks.costs(words, width) for _, words, width in tile_accesses(p, stage)]
    return sum(extra for extra, _ in found), sum(waves for _, waves in found)


def counters_for(p: MmaParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    blocks, tiles = len(bxs) * len(bys), p.tiles
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    k_origins = np.arange(tiles, dtype=np.int64) * p.BK
    sectors = tile_load_sectors(*copy_rounds(p, p.BM, p.BK), p.K, bys * p.BM, k_origins, (p.M, p.K), len(bxs), 4)
    sectors += tile_load_sectors(*copy_rounds(p, p.BK, p.BN), p.N, k_origins, bxs * p.BN, (p.K, p.N), len(bys), 4)
    costs = [shared_costs(p, tile % p.stages) for tile in range(tiles)]
    per_kstep = p.threads * (4 * p.MITER + 2 * p.NITER)
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        shared_loads=blocks * tiles * p.ksteps * per_kstep,
        barriers=blocks * tiles * 2,
        global_sectors=sectors,
        bank_extra_cycles=blocks * sum(extra for extra, _ in costs),
        shared_wavefronts=blocks * sum(waves for _, waves in costs),
        mma_instructions=blocks * tiles * p.ksteps * p.warps * p.MITER * p.NITER * p.split,
        async_copy_bytes=blocks * tiles * p.BK * (p.BM + p.BN) * WORD_BYTES,
    )


FLOPS_PER_MMA = 2 * MMA_M * MMA_N * MMA_K
"""One m16n8k8 is 16·8·8 = 1,024 multiply-adds, 2,048 floating-point operations."""


def tensor_flops(counters: Counters) -> int:
    """FLOPs the tensor cores executed (3xTF32 executes three per useful one)."""
    return counters.mma_instructions * FLOPS_PER_MMA
