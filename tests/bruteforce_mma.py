"""Brute-force counters of the TF32 tensor-core kernel (pysim/kernels/k12_mma.py), written from its CUDA
listing with plain loops over blocks, warps, copy rounds, k-steps and lanes; shares nothing with pysim but
tests/bruteforce.py's per-instruction tally (sectors, banks), so a slip in mma_layout's closed forms or the
trace shows up here."""

from __future__ import annotations

from math import ceil

from bruteforce import Tally, warps


def swizzled(word, bits=3, base=2, shift=3):
    """Swizzle<bits, base, shift> by place values: the word's chunk (2**base words) trades places with the chunk
    whose number, among the 2**bits of its block, is the old one XOR (the word's line mod 2**bits), a line being
    2**(base + shift) words. The defaults: a 16-byte chunk to chunk XOR (its 128-byte line mod 8)."""
    chunk, within = divmod(word, 2**base)
    block, place = divmod(chunk, 2**bits)
    line = word // 2 ** (base + shift)
    return (block * 2**bits + (place ^ (line % 2**bits))) * 2**base + within


def mma(M, N, K, BM, BN, BK, WM, WN, stages, swizzle, split, swz_bits=3, swz_base=2, swz_shift=3):
    t = Tally()
    threads = (BM // WM) * (BN // WN) * 32
    sa, sb = (BK, BN) if swizzle else (BK + 4, BN + 8)
    tiles = ceil(K / BK)

    def where(word):
        return swizzled(word, swz_bits, swz_base, swz_shift) if swizzle else word

    def copy_tile(warp, height, width, origin, shape, first_row, stride):
        """`for (i = threadIdx.x; i < height·width/4; i += threads)`: 16 bytes a lane, zero outside."""
        for i0 in range(0, height * width // 4, threads):
            starts, words = [], []
            for tid in warp:
                i = i0 + tid
                if i >= height * width // 4:
                    starts.append(None)
                    words.append(None)
                    continue
                r, c = i // (width // 4), i % (width // 4) * 4
                gr, gc = origin[0] + r, origin[1] + c
                starts.append(gr * shape[1] + gc if gr < shape[0] and gc < shape[1] else None)
                words.append(where((first_row + r) * stride + c))
            t.global_load(starts, 4)
            t.async_copy(words, 4)

    def copy(warp, by, bx, tile):
        stage = tile % stages
        copy_tile(warp, BM, BK, (by * BM, tile * BK), (M, K), stage * BM, sa)
        copy_tile(warp, BK, BN, (tile * BK, bx * BN), (K, N), stage * BK, sb)

    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for warp in warps(range(threads)):
                w = warp[0] // 32
                warp_row, warp_col = w // (BN // WN) * WM, w % (BN // WN) * WN
                for s in range(min(stages - 1, tiles)):
                    copy(warp, by, bx, s)
                for tile in range(tiles):
                    if tile + stages - 1 < tiles:
                        copy(warp, by, bx, tile + stages - 1)
                    stage = tile % stages
                    for kk in range(0, BK, 8):
                        for mi in range(WM // 16):
                            for i in range(4):
                                rows = [warp_row + mi * 16 + lane // 4 + i % 2 * 8 for lane in range(32)]
                                cols = [kk + lane % 4 + i // 2 * 4 for lane in range(32)]
                                t.shared("load", [where((stage * BM + r) * sa + c) for r, c in zip(rows, cols)], 1)
                        for ni in range(WN // 8):
                            for i in range(2):
                                rows = [kk + lane % 4 + i * 4 for lane in range(32)]
                                cols = [warp_col + ni * 8 + lane // 4 for lane in range(32)]
                                t.shared("load", [where((stage * BK + r) * sb + c) for r, c in zip(rows, cols)], 1)
                        t.c["mma_instructions"] += (WM // 16) * (WN // 8) * split
                    if warp[0] == 0:
                        t.c["barriers"] += 2
                for lane in range(32):
                    for mi in range(WM // 16):
                        for ni in range(WN // 8):
                            for h in range(2):
                                r = by * BM + warp_row + mi * 16 + lane // 4 + h * 8
                                c = bx * BN + warp_col + ni * 8 + lane % 4 * 2
                                t.c["global_stores"] += 2 if r < M and c + 1 < N else 0
    return t.c
