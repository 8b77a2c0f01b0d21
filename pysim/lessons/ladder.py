"""The kernel ladder: every kernel side by side at one size N×N×N, and what bounds its time on a device.

The rows are data (`Rung`), counted by the kernels' own closed forms (checked against traces at small
sizes in the tests), so N up to MAX_SIZE costs milliseconds. Each row carries the CLI command that
prints the same counters, so the table can be checked from a terminal.

Rows, in teaching order:
- naive, `map=col`: threadIdx.x walks C's columns (coalesced loads of B);
- naive, `map=row`: threadIdx.x walks C's rows (every lane loads a different row of A);
- shared-memory tiled with T×T tiles;
- register tiled with siboehm's shape BM = BN = 128, BK = 8, TM = TN = 8
  (siboehm's 2D-blocktiling kernel), when the device's rules allow it;
- register tiled with the reader's own BM, BN, BK, TM, TN.

`siboehm_ladder` adds siboehm's 1D blocktiling (his kernel 4), vectorized (6) and warptiling (10) kernels at
his A6000 sizes, orders the rows as he numbers them (naive map=row is his kernel 1, map=col his kernel 2;
each label starts with his number) and adds TileLab's rungs 11, pipelined warptiling (cp.async, sm_80), and 12,
TF32 tensor cores (mma.sync, sm_80; it cannot run on the T4, and the model prices it where NVIDIA gives a dense
TF32 rate), and 13, Hopper's TMA + wgmma (sm_90a: the h100 and h200 presets only).

DRAM traffic is not simulated: `pysim.speed.bounds` brackets it between the
cache-perfect and no-reuse estimates, and this module adds a third figure, the
*sector traffic*: every 32-byte sector a load instruction touches fetched from
DRAM, plus the stored words. It is what a kernel would move with no cache reuse
between instructions, and it is where coalescing shows (naive col and row do the
same element loads, but not the same sectors). Those are the table's columns; the
roofline (pysim.lessons.roofline) places each kernel at the DRAM bytes the speed model's
L1/L2 cache model leaves, and at the model's estimated FLOP/s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar, TypedDict

from ..core.constants import SECTOR_BYTES, WORD_BYTES
from ..core.counters import Counters
from ..hardware.blocktile_params import Blocktile1DParams, VectorizedParams, WarptileParams
from ..hardware.devices import device
from ..hardware.mma_params import MmaParams
from ..hardware.params import NaiveParams, ParamError, Params, RegisterParams, SmemParams, _device, _int
from ..hardware.pipelined_params import PipelinedParams
from ..hardware.wgmma_params import WgmmaParams
from ..kernels import KERNELS
from ..speed import (
    BANK_RULE,
    NO_TENSOR_RATE,
    SpeedReport,
    TimeBound,
    estimate_from,
    format_attribute,
    format_bytes,
    format_seconds,
    profile,
    tensor_roof_beaten_by,
    time_bound_for,
)
from ..speed import format_flops as format_flops  # re-exported: the ladder's pages and tests ask here
from ..speed import format_intensity as format_intensity
from ..speed.model import KernelProfile
from .evidence import SIBOEHM_NUMBER as SIBOEHM_NUMBER  # re-exported: the ladder's pages and tests ask here
from .evidence import Evidence, evidence
from .evidence import measured_seconds as measured_seconds
from .explain import PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE

PRODUCTION_BK = 8  # siboehm's 2D-blocktiling kernel: BM = BN = 128, BK = 8, TM = TN = 8
# CLI option for each parameter name (pysim.cli OPTIONS, inverted).
CLI_OPTIONS = {"T": "tile", "M": "M", "N": "N", "K": "K", "map": "map", "device": "device"}
CLI_OPTIONS |= {
    name: name
    for name in (
        "BM",
        "BN",
        "BK",
        "TM",
        "TN",
        "WM",
        "WN",
        "WNITER",
        "threads",
        "stages",
        "swizzle",
        "swz_bits",
        "swz_base",
        "swz_shift",
        "split",
        "consumers",
    )
}
# What a row's kernel runs on: an M×N×K product on a device.
MatmulParams = NaiveParams | SmemParams | RegisterParams | Blocktile1DParams | WarptileParams | MmaParams | WgmmaParams


class Size(TypedDict):
    """The keyword arguments every row's parameter class takes for the ladder's size and device."""

    M: int
    N: int
    K: int
    device: str


@dataclass(frozen=True)
class LadderParams(Params):
    """One problem size N (M = N = K), the device, the tile T and the reader's register-tiling shape."""

    ANIMATED: ClassVar[tuple[str, ...]] = ()  # a table, never animated

    N: int = _int(4096)
    T: int = _int(32, high=1024, label="TILE")
    BM: int = _int(64, high=1024)
    BN: int = _int(64, high=1024)
    BK: int = _int(8, high=1024)
    TM: int = _int(4, high=1024)
    TN: int = _int(4, high=1024)
    device: str = _device()

    def check(self) -> None:
        # The rows' own parameter classes apply every rule, and name the parameter that broke it.
        SmemParams(M=self.N, N=self.N, K=self.N, T=self.T, device=self.device)
        self.yours()

    def yours(self) -> RegisterParams:
        return RegisterParams(
            M=self.N, N=self.N, K=self.N, BM=self.BM, BN=self.BN, BK=self.BK, TM=self.TM, TN=self.TN, device=self.device
        )


@dataclass(frozen=True)
class Rung:
    """One kernel at the ladder's size: its counters and bounds, or why it cannot run."""

    key: str  # stable id for the page and the tests: naive-col, naive-row, smem, register-production, register-yours
    label: str
    config: str  # its parameters in words
    kernel: str  # pysim.kernels.KERNELS key
    params: MatmulParams | None
    counters: Counters | None = None
    bound: TimeBound | None = None
    reason: str = ""  # why it cannot run (a ParamError message), when params is None
    cli: tuple[str, ...] = field(default=())

    @property
    def runs(self) -> bool:
        return self.counters is not None

    def measured(self) -> tuple[Counters, TimeBound]:
        """The counters and time bound of a rung that runs; asking one that cannot run is a bug."""
        if self.counters is None or self.bound is None:
            raise ValueError(f"the {self.key} rung does not run: {self.reason}")
        return self.counters, self.bound

    @property
    def sector_bytes(self) -> int:
        """Sector traffic: every sector a load touches from DRAM, plus the words stored (an estimate)."""
        c, _ = self.measured()
        return SECTOR_BYTES * c.global_sectors + WORD_BYTES * c.global_stores

    @property
    def fma_per_global_byte(self) -> Fraction:
        """Multiply-adds per byte of global loads (4 bytes per element load)."""
        c, _ = self.measured()
        return Fraction(c.fma, WORD_BYTES * c.global_loads)

    def command(self) -> str:
        return "python -m pysim count " + " ".join(self.cli)


def _cli(kernel: str, params: Params) -> tuple[str, ...]:
    args = ["--kernel", kernel]
    for name, value in params.as_strings().items():
        if name not in params.inert():
            args += [f"--{CLI_OPTIONS[name]}", value]
    return tuple(args)


def _rung(key: str, label: str, config: str, kernel: str, build: Callable[[], MatmulParams]) -> Rung:
    try:
        params = build()
    except ParamError as error:
        return Rung(key, label, config, kernel, None, reason=error.message)
    counters = KERNELS[kernel].counters(params)
    tensor = KERNELS[kernel].tensor_flops(params, counters)
    bound = time_bound_for(device(params.device), counters, params.M, params.N, params.K, tensor)
    return Rung(key, label, config, kernel, params, counters, bound, cli=_cli(kernel, params))


def production(p: LadderParams) -> RegisterParams:
    b, t = PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE
    return RegisterParams(M=p.N, N=p.N, K=p.N, BM=b, BN=b, BK=PRODUCTION_BK, TM=t, TN=t, device=p.device)


def tensor_rung(p: LadderParams) -> MmaParams:
    """Rung 12: 128×128 blocks of four 64×64 warp tiles, BK = 16, 3 cp.async stages, padded rows, TF32."""
    size: Size = {"M": p.N, "N": p.N, "K": p.N, "device": p.device}
    return MmaParams(**size, BM=128, BN=128, BK=16, WM=64, WN=64, stages=3, swizzle=0, split=1)


# The original rows, in TileLab's order (a page or test asking for `ladder` gets these).
TILELAB_ROWS = ("naive-col", "naive-row", "smem", "register-production", "register-yours")
# siboehm's ladder (github.com/siboehm/SGEMM_CUDA, kernels 1-6 and 10) in his order, TileLab's rung 11, yours.
SIBOEHM_ROWS = (
    "naive-row",
    "naive-col",
    "smem",
    "blocktile1d",
    "register-production",
    "vectorized",
    "warptile",
    "pipelined",
    "mma",
    "wgmma",
    "register-yours",
)


def ladder(p: LadderParams) -> tuple[Rung, ...]:
    """The rows of the ladder at p.N on p.device."""
    return _rows(p, TILELAB_ROWS)


def siboehm_ladder(p: LadderParams) -> tuple[Rung, ...]:
    """siboehm's kernels 1-6 and 10 at p.N on p.device (his sizes for the A6000), and the reader's row."""
    return _rows(p, SIBOEHM_ROWS)


def _rows(p: LadderParams, keys: tuple[str, ...]) -> tuple[Rung, ...]:
    builders = _builders(p)
    return tuple(_rung(key, *builders[key]) for key in keys)


def _builders(p: LadderParams) -> dict[str, tuple[str, str, str, Callable[[], MatmulParams]]]:
    """Per row key: (label with siboehm's kernel number, config, kernel key, params builder)."""
    N, T, d = p.N, p.T, p.device
    b, t = PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE
    size: Size = {"M": N, "N": N, "K": N, "device": d}
    return {
        "naive-col": (
            "2 · Naive, map=col",
            f"{T}×{T} blocks; threadIdx.x walks C's columns (coalesced)",
            "naive",
            lambda: NaiveParams(**size, T=T, map="col"),
        ),
        "naive-row": (
            "1 · Naive, map=row",
            f"{T}×{T} blocks; threadIdx.x walks C's rows (strided)",
            "naive",
            lambda: NaiveParams(**size, T=T, map="row"),
        ),
        "smem": ("3 · Shared-memory tiled", f"TILE = {T}", "smem", lambda: SmemParams(**size, T=T)),
        "blocktile1d": (
            "4 · 1D blocktiling",
            "BM = BN = 64, BK = 8, TM = 8",
            "blocktile1d",
            lambda: Blocktile1DParams(**size),
        ),
        "register-production": (
            "5 · Register tiled (2D blocktiling), siboehm's shape",
            f"BM = BN = {b}, BK = {PRODUCTION_BK}, TM = TN = {t}",
            "register",
            lambda: production(p),
        ),
        "vectorized": (
            "6 · Vectorized (float4) 2D blocktiling",
            "BM = BN = 128, BK = 8, TM = TN = 8",
            "vectorized",
            lambda: VectorizedParams(**size, BM=128, BN=128, BK=8, TM=8, TN=8),
        ),
        "warptile": (
            "10 · Warptiling",
            "128 threads, BM = BN = 128, BK = 16, WM = WN = 64, WNITER = 4, TM = 8, TN = 4",
            "warptile",
            lambda: WarptileParams(**size),
        ),
        "pipelined": (
            "11 · Pipelined warptiling (cp.async), past siboehm",
            "kernel 10's shape, 3 stages of As and Bs in flight",
            "pipelined",
            lambda: PipelinedParams(**size, stages=3),
        ),
        "mma": (
            "12 · TF32 tensor cores (mma.sync.m16n8k8), past siboehm",
            "BM = BN = 128, BK = 16, WM = WN = 64 (4 warps), 3 cp.async stages, padded rows, TF32",
            "mma",
            lambda: tensor_rung(p),
        ),
        "wgmma": (
            "13 · Hopper: TMA + wgmma (sm_90a), past siboehm",
            "BM = 128, BN = 256, BK = 32, 4 TMA stages, a producer and 2 consumer warpgroups, 128-byte swizzle, TF32",
            "wgmma",
            lambda: WgmmaParams(**size, BM=128, BN=256, BK=32, stages=4, consumers=2),
        ),
        "register-yours": (
            "Register tiled, yours",
            f"BM = {p.BM}, BN = {p.BN}, BK = {p.BK}, TM = {p.TM}, TN = {p.TN}",
            "register",
            p.yours,
        ),
    }


# --- what the table and the chart print (views never format a number) --------------
@dataclass(frozen=True)
class Cell:
    """One table cell: the text, and the exact value behind it (an int, or '' when not a count)."""

    text: str
    value: str = ""


# How fast first (what the ladder is read for), then the counts that explain it.
COLUMNS = (
    ("estimate", "Estimate (model)"),
    ("bound", "Bound (no kernel is faster)"),
    ("measured", "Measured"),
    ("global_loads", "Global loads"),
    ("global_sectors", "32-byte sectors"),
    ("dram", "DRAM bytes (estimate: cache-perfect … no reuse)"),
    ("sector_bytes", "Sector traffic (32 B × sectors + stores)"),
    ("shared_loads", "Shared loads"),
    ("bank_extra_cycles", "Bank-conflict cycles"),
    ("fma_per_byte", "FMAs per global byte"),
)


def cells(rung: Rung) -> dict[str, Cell]:
    """The table row of a rung, keyed like COLUMNS."""
    c, bound = rung.measured()
    perfect, none = bound.cache_perfect.dram_bytes, bound.no_reuse.dram_bytes
    ratio = rung.fma_per_global_byte
    return {
        "global_loads": Cell(f"{c.global_loads:,}", str(c.global_loads)),
        "global_sectors": Cell(f"{c.global_sectors:,}", str(c.global_sectors)),
        "dram": Cell(f"{format_bytes(perfect)} … {format_bytes(none)}", f"{perfect},{none}"),
        "sector_bytes": Cell(format_bytes(rung.sector_bytes), str(rung.sector_bytes)),
        "shared_loads": Cell(f"{c.shared_loads:,}", str(c.shared_loads)),
        "bank_extra_cycles": Cell(f"{c.bank_extra_cycles:,}", str(c.bank_extra_cycles)),
        # Whole from 100 up (4,096 at N = 1, its padding's FMAs), never "4.1e+03"; three figures below.
        "fma_per_byte": Cell(
            f"{float(ratio):,.0f}" if ratio >= 100 else f"{float(ratio):.3g}", f"{ratio.numerator}/{ratio.denominator}"
        ),
        "estimate": _estimate_cell(rung),
        "bound": _bound_cell(rung),
        "measured": _measured_cell(rung),
    }


# --- how fast, and why (pysim.speed): the model's estimate, the bounds, the published measurements ----
# The units of the speed model, in the order the bars are drawn, as the page names them.
UNIT_NAMES = {
    "fp32": "FP32 units",
    "issue": "instruction issue",
    # One L1TEX data path serves shared-memory and global wavefronts (pysim.speed.model.charged): one unit, one bar.
    "l1tex": "L1TEX (shared + global)",
    "l2": "L2 bandwidth",
    "dram": "DRAM bandwidth",
    "tensor": "tensor cores (TF32)",
    "latency": "memory latency",
}
GLOBAL_WAVEFRONTS = "L1 wavefronts of global loads and stores per FMA"  # the count the bank rule for global loads sets
# Which bound binds, in words (a bound at the rated clock; the round trip an estimate: speed/bounds.py).
BOUND_NAMES = {
    "fp32_s": "FP32 peak",
    "dram_s": "compulsory DRAM traffic",
    "latency_s": "one global round trip: an estimate, its latency assumed",
    "tensor_s": "dense TF32 tensor peak",
}
# Where a published run beats the card's TF32 figure (pysim.speed.tensor_roof_beaten_by), the bound cell says so.
BEATEN = "at the rated clock; not a bound on this card: a published cuBLAS TF32 run is faster"
LIMITER_MARK = "◀ limiter"


def limiter_name(report: SpeedReport) -> str:
    """The limiter as the page names it, labelled where its time rests on an unverified rule (wavefronts.py)."""
    name = UNIT_NAMES[report.limiter]
    return f"{name[:-1]}; {BANK_RULE})" if report.limiter_unverified else name


@lru_cache(maxsize=64)
def report_for(kernel: str, params: Params) -> SpeedReport | str:
    try:
        return estimate_from(kernel, profile_for(kernel, params), params.device)  # one build for report and why
    except ParamError as error:
        return error.message


def speed(rung: Rung) -> SpeedReport | None:
    """The speed model's report of a rung, or None when it cannot run or cannot launch on the device."""
    if rung.params is None:
        return None
    report = report_for(rung.kernel, rung.params)
    return report if isinstance(report, SpeedReport) else None


def launch_failure(rung: Rung) -> str:
    """Why the speed model cannot launch a rung that counts (a ParamError message), or ''."""
    report = report_for(rung.kernel, rung.params) if rung.params is not None else ""
    return report if isinstance(report, str) else ""


@lru_cache(maxsize=64)
def profile_for(kernel: str, params: Params) -> KernelProfile:
    return profile(kernel, params)


def flops_text(flops: int, seconds: float) -> str:
    """'21,779 GFLOP/s'."""
    return rate_text(flops / seconds)


def rate_text(flop_per_s: float) -> str:
    """'21,779 GFLOP/s'; below 1 GFLOP/s (a tiny N) in the unit that shows it, '643 kFLOP/s', never '0 GFLOP/s'."""
    return f"{flop_per_s / 1e9:,.0f} GFLOP/s" if flop_per_s >= 1e9 else format_flops(flop_per_s)


def binding_bound(report: SpeedReport) -> tuple[float, str]:
    """The largest lower bound, in seconds, and which one it is (a key of BOUND_NAMES)."""
    found = {name: getattr(report.bounds, name) for name in BOUND_NAMES}
    bounds = {name: seconds for name, seconds in found.items() if seconds is not None}  # tensor_s: mma only
    name = max(bounds, key=bounds.__getitem__)
    return bounds[name], name


def _flops(rung: Rung) -> int:
    p = rung.params
    assert p is not None
    return 2 * p.M * p.N * p.K


def _estimate_cell(rung: Rung) -> Cell:
    report = speed(rung)
    if report is None:
        failure = launch_failure(rung)
        return Cell(f"{'No estimate' if NO_TENSOR_RATE in failure else 'Cannot launch'}: {failure}")
    text = f"{format_seconds(report.estimate_s)}, {rate_text(report.gflops * 1e9)}; limiter: {limiter_name(report)}"
    return Cell(text, format_attribute(report.estimate_s))


def _bound_cell(rung: Rung) -> Cell:
    report = speed(rung)
    if report is None:
        return Cell("—")
    seconds, name = binding_bound(report)
    what = BOUND_NAMES[name]
    if name == "tensor_s" and rung.params is not None and tensor_roof_beaten_by(rung.params.device) is not None:
        what = f"{what} {BEATEN}"
    return Cell(f"{format_seconds(seconds)}, ≤ {flops_text(_flops(rung), seconds)} ({what})", format_attribute(seconds))


def measurement(rung: Rung) -> tuple[float, str] | None:
    """The published GFLOP/s shown for a rung that is one of siboehm's kernels, and how it was measured."""
    found = evidence(rung)
    return None if found is None else (found.gflops, found.note)


def measured_here(rung: Rung) -> Evidence | None:
    """The published measurement of this very run (its card, N and tile); None where none applies."""
    found = evidence(rung)
    return found if found is not None and found.applies else None


def _measured_cell(rung: Rung) -> Cell:
    found = evidence(rung)
    if found is None:
        return Cell("")
    report = speed(rung)
    # Where the run is of this very card, size and tile, how far the estimate lands from it: the model's error.
    ratio = f"; estimate ÷ measured {report.gflops / found.gflops:.2f}" if found.applies and report else ""
    return Cell(f"{found.gflops:,.1f} GFLOP/s{ratio} ({found.note})", repr(found.gflops))


# Per limiting unit: each (what is counted per FMA, KernelProfile -> that count for the whole run) its time is made of.
PER_FMA: dict[str, tuple[tuple[str, Callable[[KernelProfile], float]], ...]] = {
    "issue": (("warp instructions per FMA", lambda prof: prof.instructions),),
    "l1tex": (
        ("shared-memory wavefronts per FMA", lambda prof: prof.shared_wavefronts),
        (GLOBAL_WAVEFRONTS, lambda prof: prof.global_wavefronts),
    ),
    "fp32": (("FFMA warp instructions per FMA", lambda prof: prof.ffma),),
    # a warp's HGMMA does BN/8 m16n8k8's worth (KernelProfile.mma_size): counted in m16n8k8's so the product holds
    "tensor": (("tensor-core work per FMA, in mma.m16n8k8 instructions", lambda prof: prof.mma * prof.mma_size),),
}
