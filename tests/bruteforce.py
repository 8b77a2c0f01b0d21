"""Independent brute-force counters: plain nested loops over blocks, warps and threads.

Written from SPEC §2 alone; shares no code with pysim, so a counting mistake in
pysim's closed forms or traces shows up as a mismatch here.
"""

from __future__ import annotations

from math import ceil


def sectors_of(addresses):
    return len({a // 8 for a in addresses})


def conflict_cycles(words):
    by_bank = {}
    for w in words:
        by_bank.setdefault(w % 32, set()).add(w)
    degree = max((len(s) for s in by_bank.values()), default=0)
    return max(degree - 1, 0)


def warps(thread_ids):
    """Linear thread ids grouped 32 at a time."""
    ids = list(thread_ids)
    return [ids[i : i + 32] for i in range(0, len(ids), 32)]


def smem(M, N, K, T):
    c = dict.fromkeys(
        (
            "global_loads",
            "global_stores",
            "shared_loads",
            "shared_stores",
            "register_reads",
            "fma",
            "barriers",
            "global_sectors",
            "bank_extra_cycles",
        ),
        0,
    )
    threads = [(tid % T, tid // T) for tid in range(T * T)]
    for by in range(ceil(M / T)):
        for bx in range(ceil(N / T)):
            for t in range(ceil(K / T)):
                for warp in warps(range(T * T)):
                    a_addr, b_addr = [], []
                    for tid in warp:
                        tx, ty = threads[tid]
                        row, col_a = by * T + ty, t * T + tx
                        if row < M and col_a < K:
                            a_addr.append(row * K + col_a)
                        row_b, col = t * T + ty, bx * T + tx
                        if row_b < K and col < N:
                            b_addr.append(row_b * N + col)
                    c["global_loads"] += len(a_addr) + len(b_addr)
                    c["global_sectors"] += sectors_of(a_addr) + sectors_of(b_addr)
                    store_words = [threads[tid][1] * T + threads[tid][0] for tid in warp]
                    c["bank_extra_cycles"] += 2 * conflict_cycles(store_words)
                    for k in range(T):
                        c["bank_extra_cycles"] += conflict_cycles([threads[tid][1] * T + k for tid in warp])
                        c["bank_extra_cycles"] += conflict_cycles([k * T + threads[tid][0] for tid in warp])
                c["shared_stores"] += 2 * T * T
                c["barriers"] += 2
                for _thread in threads:
                    for _k in range(T):
                        c["shared_loads"] += 2
                        c["fma"] += 1
            for tx, ty in threads:
                if by * T + ty < M and bx * T + tx < N:
                    c["global_stores"] += 1
    return c


def naive_element(by, bx, tid, T, map="col"):
    """(row, col) of C for thread `tid` of block (bx, by): `col` puts threadIdx.x = tid % T on C's columns,
    `row` puts it on C's rows (SPEC §5 `map`)."""
    tx, ty = tid % T, tid // T
    if map == "col":
        return by * T + ty, bx * T + tx
    return by * T + tx, bx * T + ty


def naive(M, N, K, T, map="col"):
    c = dict.fromkeys(("global_loads", "global_stores", "fma", "global_sectors"), 0)
    for by in range(ceil(M / T)):
        for bx in range(ceil(N / T)):
            for k in range(K):
                for warp in warps(range(T * T)):
                    a_addr, b_addr = [], []
                    for tid in warp:
                        row, col = naive_element(by, bx, tid, T, map)
                        if row < M and col < N:
                            a_addr.append(row * K + k)
                            b_addr.append(k * N + col)
                            c["fma"] += 1
                    c["global_loads"] += len(a_addr) + len(b_addr)
                    c["global_sectors"] += sectors_of(a_addr) + sectors_of(b_addr)
            for tid in range(T * T):
                row, col = naive_element(by, bx, tid, T, map)
                if row < M and col < N:
                    c["global_stores"] += 1
    return c


def naive_requests(M, N, K, T, map="col"):
    """Warp-wide load instructions of the naive kernel: one for A and one for B per k per warp
    that has at least one thread inside C."""
    requests = 0
    for by in range(ceil(M / T)):
        for bx in range(ceil(N / T)):
            for warp in warps(range(T * T)):
                if any(r < M and c < N for r, c in (naive_element(by, bx, tid, T, map) for tid in warp)):
                    requests += 2 * K
    return requests


def register(M, N, K, BM, BN, BK, TM, TN):
    keys = (
        "global_loads",
        "global_stores",
        "shared_loads",
        "shared_stores",
        "register_reads",
        "fma",
        "barriers",
        "global_sectors",
        "bank_extra_cycles",
    )
    c = dict.fromkeys(keys, 0)
    n = (BM // TM) * (BN // TN)
    cols_per_row = BN // TN
    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for bk in range(0, K, BK):
                for height, width, origin, ld, limit in (
                    (BM, BK, (by * BM, bk), K, (M, K)),
                    (BK, BN, (bk, bx * BN), N, (K, N)),
                ):
                    for first in range(0, height * width, n):  # one pass of the strided copy loop
                        for warp in warps(range(n)):
                            addr, words = [], []
                            for tid in warp:
                                i = first + tid
                                if i >= height * width:
                                    continue
                                r, col = i // width, i % width
                                words.append(r * width + col)
                                c["shared_stores"] += 1
                                gr, gc = origin[0] + r, origin[1] + col
                                if gr < limit[0] and gc < limit[1]:
                                    addr.append(gr * ld + gc)
                            c["global_loads"] += len(addr)
                            c["global_sectors"] += sectors_of(addr)
                            c["bank_extra_cycles"] += conflict_cycles(words)
                c["barriers"] += 2
                for dot in range(BK):
                    for warp in warps(range(n)):
                        for i in range(TM):
                            c["bank_extra_cycles"] += conflict_cycles(
                                [((tid // cols_per_row) * TM + i) * BK + dot for tid in warp]
                            )
                        for j in range(TN):
                            c["bank_extra_cycles"] += conflict_cycles(
                                [dot * BN + (tid % cols_per_row) * TN + j for tid in warp]
                            )
                    for _tid in range(n):
                        c["shared_loads"] += TM + TN
                        c["fma"] += TM * TN
                        c["register_reads"] += 2 * TM * TN
            for tid in range(n):
                ty, tx = tid // cols_per_row, tid % cols_per_row
                for i in range(TM):
                    for j in range(TN):
                        if by * BM + ty * TM + i < M and bx * BN + tx * TN + j < N:
                            c["global_stores"] += 1
    return c


def transpose(n, TILE, pad):
    c = dict.fromkeys(
        (
            "global_loads",
            "global_stores",
            "shared_loads",
            "shared_stores",
            "barriers",
            "global_sectors",
            "bank_extra_cycles",
        ),
        0,
    )
    stride = TILE + pad
    g = ceil(n / TILE)
    for by in range(g):
        for bx in range(g):
            c["barriers"] += 1
            for warp in warps(range(TILE * TILE)):
                addr, store_words, read_words = [], [], []
                for tid in warp:
                    tx, ty = tid % TILE, tid // TILE
                    store_words.append(ty * stride + tx)
                    c["shared_stores"] += 1
                    x, y = bx * TILE + tx, by * TILE + ty
                    if x < n and y < n:
                        addr.append(y * n + x)
                    x, y = by * TILE + tx, bx * TILE + ty
                    if x < n and y < n:
                        read_words.append(tx * stride + ty)
                        c["global_stores"] += 1
                        c["shared_loads"] += 1
                c["global_loads"] += len(addr)
                c["global_sectors"] += sectors_of(addr)
                c["bank_extra_cycles"] += conflict_cycles(store_words) + conflict_cycles(read_words)
    return c
