"""Where the Hopper kernel (k13_wgmma.py) puts things and who touches what: the TMA boxes and the swizzled
rows they land in, the wgmma accumulators of each consumer thread, and the closed-form counters.

A stage holds As[m][k] and Bs[n][k] (B transposed: wgmma reads TF32 operands K-major only), each row 32
floats, one 128-byte line, so the 128-byte swizzle (pysim/core/swizzle.py) moves 16-byte chunks within the
row: chunk c of row r lands in chunk c XOR (r mod 8). Every stage starts on a multiple of 8 rows (BM and BN
are multiples of 8), which keeps the pattern aligned to the 1,024-byte atoms the descriptor assumes.

Counting (SPEC §2 and §7 read for a copy no lane makes): a TMA box is one instruction of one thread. Its
global side counts the elements inside the matrix (`global_loads`) and the distinct 32-byte sectors they lie
in (`global_sectors`); outside the matrix the TMA unit writes zeros without reading. Its shared side counts
`tma_bytes`, the whole box zero-fill included (the bytes the mbarrier's transaction count expects), and no
lane's shared store. The wgmma reads its operands from shared memory through the descriptors, not through a
lane's load: no `shared_loads`, and the counter is `mma_instructions` (one per warpgroup's wgmma). Waits count
each thread's `mbarrier.try_wait` loop once, however long it spins (timing is not modelled).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from ..core.constants import WORDS_PER_SECTOR
from ..core.counters import Counters
from ..core.fragments import C_MAP
from ..core.swizzle import swizzle_words
from ..hardware.wgmma_params import WARPGROUP, WGMMA_K, WGMMA_M, WgmmaParams

# Index arrays are int64 where they are made: the speed model adds them to byte bases past 2**31, and NumPy's
# default integer is int32 in Pyodide (wasm), where such a sum overflows.


def place(first_row: int, rows: np.ndarray, cols: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) where the TMA puts element (rows, cols) of a box whose row 0 lands in row `first_row` of a
    shared array of rows `width` floats long (128 bytes), swizzled."""
    words = swizzle_words((first_row + rows) * width + cols)
    return np.divmod(words, width)


@lru_cache(maxsize=8)
def d_map(BN: int) -> np.ndarray:
    """(row, col) in the warpgroup's 64×BN accumulator tile of d[i] of each of its 128 threads, (128, BN/2, 2).
    PTX ISA, "wgmma" → "Register Fragments" (Matrix D, .f32): warp w holds rows 16w .. 16w+15; within it each
    8-column block j repeats mma.m16n8's C layout: d[4j .. 4j+3] are c0..c3 shifted by 8j columns."""
    thread = np.arange(WARPGROUP, dtype=np.int64)
    warp, lane = thread // 32, thread % 32
    i = np.arange(BN // 2)
    rows = 16 * warp[:, None] + C_MAP[lane[:, None], i[None] % 4, 0]
    cols = 8 * (i[None] // 4) + C_MAP[lane[:, None], i[None] % 4, 1]
    return np.stack([rows, cols], axis=-1)


def box_sectors(rows: int, cols: int, row0s: np.ndarray, col0: int, shape: tuple[int, int]) -> int:
    """Distinct 32-byte sectors of the elements inside rows×cols boxes at (row0, col0) of a row-major matrix,
    summed over the boxes' first rows `row0s` (one array operation for all of them: a 16,384² run has
    hundreds of thousands of boxes)."""
    first, last = col0, min(col0 + cols, shape[1])
    if last <= first:
        return 0
    row = np.asarray(row0s, dtype=np.int64)[:, None] + np.arange(rows, dtype=np.int64)[None]
    starts = row * shape[1]
    firsts, lasts = (starts + first) // WORDS_PER_SECTOR, (starts + last - 1) // WORDS_PER_SECTOR
    # Rows shorter than a sector share sectors with the row before: count each sector once (the intervals
    # only grow, so a row's new sectors start after the last one the rows before it reached).
    reached = np.concatenate((np.full((len(row), 1), -1), np.maximum.accumulate(lasts, axis=1)[:, :-1]), axis=1)
    new = np.maximum(lasts - np.maximum(firsts, reached + 1) + 1, 0)
    return int(np.where(row < shape[0], new, 0).sum())  # rows past the matrix's edge read nothing


def _tile_kinds(p: WgmmaParams) -> Counter[tuple[int, int]]:
    """How many k-tiles have each (first column mod a sector, columns inside K): tiles alike in both read the same
    number of sectors (the same rows' sectors, moved by whole sectors), so each kind is counted once."""
    return Counter((t * p.BK % WORDS_PER_SECTOR, min(p.BK, p.K - t * p.BK)) for t in range(p.tiles))


def counters_for(p: WgmmaParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    blocks, tiles = len(bxs) * len(bys), p.tiles
    rows = int(np.minimum(p.M - bys * p.BM, p.BM).sum())
    cols = int(np.minimum(p.N - bxs * p.BN, p.BN).sum())
    sectors = sum(
        tiles_of_kind
        * (
            box_sectors(p.BM, width, bys * p.BM, shift, (p.M, p.K)) * len(bxs)
            + box_sectors(p.BN, width, bxs * p.BN, shift, (p.N, p.K)) * len(bys)
        )
        for (shift, width), tiles_of_kind in _tile_kinds(p).items()
    )
    waits = tiles * p.consumers * WARPGROUP + max(0, tiles - p.stages)
    return Counters(
        global_loads=rows * p.K * len(bxs) + cols * p.K * len(bys),
        global_stores=rows * cols,
        barriers=blocks,
        global_sectors=sectors,
        mma_instructions=blocks * tiles * p.ksteps * p.consumers * p.MITER,
        tma_bytes=blocks * tiles * p.stage_bytes,
        mbarrier_waits=blocks * waits,
    )


def flops_per_wgmma(p: WgmmaParams) -> int:
    """One wgmma.m64nBNk8 is 64·BN·8 multiply-adds, twice as many floating-point operations."""
    return 2 * WGMMA_M * p.BN * WGMMA_K


def tensor_flops(p: WgmmaParams, counters: Counters) -> int:
    """FLOPs the tensor cores executed (the padding of edge tiles included)."""
    return counters.mma_instructions * flops_per_wgmma(p)
