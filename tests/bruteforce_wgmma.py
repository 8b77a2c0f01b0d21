"""Brute-force counters of the Hopper kernel (pysim/kernels/k13_wgmma.py), written from its CUDA listing with
plain loops over blocks, the producer's tiles, the consumers' threads and every element of every TMA box;
shares nothing with pysim but tests/bruteforce.py's key list, so a slip in wgmma_layout's closed forms or the
trace shows up here.

Counting as the kernel's docstring reads SPEC §2 for a copy no lane makes: a box reads the elements inside the
matrix (one global load each) from the distinct 32-byte sectors they lie in, and the TMA writes the whole box
(zero-fill included) into shared memory; every thread that calls waitPhase waits once."""

from __future__ import annotations

from math import ceil

from bruteforce import KEYS, sectors_of


def _box(t, rows, cols, row0, col0, height, width):
    """cp.async.bulk.tensor.2d of a rows×cols box at (row0, col0) of a height×width row-major matrix."""
    inside = [
        (row0 + r) * width + col0 + c
        for r in range(rows)
        for c in range(cols)
        if row0 + r < height and col0 + c < width
    ]
    t["global_loads"] += len(inside)
    t["global_sectors"] += sectors_of(inside)
    t["tma_bytes"] += 4 * rows * cols


def wgmma(M, N, K, BM, BN, BK, stages, consumers):
    t = dict.fromkeys(KEYS, 0)
    tiles = ceil(K / BK)
    rows_each = BM // consumers
    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            t["barriers"] += 1  # __syncthreads after the barriers' init
            for tile in range(tiles):  # the producer, thread 0
                if tile >= stages:
                    t["mbarrier_waits"] += 1
                _box(t, BM, BK, by * BM, tile * BK, M, K)  # mapA: box {BK}×{BM} at (tile·BK, blockIdx.y·BM)
                _box(t, BN, BK, bx * BN, tile * BK, N, K)  # mapBt: Bt is N×K
            for warpgroup in range(1, consumers + 1):
                for tid in range(128):
                    for _tile in range(tiles):
                        t["mbarrier_waits"] += 1  # waitPhase(&full[stage], ...)
                    warp, group, in_group = tid // 32, tid % 32 // 4, tid % 4
                    top = (warpgroup - 1) * rows_each
                    for mi in range(rows_each // 64):
                        for j in range(0, BN // 2, 2):
                            r = by * BM + top + mi * 64 + warp * 16 + group + j % 4 // 2 * 8
                            c = bx * BN + j // 4 * 8 + in_group * 2
                            if r < M and c < N:
                                t["global_stores"] += 2
                for _tile in range(tiles):
                    for _k in range(0, BK, 8):
                        t["mma_instructions"] += rows_each // 64  # one wgmma per mi, per warpgroup
    return t
