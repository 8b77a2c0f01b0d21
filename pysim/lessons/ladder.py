"""The kernel ladder: every kernel side by side at one size N×N×N, and what bounds its time on a device.

The rows are data (`Rung`), counted by the kernels' own closed forms (checked
against traces at small sizes in the tests), so N up to MAX_SIZE costs
milliseconds. Each row carries the CLI command that prints the same counters,
so the table can be checked from a terminal.

Rows, in teaching order:
- naive, `map=col`: threadIdx.x walks C's columns (coalesced loads of B);
- naive, `map=row`: threadIdx.x walks C's rows (every lane loads a different row of A);
- shared-memory tiled with T×T tiles;
- register tiled with the production-like shape BM = BN = 128, BK = 8, TM = TN = 8
  (siboehm's 2D-blocktiling kernel), when the device's rules allow it;
- register tiled with the reader's own BM, BN, BK, TM, TN.

DRAM traffic is not simulated: `pysim.hardware.bounds` brackets it between the
cache-perfect and no-reuse estimates, and this module adds a third figure, the
*sector traffic*: every 32-byte sector a load instruction touches fetched from
DRAM, plus the stored words. It is what a kernel would move with no cache reuse
between instructions, and it is where coalescing shows (naive col and row do the
same element loads, but not the same sectors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from ..core.constants import SECTOR_BYTES, WORD_BYTES
from ..core.counters import Counters
from ..hardware.bounds import TimeBound, format_bytes, format_intensity, format_seconds, time_bound_for
from ..hardware.devices import Device, device
from ..hardware.params import NaiveParams, ParamError, Params, RegisterParams, SmemParams, _device, _int
from ..kernels import KERNELS
from .explain import PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE

PRODUCTION_BK = 8  # siboehm's 2D-blocktiling kernel: BM = BN = 128, BK = 8, TM = TN = 8
# CLI option for each parameter name (pysim.cli OPTIONS, inverted).
CLI_OPTIONS = {"T": "tile", "M": "M", "N": "N", "K": "K", "map": "map", "device": "device"}
CLI_OPTIONS |= {name: name for name in ("BM", "BN", "BK", "TM", "TN")}


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
    params: Params | None
    counters: Counters | None = None
    bound: TimeBound | None = None
    reason: str = ""  # why it cannot run (a ParamError message), when params is None
    cli: tuple[str, ...] = field(default=())

    @property
    def runs(self) -> bool:
        return self.counters is not None

    @property
    def sector_bytes(self) -> int:
        """Sector traffic: every sector a load touches from DRAM, plus the words stored (an estimate)."""
        return SECTOR_BYTES * self.counters.global_sectors + WORD_BYTES * self.counters.global_stores

    @property
    def fma_per_global_byte(self) -> Fraction:
        """Multiply-adds per byte of global loads (4 bytes per element load)."""
        return Fraction(self.counters.fma, WORD_BYTES * self.counters.global_loads)

    @property
    def sector_intensity(self) -> float:
        """FLOP per byte of sector traffic."""
        return 2 * self.counters.fma / self.sector_bytes

    @property
    def sector_seconds(self) -> float:
        """The roofline bound under the sector-traffic estimate."""
        d = self.bound.device
        return float(max(Fraction(2 * self.counters.fma) / d.flops_per_second, self.sector_bytes / d.bytes_per_second))

    def command(self) -> str:
        return "python -m pysim count " + " ".join(self.cli)


def attainable(d: Device, intensity: float) -> float:
    """The roofline: FLOP/s a kernel of this intensity (FLOP per DRAM byte) can reach at most on `d`."""
    return min(float(d.flops_per_second), float(d.bytes_per_second) * intensity)


def _cli(kernel: str, params: Params) -> tuple[str, ...]:
    args = ["--kernel", kernel]
    for name, value in params.as_strings().items():
        args += [f"--{CLI_OPTIONS[name]}", value]
    return tuple(args)


def _rung(key: str, label: str, config: str, kernel: str, build) -> Rung:
    try:
        params = build()
    except ParamError as error:
        return Rung(key, label, config, kernel, None, reason=error.message)
    counters = KERNELS[kernel].counters(params)
    bound = time_bound_for(device(params.device), counters, params.M, params.N, params.K)
    return Rung(key, label, config, kernel, params, counters, bound, cli=_cli(kernel, params))


def production(p: LadderParams) -> RegisterParams:
    b, t = PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE
    return RegisterParams(M=p.N, N=p.N, K=p.N, BM=b, BN=b, BK=PRODUCTION_BK, TM=t, TN=t, device=p.device)


def ladder(p: LadderParams) -> tuple[Rung, ...]:
    """The rows of the ladder at p.N on p.device."""
    N, T, d = p.N, p.T, p.device
    b, t = PRODUCTION_BLOCK_TILE, PRODUCTION_THREAD_TILE
    return (
        _rung(
            "naive-col",
            "Naive, map=col",
            f"{T}×{T} blocks; threadIdx.x walks C's columns (coalesced)",
            "naive",
            lambda: NaiveParams(M=N, N=N, K=N, T=T, map="col", device=d),
        ),
        _rung(
            "naive-row",
            "Naive, map=row",
            f"{T}×{T} blocks; threadIdx.x walks C's rows (strided)",
            "naive",
            lambda: NaiveParams(M=N, N=N, K=N, T=T, map="row", device=d),
        ),
        _rung(
            "smem",
            "Shared-memory tiled",
            f"TILE = {T}",
            "smem",
            lambda: SmemParams(M=N, N=N, K=N, T=T, device=d),
        ),
        _rung(
            "register-production",
            "Register tiled, production-like",
            f"BM = BN = {b}, BK = {PRODUCTION_BK}, TM = TN = {t}",
            "register",
            lambda: production(p),
        ),
        _rung(
            "register-yours",
            "Register tiled, yours",
            f"BM = {p.BM}, BN = {p.BN}, BK = {p.BK}, TM = {p.TM}, TN = {p.TN}",
            "register",
            p.yours,
        ),
    )


# --- what the table and the chart print (views never format a number) --------------
@dataclass(frozen=True)
class Cell:
    """One table cell: the text, and the exact value behind it (an int, or '' when not a count)."""

    text: str
    value: str = ""


COLUMNS = (
    ("global_loads", "Global loads"),
    ("global_sectors", "32-byte sectors"),
    ("dram", "DRAM bytes (estimate: cache-perfect … no reuse)"),
    ("sector_bytes", "Sector traffic (32 B × sectors + stores)"),
    ("shared_loads", "Shared loads"),
    ("bank_extra_cycles", "Bank-conflict cycles"),
    ("fma_per_byte", "FMAs per global byte"),
    ("time", "Time bound (cache-perfect … no reuse)"),
    ("sector_time", "Time bound, sector traffic"),
)


def cells(rung: Rung) -> dict[str, Cell]:
    """The table row of a rung, keyed like COLUMNS."""
    c, bound = rung.counters, rung.bound
    perfect, none = bound.cache_perfect.dram_bytes, bound.no_reuse.dram_bytes
    ratio = rung.fma_per_global_byte
    return {
        "global_loads": Cell(f"{c.global_loads:,}", str(c.global_loads)),
        "global_sectors": Cell(f"{c.global_sectors:,}", str(c.global_sectors)),
        "dram": Cell(f"{format_bytes(perfect)} … {format_bytes(none)}", f"{perfect},{none}"),
        "sector_bytes": Cell(format_bytes(rung.sector_bytes), str(rung.sector_bytes)),
        "shared_loads": Cell(f"{c.shared_loads:,}", str(c.shared_loads)),
        "bank_extra_cycles": Cell(f"{c.bank_extra_cycles:,}", str(c.bank_extra_cycles)),
        "fma_per_byte": Cell(f"{float(ratio):.3g}", f"{ratio.numerator}/{ratio.denominator}"),
        "time": Cell(
            f"{format_seconds(bound.low_seconds)} … {format_seconds(bound.high_seconds)} ({_binds(bound)})",
            f"{bound.low_seconds!r},{bound.high_seconds!r}",
        ),
        "sector_time": Cell(format_seconds(rung.sector_seconds), repr(rung.sector_seconds)),
    }


def _binds(bound: TimeBound) -> str:
    """Which roof binds: the same under both estimates, or reuse decides."""
    sides = {bound.cache_perfect.bound_by, bound.no_reuse.bound_by}
    return f"{sides.pop()}-bound" if len(sides) == 1 else "reuse decides the roof"


@dataclass(frozen=True)
class RooflinePoint:
    """A kernel on the roofline: its intensity interval (no reuse … cache-perfect) and sector-traffic intensity."""

    key: str
    label: str
    low: float  # FLOP per byte, no-reuse estimate
    high: float  # FLOP per byte, cache-perfect estimate
    sector: float  # FLOP per byte, sector-traffic estimate
    low_flops: float  # attainable FLOP/s at each
    high_flops: float
    sector_flops: float

    def describe(self) -> str:
        return (
            f"{self.label}: {format_intensity(self.low)} (no reuse) to {format_intensity(self.high)} "
            f"(cache-perfect), {format_intensity(self.sector)} with sector traffic; at most "
            f"{format_flops(self.low_flops)} to {format_flops(self.high_flops)}"
        )


@dataclass(frozen=True)
class Roofline:
    device: Device
    peak: float  # FLOP/s
    bandwidth: float  # bytes/s
    ridge: float  # FLOP per byte
    points: tuple[RooflinePoint, ...]

    def describe(self) -> str:
        return (
            f"Roofline of the {self.device.name}: FP32 roof {format_flops(self.peak)}, DRAM slope "
            f"{format_bytes(int(self.bandwidth))}/s, ridge point {format_intensity(self.ridge)}."
        )


def format_flops(value: float) -> str:
    """'19.5 TFLOP/s', '389 GFLOP/s'."""
    for scale, unit in ((1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} FLOP/s"


def roofline(p: LadderParams, rungs: tuple[Rung, ...]) -> Roofline:
    d = device(p.device)
    points = []
    for rung in rungs:
        if not rung.runs:
            continue
        low, high = rung.bound.no_reuse.intensity, rung.bound.cache_perfect.intensity
        points.append(
            RooflinePoint(
                rung.key,
                rung.label,
                low,
                high,
                rung.sector_intensity,
                attainable(d, low),
                attainable(d, high),
                attainable(d, rung.sector_intensity),
            )
        )
    return Roofline(d, float(d.flops_per_second), float(d.bytes_per_second), float(d.ridge_point), tuple(points))
