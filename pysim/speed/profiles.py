"""KernelProfile of each TileLab kernel, as siboehm/SGEMM_CUDA (commit 60cba6f) writes it.

For one block, every warp-level memory instruction of two main-loop iterations and of
the epilogue is enumerated with the byte address each lane touches, exactly as the .cuh
indexes; wavefronts.py prices it. Iterations are alike (their address shift is a multiple
of 32 B), so the two are averaged and scaled to the run. Every block is charged as a full
block. The epilogue reads C as well as writing it (siboehm runs C = αAB + βC).

Modelled compiler behaviour: the un-tiled loops are unrolled ×4; in kernels 3, 4 and 5 a
thread's scalar shared reads of one iteration are the instructions pysim's instruction model says
nvcc emits (pysim/core/instructions.py `issued`, the rule the trace's wavefront counters count
with; `merge`: consecutive aligned words become LDS.64/LDS.128, a broadcast when a warp shares
the address; `kept-loop`: not across rounds where ptxas keeps the dotIdx loop, as at kernel 4's
TM=32 and kernel 5's runner shape TM=TN=8, whose As reads stay LDS.32; tests/unit/test_sass_model.py
holds that model to nvcc's SASS, but for the widths where NVVM keeps the dotIdx loop, `kept-loop-base`:
there the estimate prices the model's widths); other instructions = 4 per round + 1 per global access; registers
as RegisterBudget estimates them (32 for the un-tiled kernels), with kernels 4 and 5's fragments the words their
reads hold as issued (`_held_words`: kernel 4's As loads, merged across rounds, hold 4·TM).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import ceil
from typing import Protocol

import numpy as np

from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.instructions import issued, round_of
from ..hardware.params import NaiveParams, SmemParams
from ..hardware.registers import RegisterBudget
from .model import KernelProfile
from .wavefronts import Instr, Tally, tally

A0, B0, C0 = 0, 1 << 36, 1 << 37  # byte bases of A, B, C: far apart and 4 KB aligned
UNROLL = 4  # the naive loop's modelled unrolling: one dependent round per 4 k-steps
SIMPLE_REGISTERS = 32


class Tiled(Protocol):
    """The tiling parameters kernels 4, 6 and 10 read (their params classes, or RunnerShape).

    Read-only properties, so frozen dataclasses keep the protocol."""

    @property
    def M(self) -> int: ...
    @property
    def N(self) -> int: ...
    @property
    def K(self) -> int: ...
    @property
    def BM(self) -> int: ...
    @property
    def BN(self) -> int: ...
    @property
    def BK(self) -> int: ...
    @property
    def TM(self) -> int: ...
    @property
    def TN(self) -> int: ...


class Warptiled(Tiled, Protocol):
    """What kernel 10 reads besides the tiling: the warp tile and the block's threads."""

    @property
    def WM(self) -> int: ...
    @property
    def WN(self) -> int: ...
    @property
    def WNITER(self) -> int: ...
    @property
    def threads(self) -> int: ...


@dataclass(frozen=True)
class RunnerShape:
    """siboehm's runner defaults, for kernels whose TileLab params class is not there yet."""

    M: int
    N: int
    K: int
    BM: int = 128
    BN: int = 128
    BK: int = 8
    TM: int = 8
    TN: int = 8
    WM: int = 64
    WN: int = 64
    WNITER: int = 4
    threads: int = 128


@dataclass(frozen=True)
class Launch:
    threads: int
    grid: tuple[int, int]  # (x, y); x walks column blocks (TileLab's and siboehm's kernels 4-10)
    tile_m: int
    tile_n: int
    iterations: int
    ffma_per_iteration: int  # per thread
    barriers_per_iteration: int
    registers: int
    shared_bytes: int
    steps_per_round: int = 1
    grid_x_is_row: bool = False
    overlapped: bool = False  # cp.async copies in flight while earlier tiles compute (KernelProfile.overlapped)
    mma_per_iteration: int = 0  # per warp: tensor-core instructions (a tensor-core kernel's, instead of FFMAs)
    other_per_iteration: int = 0  # per warp: non-memory instructions beyond the modelled loop overhead


Read = tuple[str, int, np.ndarray, int | None]  # a scalar shared read: array, its byte base, word per lane, kept round

# (thread ids of a block, one row per warp; iteration) -> instructions, addresses shaped like the ids:
# every warp runs the same instructions, so one call gives each instruction of all the block's warps.
Body = Callable[[np.ndarray, int], Iterator[Instr]]
Epilogue = Callable[[np.ndarray], Iterator[Instr]]


def _warp_tally(launch: Launch, body: Body, epilogue: Epilogue) -> tuple[Tally, Tally, int]:
    """(one iteration's tally, the epilogue's, the iterations simulated) for one block."""
    warps = ceil(launch.threads / WARP_SIZE)
    simulated = min(2, launch.iterations)
    # int64: byte addresses pass 2**31, and NumPy's default integer is int32 in Pyodide.
    tid = np.arange(warps * WARP_SIZE, dtype=np.int64).reshape(warps, WARP_SIZE)
    live = tid < launch.threads

    def lanes_of(instructions: Iterator[Instr]) -> Iterator[Instr]:
        for kind, width, addrs in instructions:
            yield kind, width, np.where(live, addrs, -1)

    loop = tally(lanes_of(instr for it in range(simulated) for instr in body(tid, it)))
    return loop, tally(lanes_of(epilogue(tid))), simulated


def build(M: int, N: int, K: int, launch: Launch, body: Body, epilogue: Epilogue) -> KernelProfile:
    loop, tail, simulated = _warp_tally(launch, body, epilogue)
    # Scale the simulated iterations exactly: counts per iteration are equal, so this divides evenly.
    block = Tally(*(v * launch.iterations // simulated for v in vars(loop).values())) + tail
    blocks = launch.grid[0] * launch.grid[1]
    run = block.times(blocks)
    warps = ceil(launch.threads / WARP_SIZE)
    ffma = warps * launch.iterations * launch.ffma_per_iteration
    rounds = ceil(launch.iterations / launch.steps_per_round) + 1
    global_per_warp = (block.ldg + block.c_ldg + block.stg) / warps
    other = warps * (4 * (rounds - 1) + 4 + launch.iterations * launch.other_per_iteration)
    other += round(global_per_warp * warps)
    mma = warps * launch.iterations * launch.mma_per_iteration
    barriers = warps * launch.iterations * launch.barriers_per_iteration
    per_warp = (ffma + mma + other + barriers) / warps + global_per_warp + (block.lds + block.sts) / warps
    return KernelProfile(
        M=M,
        N=N,
        K=K,
        fma=blocks * launch.threads * launch.iterations * launch.ffma_per_iteration,
        ffma=blocks * ffma,
        global_loads=run.ldg + run.c_ldg,
        global_load_sectors=run.ldg_sectors,
        c_load_sectors=run.c_sectors,
        global_stores=run.stg,
        global_store_sectors=run.stg_sectors,
        global_wavefronts=run.global_wavefronts,
        global_bank_wavefronts=run.global_bank_wavefronts,
        shared_instructions=run.lds + run.sts,
        shared_wavefronts=run.shared_wavefronts,
        barriers=blocks * barriers,
        other=blocks * other,
        threads=launch.threads,
        registers=launch.registers,
        shared_bytes=launch.shared_bytes,
        grid=launch.grid,
        tile_m=launch.tile_m,
        tile_n=launch.tile_n,
        grid_x_is_row=launch.grid_x_is_row,
        rounds=rounds,
        round_work=ceil(per_warp / rounds),
        mma=blocks * mma,
        overlapped=launch.overlapped,
    )


def _c(rows: np.ndarray, cols: np.ndarray, N: int, width: int) -> Iterator[Instr]:
    address = C0 + (rows * N + cols) * WORD_BYTES
    yield "ldc", width, address
    yield "stg", width, address


def naive(p: NaiveParams) -> KernelProfile:
    """siboehm's kernel 1 (map=row: threadIdx.x walks rows, A strided) or kernel 2 (map=col, B coalesced)."""
    T = p.T

    def rc(tid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ty, tx = np.divmod(tid, T)
        return (ty, tx) if p.map == "col" else (tx, ty)

    def body(tid: np.ndarray, k: int) -> Iterator[Instr]:
        r, c = rc(tid)
        yield "ldg", 4, A0 + (r * p.K + k) * WORD_BYTES
        yield "ldg", 4, B0 + (k * p.N + c) * WORD_BYTES

    launch = Launch(T * T, (ceil(p.N / T), ceil(p.M / T)), T, T, p.K, 1, 0, SIMPLE_REGISTERS, 0, UNROLL)
    return build(p.M, p.N, p.K, launch, body, lambda tid: _c(*rc(tid), p.N, 4))


def smem(p: SmemParams) -> KernelProfile:
    """siboehm's kernel 3: T×T tiles of A and B in shared memory, T×T threads."""
    T, As, Bs = p.T, 0, p.T * p.T * WORD_BYTES

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        r, c = np.divmod(tid, T)
        k0 = it * T
        yield "ldg", 4, A0 + (r * p.K + k0 + c) * WORD_BYTES
        yield "ldg", 4, B0 + ((k0 + r) * p.N + c) * WORD_BYTES
        yield "sts", 4, As + (r * T + c) * WORD_BYTES
        yield "sts", 4, Bs + (r * T + c) * WORD_BYTES
        pairs = [(("As", As, r * T + d, round_of(d, 1, 2)), ("Bs", Bs, d * T + c, round_of(d, 1, 2))) for d in range(T)]
        yield from _issued([read for pair in pairs for read in pair])

    launch = Launch(
        T * T, (ceil(p.N / T), ceil(p.M / T)), T, T, ceil(p.K / T), T, 2, SIMPLE_REGISTERS, 2 * T * T * WORD_BYTES
    )
    return build(p.M, p.N, p.K, launch, body, lambda tid: _c(*np.divmod(tid, T), p.N, 4))


def _strided_copy(tid: np.ndarray, threads: int, height: int, width: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(row, col) per lane of each pass of `for (i = tid; i < height*width; i += threads)`; -1 past the end."""
    for start in range(0, height * width, threads):
        i = start + tid
        live = i < height * width
        yield np.where(live, i // width, -1), np.where(live, i % width, -1)


def _issued(reads: list[Read]) -> Iterator[Instr]:
    """One iteration's scalar shared reads, each (array, its byte base, a thread's word per lane, round of a
    kept loop or None), as nvcc issues them: pysim's instruction model's `issued`, the rule the trace's
    wavefront counters count with (consecutive aligned words as one LDS.64 or LDS.128)."""
    plan = issued([(name, words.reshape(1, -1), round_) for name, _, words, round_ in reads])
    for (_, base, words, _), ((width, shift),) in zip(reads, plan, strict=True):
        if width:
            yield "lds", 4 * width, base + (words + shift) * WORD_BYTES


def _tile_reads(p: Tiled, tid: np.ndarray, threads: int, it: int) -> Iterator[Instr]:
    """Kernels 4 and 5: scalar copies of A's BM×BK and B's BK×BN slices, then BK rounds of register reads
    as nvcc issues them (merged across rounds while ptxas unrolls them, `kept-loop`)."""
    As, Bs, k0 = 0, p.BM * p.BK * WORD_BYTES, it * p.BK
    for (ar, ac), (br, bc) in zip(
        _strided_copy(tid, threads, p.BM, p.BK), _strided_copy(tid, threads, p.BK, p.BN), strict=False
    ):
        yield "ldg", 4, np.where(ar < 0, -1, A0 + (ar * p.K + k0 + ac) * WORD_BYTES)
        yield "sts", 4, np.where(ar < 0, -1, As + (ar * p.BK + ac) * WORD_BYTES)
        yield "ldg", 4, np.where(br < 0, -1, B0 + ((k0 + br) * p.N + bc) * WORD_BYTES)
        yield "sts", 4, np.where(br < 0, -1, Bs + (br * p.BN + bc) * WORD_BYTES)
    yield from _issued(_round_reads(p, tid)[0])


def _round_reads(p: Tiled, tid: np.ndarray) -> tuple[list[Read], list[int]]:
    """Kernels 4 and 5's scalar shared reads of one iteration in program order, and each one's dotIdx."""
    As, Bs = 0, p.BM * p.BK * WORD_BYTES
    ty, tx = np.divmod(tid, p.BN // p.TN)
    reads, dots = [], []
    for d in range(p.BK):
        round_ = round_of(d, p.TM * p.TN, p.TM + p.TN)
        reads += [("As", As, (ty * p.TM + i) * p.BK + d, round_) for i in range(p.TM)]
        reads += [("Bs", Bs, d * p.BN + tx * p.TN + j, round_) for j in range(p.TN)]
        dots += [d] * (p.TM + p.TN)
    return reads, dots


def _held_words(p: Tiled, threads: int) -> int:
    """Words of A and B one thread holds in registers at once, its reads as nvcc issues them (`issued`): a word
    lives from the round whose read issues its instruction (nvcc loads a merged access at its first use) to the end
    of the round that reads it, so kernel 4's LDS.128 of As, merged across 4 rounds, holds 4·TM words where
    RegisterBudget counts TM. Unmerged across rounds (kernel 5 at the runner's shape, `kept-loop`): TM + TN, as
    RegisterBudget counts. At the runner's shape these words give kernel 4 57 registers where TM + TN gave 33; ptxas -v
    gives siboehm's kernel 4 44 to 56 on sm_80 to sm_90 (nvcc 12.1 and 13.0; 66 on sm_75), two blocks an SM of 16
    warps where 33 gave three (tests/unit/test_speed_registers.py holds the blocks to nvcc's on TileLab's listing)."""
    tid = np.arange(ceil(threads / WARP_SIZE) * WARP_SIZE, dtype=np.int64)  # the lanes `_issued` plans over
    reads, dots = _round_reads(p, tid)
    plan = issued([(name, words.reshape(1, -1), round_) for name, _, words, round_ in reads])
    loads = [
        (name, int(words[0]) + shift, width, d)
        for (name, _, words, _), ((width, shift),), d in zip(reads, plan, dots, strict=True)
        if width
    ]
    held = [0] * p.BK
    for (name, _, words, _), last in zip(reads, dots, strict=True):
        word = int(words[0])
        first = next(d for array, start, width, d in loads if array == name and start <= word < start + width)
        for d in range(first, last + 1):
            held[d] += 1
    return max(held)


def _tiled(
    p: Tiled, tm: int, tn: int, body: Body, epilogue: Epilogue, threads: int, held: int | None = None
) -> KernelProfile:
    """`held`: the A and B words a thread holds at once (`_held_words`), where not RegisterBudget's TM + TN."""
    budget = RegisterBudget(tm, tn)
    launch = Launch(
        threads,
        (ceil(p.N / p.BN), ceil(p.M / p.BM)),
        p.BM,
        p.BN,
        ceil(p.K / p.BK),
        tm * tn * p.BK,
        2,
        budget.total if held is None else budget.total - budget.fragments + held,
        (p.BM + p.BN) * p.BK * WORD_BYTES,
    )
    return build(p.M, p.N, p.K, launch, body, epilogue)


def _patch_epilogue(p: Tiled, width: int) -> Epilogue:
    def epilogue(tid: np.ndarray) -> Iterator[Instr]:
        ty, tx = np.divmod(tid, p.BN // p.TN)
        for i in range(p.TM):
            for j in range(0, p.TN, width):
                yield from _c(ty * p.TM + i, tx * p.TN + j, p.N, 4 * width)

    return epilogue


def register(p: Tiled) -> KernelProfile:
    """siboehm's kernel 5 (2D blocktiling), with TileLab's strided copy (the same order as siboehm's)."""
    threads = (p.BM // p.TM) * (p.BN // p.TN)

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        return _tile_reads(p, tid, threads, it)

    return _tiled(p, p.TM, p.TN, body, _patch_epilogue(p, 1), threads, _held_words(p, threads))


def blocktile1d(p: Tiled) -> KernelProfile:
    """siboehm's kernel 4: a column of TM results per thread (TN = 1)."""
    shape = RunnerShape(p.M, p.N, p.K, p.BM, p.BN, p.BK, p.TM, 1)
    threads = p.BM * p.BN // p.TM

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        return _tile_reads(shape, tid, threads, it)

    return _tiled(shape, p.TM, 1, body, _patch_epilogue(shape, 1), threads, _held_words(shape, threads))


def _float4_copy(p: Tiled, tid: np.ndarray, threads: int, k0: int) -> Iterator[Instr]:
    """Kernels 6 and 10: float4 loads of A (stored transposed, four LDS.32) and of B (one STS.128)."""
    As, Bs = 0, p.BM * p.BK * WORD_BYTES
    for ar, ac in _strided_copy(tid, threads, p.BM, p.BK // 4):
        yield "ldg", 16, np.where(ar < 0, -1, A0 + (ar * p.K + k0 + 4 * ac) * WORD_BYTES)
        for j in range(4):
            yield "sts", 4, np.where(ar < 0, -1, As + ((4 * ac + j) * p.BM + ar) * WORD_BYTES)
    for br, bc in _strided_copy(tid, threads, p.BK, p.BN // 4):
        yield "ldg", 16, np.where(br < 0, -1, B0 + ((k0 + br) * p.N + 4 * bc) * WORD_BYTES)
        yield "sts", 16, np.where(br < 0, -1, Bs + (br * p.BN + 4 * bc) * WORD_BYTES)


def vectorized(p: Tiled) -> KernelProfile:
    """siboehm's kernel 6: kernel 5 with float4 global loads, As transposed, LDS.128 reads of both tiles."""
    threads = (p.BM // p.TM) * (p.BN // p.TN)
    As, Bs = 0, p.BM * p.BK * WORD_BYTES

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        yield from _float4_copy(p, tid, threads, it * p.BK)
        ty, tx = np.divmod(tid, p.BN // p.TN)
        for d in range(p.BK):
            for i in range(0, p.TM, 4):
                yield "lds", 16, As + (d * p.BM + ty * p.TM + i) * WORD_BYTES
            for j in range(0, p.TN, 4):
                yield "lds", 16, Bs + (d * p.BN + tx * p.TN + j) * WORD_BYTES

    return _tiled(p, p.TM, p.TN, body, _patch_epilogue(p, 4), threads)


def _warp_shape(p: Warptiled) -> tuple[int, int, int]:
    """(WMITER, WSUBM, WSUBN) of kernel 10's warp tile."""
    wmiter = (p.WM * p.WN) // (WARP_SIZE * p.TM * p.TN * p.WNITER)
    return wmiter, p.WM // wmiter, p.WN // p.WNITER


def _lane_origin(p: Warptiled, tid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each lane's first (row, column) of its patch in the block tile."""
    wr, wc = np.divmod(tid // WARP_SIZE, p.BN // p.WN)
    lr, lc = np.divmod(tid % WARP_SIZE, _warp_shape(p)[2] // p.TN)
    return wr * p.WM + lr * p.TM, wc * p.WN + lc * p.TN


def warp_reads(p: Warptiled, tid: np.ndarray, As: int, Bs: int) -> Iterator[Instr]:
    """Kernel 10's processFromSmem: BK rounds of LDS.128 from As[k][m] and Bs[k][n] at byte offsets As, Bs."""
    wmiter, wsubm, wsubn = _warp_shape(p)
    r0, c0 = _lane_origin(p, tid)
    for d in range(p.BK):
        for sm in range(wmiter):
            for i in range(0, p.TM, 4):
                yield "lds", 16, As + (d * p.BM + r0 + sm * wsubm + i) * WORD_BYTES
        for sn in range(p.WNITER):
            for j in range(0, p.TN, 4):
                yield "lds", 16, Bs + (d * p.BN + c0 + sn * wsubn + j) * WORD_BYTES


def warp_epilogue(p: Warptiled) -> Epilogue:
    """Kernel 10's float4 stores of C (and siboehm's read of C) from each lane's WMITER×WNITER patches."""

    def epilogue(tid: np.ndarray) -> Iterator[Instr]:
        wmiter, wsubm, wsubn = _warp_shape(p)
        r0, c0 = _lane_origin(p, tid)
        for sm in range(wmiter):
            for sn in range(p.WNITER):
                for i in range(p.TM):
                    for j in range(0, p.TN, 4):
                        yield from _c(r0 + sm * wsubm + i, c0 + sn * wsubn + j, p.N, 16)

    return epilogue


def warptile(p: Warptiled) -> KernelProfile:
    """siboehm's kernel 10: each warp owns a WM×WN tile, walked in WMITER×WNITER sub-tiles of TM×TN per lane."""
    wmiter = _warp_shape(p)[0]

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        yield from _float4_copy(p, tid, p.threads, it * p.BK)
        yield from warp_reads(p, tid, 0, p.BM * p.BK * WORD_BYTES)

    return _tiled(p, wmiter * p.TM, p.WNITER * p.TN, body, warp_epilogue(p), p.threads)


BUILDERS: dict[str, Callable[..., KernelProfile]] = {
    "naive": naive,
    "smem": smem,
    "blocktile1d": blocktile1d,
    "register": register,
    "vectorized": vectorized,
    "warptile": warptile,
}
