"""Speed-of-light unit model: how long each GPU unit is busy for one kernel run, and which one limits.

Every SM-local unit is charged on the *busiest* SM, which runs ceil(blocks / SMs) blocks
(that is where the wave tail enters). Rates per SM per clock at the rated boost clock:
fp32 = FFMA warp instructions at lanes/32; issue = all warp instructions at
schedulers · issue_efficiency; shared and l1 = one wavefront each per clock, the two parts of
one L1TEX unit (L1 and shared memory are one data path on Volta and later: the estimate charges
their sum; return 128 B/clk, sourced for cc 7.x and assumed later). Clocks are the *sustained*
clock a card holds under a long SGEMM (speed_figures), not the rated boost the bounds use. Device-wide: l2 = L1-miss bytes / L2
bandwidth (*modelled*), dram = bytes a wave-level L2 reuse model leaves / DRAM bandwidth.
latency = Little's law over resident blocks: ceil(blocks_on_SM / B) · rounds · (L + work
between rounds). The estimate is launch overhead + the p-norm of the unit times; p → ∞
would be the pure-max roofline.

What is *fitted* (on the RTX A6000 only, against siboehm's table at 4096³): the issue
efficiency (kernel 10), the loaded round latency L (kernel 2) and p (whole table). Other
devices carry those GA102 values as uncalibrated placeholders. The instruction mix of
each kernel (unrolling, LDS widths, "other" instructions, registers) is *modelled*.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

import numpy as np

from ..core.fragments import MMA_K, MMA_M, MMA_N
from ..hardware.devices import KIB, Device
from .bounds import compulsory_bytes

MMA_FLOPS = 2 * MMA_M * MMA_N * MMA_K  # one mma.m16n8k8: 1,024 multiply-adds, 2,048 FLOPs

REG_ALLOC_UNIT = 256  # registers per warp allocation granule (CUDA occupancy calculator, cc >= 6)
SMEM_ALLOC_UNIT = 128  # bytes; modelled
FP32_ISSUE_WIDTH = 32  # lanes one FFMA warp instruction occupies
L1TEX_PARTS = ("shared", "l1")  # the two kinds of wavefront one L1TEX data path serves
L1TEX = "l1tex"  # the unit they make: what the model charges, ranks and names the limiter by


@dataclass(frozen=True)
class Machine:
    """The numbers the model computes with, in SI units, read off a Device's figures."""

    sms: int
    clock_hz: float
    fp32_per_clock: float  # FFMA warp instructions per SM per clock
    issue_per_clock: float  # warp instructions per SM per clock, sustained (fitted efficiency included)
    warp_issue_per_clock: float  # one warp's own instructions per clock: one scheduler at that efficiency
    l2_bytes: float
    l2_bytes_per_s: float
    dram_bytes_per_s: float
    max_warps: int
    max_blocks: int
    registers: int
    shared_bytes: int
    shared_reserved: int
    launch_s: float
    round_latency_cycles: float
    overlap_p: float
    tensor_per_clock: float  # mma.m16n8k8 TF32 warp instructions per SM per clock (0: no TF32 tensor figure)

    @classmethod
    def of(cls, device: Device) -> Machine:
        s = device.speed
        return cls(
            sms=int(s.sm_count.value),
            clock_hz=s.sustained_clock_mhz.value * 1e6,
            fp32_per_clock=s.fp32_lanes_per_sm.value / FP32_ISSUE_WIDTH,
            issue_per_clock=s.schedulers_per_sm.value * s.issue_efficiency.value,
            warp_issue_per_clock=s.issue_efficiency.value,
            l2_bytes=device.l2_size.value * KIB * KIB,
            l2_bytes_per_s=s.l2_bandwidth.value * 1e9,
            dram_bytes_per_s=device.dram_bandwidth.value * 1e9,
            max_warps=int(s.max_warps_per_sm.value),
            max_blocks=int(s.max_blocks_per_sm.value),
            registers=int(s.registers_per_sm.value),
            shared_bytes=int(device.shared_per_sm.value) * KIB,
            shared_reserved=int(s.shared_reserved_per_block.value),
            launch_s=s.launch_overhead_us.value * 1e-6,
            round_latency_cycles=s.round_latency_cycles.value,
            overlap_p=s.overlap_p.value,
            tensor_per_clock=_tensor_per_clock(device),
        )


def _tensor_per_clock(device: Device) -> float:
    """The dense TF32 figure as m16n8k8 instructions per SM per clock: the vendor's figure is at the rated boost
    clock, so per clock it is peak / (SMs · rated clock · FLOPs per mma); the model runs it at the sustained clock."""
    peak = device.tf32_per_second
    if peak is None:
        return 0.0
    s = device.speed
    return float(peak) / (s.sm_count.value * s.boost_clock_mhz.value * 1e6 * MMA_FLOPS)


@dataclass(frozen=True)
class KernelProfile:
    """Exact per-run counts (warp-level unless named otherwise) and the launch shape of one kernel.

    Blocks past the edge of C are charged as full blocks ("padding included").
    """

    M: int
    N: int
    K: int
    fma: int  # thread-level FMAs, padding included
    ffma: int
    global_loads: int  # A and B requests
    global_load_sectors: int  # A and B: distinct 32 B sectors per request, summed
    c_load_sectors: int  # the epilogue's beta·C read (siboehm's kernels read C; TileLab's listings do not)
    global_stores: int
    global_store_sectors: int
    global_wavefronts: int  # L1TEX wavefronts of every global request
    global_bank_wavefronts: int  # of those, what the bank rule adds over the tag stage's (modelled, unverified)
    shared_instructions: int
    shared_wavefronts: int
    barriers: int
    other: int  # non-memory, non-FFMA instructions (modelled)
    threads: int
    registers: int  # per thread (modelled)
    shared_bytes: int  # per block
    grid: tuple[int, int]
    tile_m: int  # rows of A one block reads
    tile_n: int  # columns of B one block reads
    grid_x_is_row: bool  # blockIdx.x walks row blocks of C
    rounds: int  # dependent global-memory round trips per block
    round_work: int  # instructions one warp issues per round
    mma: int = 0  # mma.m16n8k8 TF32 warp instructions (tensor-core kernels; 3xTF32 counts its three)
    overlapped: bool = False  # cp.async: a round's copies are in flight while earlier tiles are computed
    mma_size: int = 1  # m16n8k8's worth of multiply-adds in one tensor instruction (a warp's HGMMA: BN/8)

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def warps_per_block(self) -> int:
        return ceil(self.threads / 32)

    @property
    def instructions(self) -> int:
        loads = self.global_loads + self.global_stores + self.shared_instructions
        return self.ffma + self.mma + loads + self.barriers + self.other

    @property
    def tensor_flops(self) -> int:
        """FLOPs the tensor cores execute (padding included; 3xTF32 executes three per useful one)."""
        return self.mma * self.mma_size * MMA_FLOPS


@dataclass(frozen=True)
class UnitTimes:
    """Busy seconds of each unit, and resident blocks per SM."""

    seconds: dict[str, float]
    blocks_per_sm: int
    combined_s: float  # launch overhead + p-norm of the unit times


def resident_blocks(m: Machine, prof: KernelProfile) -> int:
    """Blocks per SM under the warp, block, register and shared-memory limits (0: it cannot launch)."""
    warps = prof.warps_per_block
    per_warp = ceil(prof.registers * 32 / REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    shared = ceil((prof.shared_bytes + m.shared_reserved) / SMEM_ALLOC_UNIT) * SMEM_ALLOC_UNIT
    return min(m.max_blocks, m.max_warps // warps, m.registers // per_warp // warps, m.shared_bytes // shared)


def _arc_overlap(s1: np.ndarray, l1: np.ndarray, s2: np.ndarray, l2: np.ndarray, n: int) -> np.ndarray:
    """Common length of the arcs [s1, s1+l1) and [s2, s2+l2) on a circle of n (each arc at most n long):
    the second arc's copies one turn back, none and one turn on cover every overlap exactly once."""
    total = np.zeros_like(s1)
    for turn in (-n, 0, n):
        total += np.maximum(0, np.minimum(s1 + l1, s2 + turn + l2) - np.maximum(s1, s2 + turn))
    return total


def _wave_dram_bytes(m: Machine, prof: KernelProfile, resident: int) -> float:
    """A/B bytes from DRAM: blocks resident together (launch order, x fastest) share tiles; the next
    wave reuses a tile only if the previous wave's footprint fits in L2.

    A wave is a run of consecutive block numbers, so its block columns are one arc of the gx columns
    and its block rows one interval: all waves are counted at once with interval arithmetic (a grid of
    hundreds of millions of blocks costs as little as one of four)."""
    gx, gy = prof.grid
    blocks, wave = gx * gy, m.sms * resident
    a_tile, b_tile = 4.0 * prof.tile_m * prof.K, 4.0 * prof.K * prof.tile_n
    start = np.arange(0, blocks, wave, dtype=np.int64)
    end = np.minimum(start + wave, blocks)
    x_start, x_len = start % gx, np.minimum(end - start, gx)
    y_start, y_len = start // gx, (end - 1) // gx - start // gx + 1

    def tiles(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        rows, cols = (xs, ys) if prof.grid_x_is_row else (ys, xs)
        return rows * a_tile + cols * b_tile

    reused_x = np.zeros_like(x_len)
    reused_y = np.zeros_like(y_len)
    if len(start) > 1:
        # Wave i reuses what wave i-1 touched, when wave i-1's footprint fits in L2.
        fits = tiles(x_len[:-1], y_len[:-1]) <= m.l2_bytes
        x_common = _arc_overlap(x_start[1:], x_len[1:], x_start[:-1], x_len[:-1], gx)
        y_common = np.maximum(
            0, np.minimum(y_start[1:] + y_len[1:], y_start[:-1] + y_len[:-1]) - np.maximum(y_start[1:], y_start[:-1])
        )
        reused_x[1:] = np.where(fits, x_common, 0)
        reused_y[1:] = np.where(fits, y_common, 0)
    return float(tiles(x_len - reused_x, y_len - reused_y).sum())


def unit_times(m: Machine, prof: KernelProfile) -> UnitTimes:
    """Busy time of each unit on the busiest SM (or device-wide), for a kernel that can launch."""
    resident = max(1, resident_blocks(m, prof))
    on_sm = ceil(prof.blocks / m.sms)
    share = on_sm / prof.blocks  # fraction of all the work the busiest SM does
    clock = m.clock_hz
    t = {
        "fp32": prof.ffma * share / m.fp32_per_clock / clock,
        "issue": prof.instructions * share / m.issue_per_clock / clock,
        "shared": prof.shared_wavefronts * share / clock,
        "l1": prof.global_wavefronts * share / clock,
    }
    # L2 serves L1 misses: each block's tiles once, never more than was requested.
    tiles = 4.0 * (prof.tile_m + prof.tile_n) * prof.K * prof.blocks
    l1_miss = min(32.0 * prof.global_load_sectors, tiles)
    t["l2"] = (l1_miss + 32.0 * (prof.c_load_sectors + prof.global_store_sectors)) / m.l2_bytes_per_s
    # C leaves DRAM once (if read) and returns once, however many sectors the requests touched.
    c_dram = 4.0 * prof.M * prof.N * (2 if prof.c_load_sectors else 1)
    ab = min(_wave_dram_bytes(m, prof, resident), l1_miss)
    t["dram"] = max(compulsory_bytes(prof.M, prof.N, prof.K), ab + c_dram) / m.dram_bytes_per_s
    if prof.mma:  # the tensor pipe, only where a kernel issues to it (the FP32 kernels' units stay as they were)
        t["tensor"] = prof.mma * prof.mma_size * share / m.tensor_per_clock / clock
    t["latency"] = _latency(m, prof, resident, on_sm)
    units = list(charged(t).values())
    top = max(units)
    # Imperfect overlap: units nearly as busy as the limiter still cost time (MIO back-pressure,
    # barrier drains, latency not fully hidden). The p-norm is phenomenological and fitted.
    combined = top * sum((v / top) ** m.overlap_p for v in units) ** (1 / m.overlap_p) if top > 0 else 0.0
    return UnitTimes(t, resident, m.launch_s + combined)


def charged(seconds: dict[str, float]) -> dict[str, float]:
    """The units the model charges: each entry of `seconds` alone, but shared-memory and global wavefronts summed
    as one L1TEX unit (last). They queue for one L1TEX data path on Volta and later (Nsight Compute's one "L1/TEX
    Cache Throughput"), so the estimate, the limiter and the chart take the sum; "shared" and "l1" stay in a
    report as its parts."""
    units = {name: value for name, value in seconds.items() if name not in L1TEX_PARTS}
    return units | {L1TEX: sum(seconds[name] for name in L1TEX_PARTS)}


def _latency(m: Machine, prof: KernelProfile, resident: int, on_sm: int) -> float:
    """Chains of dependent rounds on the busiest SM; `resident` blocks overlap their chains."""
    rounds = prof.rounds
    if prof.barriers:
        # A synchronising block waits for its slowest unit between rounds, alone on the SM.
        per_block = rounds * prof.blocks
        between = max(
            prof.instructions / per_block / m.issue_per_clock,
            prof.round_work / m.warp_issue_per_clock,
            (prof.shared_wavefronts + prof.global_wavefronts) / per_block,  # one L1TEX data path
            prof.ffma / per_block / m.fp32_per_clock,
            prof.mma * prof.mma_size / per_block / m.tensor_per_clock if prof.mma else 0.0,
        )
    else:
        # Independent warps: between rounds a warp waits only for its own issue (one scheduler).
        between = prof.round_work / m.warp_issue_per_clock
    # Synchronous copies wait a round trip, then compute: latency and work add. With cp.async the copies of the
    # next S-1 tiles are in flight while a round's tiles are computed, so a round lasts the longer of the two.
    per_round = max(m.round_latency_cycles, between) if prof.overlapped else m.round_latency_cycles + between
    return ceil(on_sm / resident) * rounds * per_round / m.clock_hz
