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


# nvcc keeps the dotIdx loop (merging no read across its rounds) when one round holds more than this many
# FFMA + scalar shared reads; pysim/core/instructions.py's `kept-loop` rule, held to nvcc by test_sass_model.
KEPT_LOOP_BODY = 48


def issued_reads(offsets, parts):
    """(offset, width) of each shared read nvcc issues for a thread reading words part + offset, written
    from the `merge` rule's text (test_sass_model holds that rule to nvcc): the smallest offset not yet read
    starts a read of 4 words where the 4 are all read, the offset is a multiple of 4 and so is every
    thread's part (`parts`), else of 2 likewise, else of 1; a word read twice is read once. Where nvcc
    keeps a loop, the caller passes each round's offsets alone."""
    left = sorted(set(offsets))
    found = []
    while left:
        first = left[0]
        for width in (4, 2, 1):
            run = list(range(first, first + width))
            if width == 1 or (first % width == 0 and all(p % width == 0 for p in parts) and left[:width] == run):
                found.append((first, width))
                left = left[width:]
                break
    return found


def round_reads(BK, stride, offsets, width, parts, kept):
    """(offset, width) of BK rounds of a thread's reads of words part + dot*stride + offset (one offset per
    read as written, `width` words each): float4 reads as written, scalar ones as nvcc issues them (round by
    round where it keeps the loop, `kept`)."""
    if width > 1:
        return [(d * stride + o, width) for d in range(BK) for o in offsets]
    rounds = [[d] for d in range(BK)] if kept else [list(range(BK))]
    return [r for dots in rounds for r in issued_reads([d * stride + o for d in dots for o in offsets], parts)]


def smem_reads(T):
    """(each thread's part, the reads nvcc issues) for tileA[ty][k] and tileB[k][tx], k < T (a round, 1 FFMA
    and 2 reads, is never a kept loop)."""
    threads = [(tid % T, tid // T) for tid in range(T * T)]
    a_parts, b_parts = [ty * T for _, ty in threads], [tx for tx, _ in threads]
    return (a_parts, issued_reads(range(T), a_parts)), (b_parts, issued_reads([k * T for k in range(T)], b_parts))


def tile_reads(BN, BK, TM, TN, threads):
    """(each thread's part, the reads nvcc issues) for As[(tid / (BN/TN))*TM + i][dot] and
    Bs[dot][(tid % (BN/TN))*TN + j]: kernels 4 (TN = 1) and 5; per round where nvcc keeps the loop."""
    cols = BN // TN
    rounds = [[dot] for dot in range(BK)] if KEPT_LOOP_BODY < TM * TN + TM + TN else [list(range(BK))]
    a_parts, b_parts = [(t // cols) * TM * BK for t in range(threads)], [(t % cols) * TN for t in range(threads)]
    a_reads = [r for dots in rounds for r in issued_reads([i * BK + d for d in dots for i in range(TM)], a_parts)]
    b_reads = [r for dots in rounds for r in issued_reads([d * BN + j for d in dots for j in range(TN)], b_parts)]
    return (a_parts, a_reads), (b_parts, b_reads)


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
            "shared_wavefronts",
        ),
        0,
    )
    threads = [(tid % T, tid // T) for tid in range(T * T)]
    (_, a_reads), (_, b_reads) = smem_reads(T)
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
                    requests = [(store_words, 1)] * 2
                    requests += [([threads[tid][1] * T + k for tid in warp], width) for k, width in a_reads]
                    requests += [([threads[tid][0] + k for tid in warp], width) for k, width in b_reads]
                    for starts, width in requests:
                        waves, extra = vector_banks(starts, width)
                        c["shared_wavefronts"] += waves
                        c["bank_extra_cycles"] += extra
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
        "shared_wavefronts",
    )
    c = dict.fromkeys(keys, 0)
    n = (BM // TM) * (BN // TN)
    cols_per_row = BN // TN
    (m_parts, m_reads), (n_parts, n_reads) = tile_reads(BN, BK, TM, TN, n)
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
                            c["shared_wavefronts"] += vector_banks(words, 1)[0]
                c["barriers"] += 2
                for warp in warps(range(n)):
                    for parts, reads in ((m_parts, m_reads), (n_parts, n_reads)):
                        for offset, width in reads:
                            waves, extra = vector_banks([parts[tid] + offset for tid in warp], width)
                            c["shared_wavefronts"] += waves
                            c["bank_extra_cycles"] += extra
                for _dot in range(BK):
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


# --- vector accesses (SPEC §6): each lane moves `width` consecutive 4-byte words -----------------
def vector_sectors(starts, width):
    """Distinct 32-byte sectors covering every byte the lanes touch; `starts` holds each lane's first
    word (None for an idle lane)."""
    touched = set()
    for start in starts:
        if start is None:
            continue
        for byte in range(4 * start, 4 * (start + width)):
            touched.add(byte // 32)
    return len(touched)


def vector_banks(starts, width):
    """(wavefronts, extra cycles) of one warp's shared access: the warp is served in phases of
    32 // width lanes; a phase's degree is the most distinct words one bank is asked for. A 128-bit
    access whose lane pairs (n, n^1), or (n, n^2), each ask for one address is served in two
    half-warps instead (NVIDIA forum thread 373160's Nsight Compute figures)."""
    lanes_per_phase = 32 // width
    lanes = list(starts) + [None] * (32 - len(starts)) if len(starts) < 32 else list(starts)
    if width == 4 and len(lanes) == 32:
        for partner in (1, 2):
            pairs = [(lanes[n], lanes[n ^ partner]) for n in range(32)]
            if all(a is None or b is None or a == b for a, b in pairs):
                lanes_per_phase = 16
                break
    wavefronts = extra = 0
    for first in range(0, len(lanes), lanes_per_phase):
        by_bank = {}
        for start in lanes[first : first + lanes_per_phase]:
            if start is None:
                continue
            for byte in range(4 * start, 4 * (start + width), 4):
                by_bank.setdefault((byte // 4) % 32, set()).add(byte // 4)
        degree = max((len(words) for words in by_bank.values()), default=0)
        wavefronts += degree
        extra += max(degree - 1, 0)
    return wavefronts, extra


KEYS = (
    "global_loads",
    "global_stores",
    "shared_loads",
    "shared_stores",
    "register_reads",
    "fma",
    "barriers",
    "global_sectors",
    "bank_extra_cycles",
    "shared_wavefronts",
    "atomics",  # none of these kernels has an atomic; the counter exists for the playground's
    "mma_instructions",  # SPEC §7's counters: only the kernels past siboehm's make them non-zero
    "async_copy_bytes",
    "tma_bytes",
    "mbarrier_waits",
)


class Tally:
    """Counters of one run, fed one warp instruction at a time."""

    def __init__(self):
        self.c = dict.fromkeys(KEYS, 0)

    def global_load(self, starts, width):
        self.c["global_loads"] += width * sum(s is not None for s in starts)
        self.c["global_sectors"] += vector_sectors(starts, width)

    def shared(self, op, starts, width):
        self.c[f"shared_{op}s"] += width * sum(s is not None for s in starts)
        self.request(starts, width)

    def request(self, starts, width):
        """One shared instruction as nvcc issues it: its wavefronts and conflicts (elements counted apart)."""
        waves, extra = vector_banks(starts, width)
        self.c["shared_wavefronts"] += waves
        self.c["bank_extra_cycles"] += extra

    def async_copy(self, starts, width):
        """One warp's cp.async of `width` floats per lane (a zero-fill writes its bytes too): the shared side
        is written like a store of that width, with its wavefronts, but no thread stores."""
        self.c["async_copy_bytes"] += 4 * width * sum(s is not None for s in starts)
        waves, extra = vector_banks(starts, width)
        self.c["shared_wavefronts"] += waves
        self.c["bank_extra_cycles"] += extra


def lds_width(length):
    """Words per shared read of a thread's `length` side-by-side values: LDS.128 for whole float4s, LDS.64
    for pairs, else LDS.32, as nvcc issues them (CUDA 13, sm_80: `python -m pysim sass --kernel vectorized
    --M 48 --N 16 --K 32 --BM 16 --BN 16 --BK 4 --TM 2 --TN 8 --arch sm_80` counts 4 LDS.64 per bkIdx step,
    one per dotIdx for regM's pair)."""
    return 4 if length % 4 == 0 else 2 if length % 2 == 0 else 1


def blocktile1d(M, N, K, BM, BN, BK, TM):
    """siboehm's kernel 4 with TileLab's guards, from its CUDA listing."""
    t = Tally()
    n = BM * BN // TM
    (a_parts, a_reads), (b_parts, b_reads) = tile_reads(BN, BK, TM, 1, n)
    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for bk in range(0, K, BK):
                for warp in warps(range(n)):
                    a, b = [], []
                    for tid in warp:
                        r, c = by * BM + tid // BK, bk + tid % BK
                        a.append(r * K + c if r < M and c < K else None)
                        r, c = bk + tid // BN, bx * BN + tid % BN
                        b.append(r * N + c if r < K and c < N else None)
                    t.global_load(a, 1)
                    t.shared("store", [(tid // BK) * BK + tid % BK for tid in warp], 1)
                    t.global_load(b, 1)
                    t.shared("store", [(tid // BN) * BN + tid % BN for tid in warp], 1)
                    for parts, reads in ((a_parts, a_reads), (b_parts, b_reads)):
                        for offset, width in reads:
                            t.request([parts[tid] + offset for tid in warp], width)
                    t.c["shared_loads"] += len(warp) * BK * (TM + 1)
                    t.c["fma"] += len(warp) * BK * TM
                    t.c["register_reads"] += len(warp) * BK * TM
                t.c["barriers"] += 2
            for tid in range(n):
                for res in range(TM):
                    if by * BM + (tid // BN) * TM + res < M and bx * BN + tid % BN < N:
                        t.c["global_stores"] += 1
    return t.c


def vectorized(M, N, K, BM, BN, BK, TM, TN):
    """siboehm's kernel 6 with TileLab's guards, from its CUDA listing."""
    t = Tally()
    cols = BN // TN
    n = (BM // TM) * cols
    wm, wn = lds_width(TM), lds_width(TN)
    kept = KEPT_LOOP_BODY < TM * TN + TM // wm + TN // wn
    m_parts, n_parts = [(tid // cols) * TM for tid in range(n)], [(tid % cols) * TN for tid in range(n)]
    m_reads = round_reads(BK, BM, range(0, TM, wm), wm, m_parts, kept)
    n_reads = round_reads(BK, BN, range(0, TN, wn), wn, n_parts, kept)
    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for bk in range(0, K, BK):
                for warp in warps(range(n)):
                    a, b = [], []
                    for tid in warp:
                        r, c = by * BM + tid // (BK // 4), bk + tid % (BK // 4) * 4
                        a.append(r * K + c if r < M and c + 3 < K else None)
                        r, c = bk + tid // (BN // 4), bx * BN + tid % (BN // 4) * 4
                        b.append(r * N + c if r < K and c + 3 < N else None)
                    t.global_load(a, 4)
                    for j in range(4):
                        t.shared("store", [(tid % (BK // 4) * 4 + j) * BM + tid // (BK // 4) for tid in warp], 1)
                    t.global_load(b, 4)
                    t.shared("store", [(tid // (BN // 4)) * BN + tid % (BN // 4) * 4 for tid in warp], 4)
                    for parts, issued in ((m_parts, m_reads), (n_parts, n_reads)):
                        for offset, width in issued:
                            t.request([parts[tid] + offset for tid in warp], width)
                    t.c["shared_loads"] += len(warp) * BK * (TM + TN)
                    t.c["fma"] += len(warp) * BK * TM * TN
                    t.c["register_reads"] += 2 * len(warp) * BK * TM * TN
                t.c["barriers"] += 2
            for tid in range(n):
                for i in range(TM):
                    for j in range(0, TN, 4):
                        r, c = by * BM + (tid // cols) * TM + i, bx * BN + (tid % cols) * TN + j
                        if r < M and c + 3 < N:
                            t.c["global_stores"] += 4
    return t.c


def warp_patch(tid, BN, WM, WN, WSUBN, TM, TN):
    """Top-left corner, in the block tile, of thread `tid`'s patch in the first subtile (kernel 10's layout)."""
    warp, lane = tid // 32, tid % 32
    warp_row, warp_col = warp // (BN // WN), warp % (BN // WN)
    lane_row, lane_col = lane // (WSUBN // TN), lane % (WSUBN // TN)
    return warp_row * WM + lane_row * TM, warp_col * WN + lane_col * TN


def warp_stores(M, N, BM, BN, by, bx, threads, patch, WMITER, WNITER, WSUBM, WSUBN, TM, TN):
    """Floats block (bx, by) of kernel 10's layout stores to C: float4s wholly inside C."""
    stored = 0
    for tid in range(threads):
        top, left = patch(tid)
        for sub_m in range(WMITER):
            for sub_n in range(WNITER):
                for i in range(TM):
                    for j in range(0, TN, 4):
                        r, c = by * BM + top + sub_m * WSUBM + i, bx * BN + left + sub_n * WSUBN + j
                        stored += 4 if r < M and c + 3 < N else 0
    return stored


def warp_reads(BM, BN, BK, WMITER, WNITER, WSUBM, WSUBN, TM, TN, threads, patch):
    """Kernels 10 and 11: ((As parts, reads), (Bs parts, reads)) of one bkIdx step, as nvcc issues them."""
    wm, wn = lds_width(TM), lds_width(TN)
    kept = KEPT_LOOP_BODY < WMITER * WNITER * TM * TN + WMITER * TM // wm + WNITER * TN // wn
    m_parts, n_parts = [patch(tid)[0] for tid in range(threads)], [patch(tid)[1] for tid in range(threads)]
    m_offsets = [sub * WSUBM + i for sub in range(WMITER) for i in range(0, TM, wm)]
    n_offsets = [sub * WSUBN + j for sub in range(WNITER) for j in range(0, TN, wn)]
    return (
        (m_parts, round_reads(BK, BM, m_offsets, wm, m_parts, kept)),
        (n_parts, round_reads(BK, BN, n_offsets, wn, n_parts, kept)),
    )


def warptile(M, N, K, BM, BN, BK, WM, WN, WNITER, TM, TN, threads):
    """siboehm's kernel 10 with TileLab's guards, from its CUDA listing."""
    t = Tally()
    WMITER = (WM * WN) // (32 * TM * TN * WNITER)
    WSUBM, WSUBN = WM // WMITER, WN // WNITER
    stride_a, stride_b = threads * 4 // BK, threads // (BN // 4)

    def patch(tid):
        return warp_patch(tid, BN, WM, WN, WSUBN, TM, TN)

    reads = warp_reads(BM, BN, BK, WMITER, WNITER, WSUBM, WSUBN, TM, TN, threads, patch)

    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for bk in range(0, K, BK):
                for warp in warps(range(threads)):
                    for offset in range(0, BM, stride_a):
                        a = []
                        for tid in warp:
                            r, c = by * BM + tid // (BK // 4) + offset, bk + tid % (BK // 4) * 4
                            a.append(r * K + c if r < M and c + 3 < K else None)
                        t.global_load(a, 4)
                        for j in range(4):
                            words = [(tid % (BK // 4) * 4 + j) * BM + tid // (BK // 4) + offset for tid in warp]
                            t.shared("store", words, 1)
                    for offset in range(0, BK, stride_b):
                        b = []
                        for tid in warp:
                            r, c = bk + tid // (BN // 4) + offset, bx * BN + tid % (BN // 4) * 4
                            b.append(r * N + c if r < K and c + 3 < N else None)
                        t.global_load(b, 4)
                        t.shared("store", [(tid // (BN // 4) + offset) * BN + tid % (BN // 4) * 4 for tid in warp], 4)
                    for parts, issued in reads:
                        for offset, width in issued:
                            t.request([parts[tid] + offset for tid in warp], width)
                    t.c["shared_loads"] += len(warp) * BK * (WMITER * TM + WNITER * TN)
                    t.c["fma"] += len(warp) * BK * WMITER * WNITER * TM * TN
                    t.c["register_reads"] += 2 * len(warp) * BK * WMITER * WNITER * TM * TN
                t.c["barriers"] += 2
            t.c["global_stores"] += warp_stores(
                M, N, BM, BN, by, bx, threads, patch, WMITER, WNITER, WSUBM, WSUBN, TM, TN
            )
    return t.c


def pipelined(M, N, K, BM, BN, BK, WM, WN, WNITER, TM, TN, threads, stages):
    """Pipelined warptiling (cp.async, `stages` buffers) with TileLab's guards, from its CUDA listing: A comes in
    4-byte copies, each float to As[stage][k][m] (transposed), B in 16-byte copies to Bs[stage][k][n]; a copy
    outside A or B zero-fills; the reads are warptiling's, in the stage computed."""
    t = Tally()
    WMITER = (WM * WN) // (32 * TM * TN * WNITER)
    WSUBM, WSUBN = WM // WMITER, WN // WNITER
    stride_a, stride_b = threads * 4 // BK, threads // (BN // 4)
    tiles = ceil(K / BK)

    def patch(tid):
        return warp_patch(tid, BN, WM, WN, WSUBN, TM, TN)

    reads = warp_reads(BM, BN, BK, WMITER, WNITER, WSUBM, WSUBN, TM, TN, threads, patch)

    def copy(warp, by, bx, tile):
        stage = tile % stages
        for offset in range(0, BM, stride_a):
            for j in range(4):
                a, words = [], []
                for tid in warp:
                    m, k = tid // (BK // 4) + offset, tid % (BK // 4) * 4 + j
                    r, c = by * BM + m, tile * BK + k
                    a.append(r * K + c if r < M and c < K else None)
                    words.append((stage * BK + k) * BM + m)
                t.global_load(a, 1)
                t.async_copy(words, 1)
        for offset in range(0, BK, stride_b):
            b, words = [], []
            for tid in warp:
                r, c = tile * BK + tid // (BN // 4) + offset, bx * BN + tid % (BN // 4) * 4
                b.append(r * N + c if r < K and c + 3 < N else None)
                words.append((stage * BK + tid // (BN // 4) + offset) * BN + tid % (BN // 4) * 4)
            t.global_load(b, 4)
            t.async_copy(words, 4)

    for by in range(ceil(M / BM)):
        for bx in range(ceil(N / BN)):
            for warp in warps(range(threads)):
                for s in range(min(stages - 1, tiles)):
                    copy(warp, by, bx, s)
                for tile in range(tiles):
                    if tile + stages - 1 < tiles:
                        copy(warp, by, bx, tile + stages - 1)
                    stage = tile % stages * BK  # the stage's first row of As and Bs
                    for (parts, issued), stride in zip(reads, (BM, BN)):
                        for offset, width in issued:
                            t.request([parts[tid] + stage * stride + offset for tid in warp], width)
                    t.c["shared_loads"] += len(warp) * BK * (WMITER * TM + WNITER * TN)
                    t.c["fma"] += len(warp) * BK * WMITER * WNITER * TM * TN
                    t.c["register_reads"] += 2 * len(warp) * BK * WMITER * WNITER * TM * TN
            t.c["barriers"] += 2 * tiles
            t.c["global_stores"] += warp_stores(
                M, N, BM, BN, by, bx, threads, patch, WMITER, WNITER, WSUBM, WSUBN, TM, TN
            )
    return t.c
