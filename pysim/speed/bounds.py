"""Time bounds: how fast a kernel run *could* go on a device, never how fast it goes.

A run does 2·fma FLOPs and must move its data through DRAM, so it cannot finish before
the FP32 units have done the FLOPs at peak, nor before DRAM has moved the *compulsory*
(cache-perfect) traffic at peak bandwidth, nor before one global-memory round trip (a
result cannot be stored before its inputs have been loaded):

    time ≥ max(FLOPs / FP32 peak, cache-perfect bytes / DRAM bandwidth, one global round trip)

For an SGEMM the cache-perfect traffic is A and B read once and C written once,
4·(M·K + K·N + M·N) bytes: no correct SGEMM moves less (it loads every element of A and
B and stores every element of C, so its own loads and stores are at least that). A
kernel whose loads and stores are fewer (the transpose: each element loaded once and
stored once, no FMAs) is not an SGEMM; its compulsory traffic is the words it moves,
4·(loads + stores) bytes.

That is the *bound* (docs/GLOSSARY.md), and what it assumes (issue 42 item 4): the FP32 peak is
the vendor's, at the rated boost clock, so no run *at that clock* is faster; a card whose clock runs
higher beats the FP32 part by the ratio (GPU Boost takes GeForce cards past it: a stock RTX 4090 ran
at 2,730 MHz under load against its rated 2,520, RTX4090_STOCK_CLOCK). The round trip uses the device's
global latency, an assumed figure on every preset (pysim/hardware/devices.py: no source states it), so
where it is the largest of the three the text calls it an estimate of the floor, not a bound.
`lower_bounds` computes all three, for a stepping view's counters (`time_bound`) and for the speed
model's estimate (pysim.speed.estimate) alike, so the page's figure and the floor under its estimate
are one.

The *no-reuse* figure is not a bound: every global load and store going to DRAM,
4·(loads + stores) bytes. It is an estimate of traffic with no cache reuse, which the
L1 and L2 caches make pessimistic (real kernels beat the time it would imply), so it is
reported in bytes and intensity, never as a time.

FLOPs include the multiply-adds on zero-filled padding (they run). Counts are exact
Python ints; the comparison that decides compute- vs memory-limited is exact
(Fractions), seconds are floats.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from fractions import Fraction

from ..core.constants import WORD_BYTES
from ..core.counters import Counters
from ..hardware.devices import DEVICES, RTX4090_STOCK_CLOCK, Device
from ..hardware.measurements import TF32_CUBLAS, Cublas

CAVEAT = (
    "A bound at the card's rated boost clock, not a prediction: no run at that clock is faster. A real kernel also "
    "pays for latency it cannot hide, occupancy limits and instruction overhead, so it takes longer. A card that "
    "clocks higher beats the FP32 part by as much (GPU Boost can: a stock RTX 4090 ran at 2,730 MHz under load, "
    f"rated 2,520; {RTX4090_STOCK_CLOCK}); a lower clock under load only slows a run."
)
COMPUTE = "compute"
MEMORY = "memory"
LATENCY = "latency"
TENSOR = "tensor"
# What sets the bound, in words (pysim.lessons.ladder.BOUND_NAMES names the same).
SET_BY = {
    COMPUTE: "the FP32 peak",
    MEMORY: "compulsory DRAM traffic",
    LATENCY: "one global-memory round trip",
    TENSOR: "the dense TF32 tensor peak",
}


# --- formatting (so views never do arithmetic on numbers they print) ------------
def format_seconds(seconds: float) -> str:
    """3 significant digits in s, ms, µs or ns: 0.00123 -> '1.23 ms'."""
    if seconds == 0:
        return "0 s"
    rounded = float(f"{seconds:.3g}")  # round first, so 0.0009996 s becomes '1 ms', not '1e+03 µs'
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if rounded >= scale or unit == "ns":
            value = rounded / scale
            return f"{value:,.0f} {unit}" if value >= 1000 else f"{value:.3g} {unit}"
    raise AssertionError("unreachable")


def format_attribute(value: float) -> str:
    """A modelled figure as a page's machine-readable attribute, to 12 significant digits: Pyodide's libm may
    round a `pow` one bit apart from the build's CPython, and the build's pre-render must equal the browser's
    view (tests/browser/test_prerender.py)."""
    return f"{value:.12g}"


def format_bytes(count: int) -> str:
    """Decimal units, like the bandwidths they are divided by: 201,326,592 -> '201 MB'."""
    if count < 1000:
        return f"{count} B"
    value = float(f"{count:.3g}")
    for scale, unit in ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "KB")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_flops(value: float) -> str:
    """'19.5 TFLOP/s', '389 GFLOP/s'; '1 PFLOP/s' (a roofline's axis above a tensor roof)."""
    value = float(f"{value:.3g}")  # rounded first, so 999.9 TFLOP/s prints as 1 PFLOP/s, never '1e+03 TFLOP/s'
    for scale, unit in ((1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"), (1e3, "kFLOP/s")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} FLOP/s"


def format_intensity(flop_per_byte: float) -> str:
    if flop_per_byte == float("inf"):
        return "∞ FLOP/byte"
    rounded = float(f"{flop_per_byte:.3g}")
    return f"{rounded:,.0f} FLOP/byte" if rounded >= 1000 else f"{rounded:.3g} FLOP/byte"


# --- the bounds ------------------------------------------------------------------
@dataclass(frozen=True)
class Bounds:
    """Lower bounds on a run's time, seconds, at the device's rated boost clock: no run at that clock is faster than
    fp32_s or dram_s. latency_s rests on an assumed latency (module docstring): an estimate of a floor."""

    fp32_s: float  # the run's FLOPs at the vendor's FP32 peak (at the rated boost clock)
    dram_s: float  # its compulsory DRAM traffic at the DRAM bandwidth
    latency_s: float  # one unloaded global-memory round trip at the rated clock, at the assumed latency
    set_by: str  # COMPUTE, MEMORY, LATENCY or TENSOR: the largest (the roofs compared exactly; a tie is compute)
    # A tensor-core kernel's tensor FLOPs at the vendor's dense TF32 peak (its fp32_s is then its FP32 units' share:
    # none); None for a kernel on the FP32 units. On a card whose published runs beat that peak (the RTX 4090's
    # boost) it is a roof at the rated clock, not a bound: Device.tf32_tensor says so.
    tensor_s: float | None = None

    @property
    def seconds(self) -> float:
        """The bound: the largest of them."""
        return max(self.fp32_s, self.dram_s, self.latency_s, self.tensor_s or 0.0)


def tensor_roof_beaten_by(preset: str) -> Cublas | None:
    """A published cuBLAS TF32 run faster than the preset's dense TF32 figure, or None. The figure is at the rated
    boost clock; a card that clocks higher can beat it (a stock RTX 4090 does), and then it is no bound there."""
    peak = DEVICES[preset].tf32_per_second
    if peak is None:
        return None
    return next((run for run in TF32_CUBLAS if run.preset == preset and run.gflops * 1e9 > peak), None)


def latency_floor(device: Device) -> float:
    """One unloaded global-memory round trip at the rated clock, in seconds, at the device's latency figure."""
    return device.latency_global.value / (device.speed.boost_clock_mhz.value * 1e6)


def compulsory_bytes(M: int, N: int, K: int) -> int:
    """An SGEMM's compulsory DRAM traffic: A and B read once, C written once. No correct SGEMM moves less."""
    return WORD_BYTES * (M * K + K * N + M * N)


def roofline(device: Device, flops: int, dram_bytes: int | float) -> tuple[Fraction, Fraction]:
    """The FLOPs at the FP32 peak and the bytes at the DRAM bandwidth, in seconds, exact."""
    return Fraction(flops) / device.flops_per_second, Fraction(dram_bytes) / device.bytes_per_second


def lower_bounds(device: Device, flops: int, dram_bytes: int | float, tensor_flops: int | None = None) -> Bounds:
    """The bound on a run of `flops` on the FP32 units that must move `dram_bytes` through DRAM (its compulsory
    traffic), and, for a tensor-core kernel, `tensor_flops` on the tensor cores at the dense TF32 peak."""
    compute, memory = roofline(device, flops, dram_bytes)
    latency = latency_floor(device)
    tensor = None
    if tensor_flops is not None:
        peak = device.tf32_per_second
        if peak is None:
            raise ValueError(f"the {device.name} has no TF32 tensor figure")
        tensor = Fraction(tensor_flops) / peak
    roof = max(compute, memory, tensor or 0)
    if latency > float(roof):
        set_by = LATENCY
    else:
        set_by = COMPUTE if compute == roof else TENSOR if tensor == roof else MEMORY
    return Bounds(float(compute), float(memory), latency, set_by, None if tensor is None else float(tensor))


@dataclass(frozen=True)
class Estimate:
    """One estimate of DRAM traffic and the roofline time it implies. Only the cache-perfect one is a bound
    (no kernel moves less); the no-reuse one is an estimate the caches make pessimistic."""

    name: str  # "cache-perfect" | "no reuse"
    assumption: str  # what the traffic estimate assumes, in words
    flops: int
    dram_bytes: int  # estimated, see the module docstring
    compute_seconds: float  # flops / the peak of the units that do them (FP32, or the tensor cores' TF32)
    memory_seconds: float  # dram_bytes / DRAM bandwidth
    seconds: float  # the larger of the two: a bound for cache-perfect traffic only
    intensity: float  # FLOP per estimated DRAM byte (inf when no bytes)
    bound_by: str  # COMPUTE or MEMORY: which roof is the higher under this traffic


def _estimate(
    device: Device, name: str, assumption: str, flops: int, dram_bytes: int, peak: Fraction | None
) -> Estimate:
    """`peak`: of the units that do the FLOPs; None where the card has no figure for them (their time counts 0)."""
    compute = Fraction(flops) / peak if peak else Fraction(0)
    memory = Fraction(dram_bytes) / device.bytes_per_second
    intensity = flops / dram_bytes if dram_bytes else (float("inf") if flops else 0.0)
    return Estimate(
        name=name,
        assumption=assumption,
        flops=flops,
        dram_bytes=dram_bytes,
        compute_seconds=float(compute),
        memory_seconds=float(memory),
        seconds=float(max(compute, memory)),
        intensity=intensity,
        bound_by=COMPUTE if compute >= memory else MEMORY,  # exact; a tie counts as compute-bound
    )


@dataclass(frozen=True)
class TimeBound:
    """The floor on a run's time on one device (`seconds`: a bound at the rated clock unless the latency sets it),
    and the two traffic estimates."""

    device: Device
    M: int
    N: int
    K: int
    fma: int
    global_loads: int
    global_stores: int
    cache_perfect: Estimate  # the units' peak and compulsory DRAM traffic: part of the bound
    no_reuse: Estimate  # every global load and store from DRAM: an estimate, not a bound
    ridge_point: float  # FLOP per DRAM byte where the device's bandwidth slope meets the units' roof
    floor: Bounds  # the cache-perfect roofline and one global round trip: the bound
    # A tensor-core kernel's FLOPs on the tensor cores (None: the FP32 units do them all, 2·fma). Its FLOPs,
    # intensity and ridge point are then the tensor cores', against the dense TF32 peak.
    tensor_flops: int | None = None

    @property
    def flops(self) -> int:
        return 2 * self.fma if self.tensor_flops is None else self.tensor_flops

    @property
    def units(self) -> str:
        """The peak the FLOPs run at, in words."""
        return SET_BY[COMPUTE if self.tensor_flops is None else TENSOR]

    @property
    def latency_seconds(self) -> float:
        """One global-memory round trip at the rated clock: the latency floor."""
        return self.floor.latency_s

    @property
    def seconds(self) -> float:
        """The bound: the larger of the cache-perfect roofline and the latency floor."""
        return self.floor.seconds

    @property
    def bound_by(self) -> str:
        """COMPUTE, MEMORY or LATENCY: what sets the bound."""
        return self.floor.set_by

    @property
    def beaten_by(self) -> Cublas | None:
        """Where the tensor peak sets the figure and a published run beats it: that run (the figure is no bound)."""
        return tensor_roof_beaten_by(self.device.key) if self.bound_by == TENSOR else None

    def heading(self) -> str:
        """What the figure is, as a heading: a bound, or an estimate (the round trip) or a roof (a beaten peak)."""
        if self.bound_by == LATENCY:
            return "Time floor (an estimate)"
        return "Time roof (at the rated boost clock)" if self.beaten_by else "Time bound (at the rated boost clock)"

    def caveat(self) -> str:
        """What a bound at the rated clock means (CAVEAT); nothing where the figure is not a bound."""
        return "" if self.bound_by == LATENCY or self.beaten_by else CAVEAT

    def summary(self) -> str:
        """'Bound on <device> at its rated 1,410 MHz boost clock: 7.05 ms, set by the FP32 peak; no run at that clock
        is faster.' Where the round trip sets it, an estimate: its latency is assumed (module docstring); where a
        published run beats the tensor peak, a roof at the rated clock and no bound."""
        what = SET_BY[self.bound_by]
        if self.bound_by == MEMORY:
            what += f" ({format_bytes(self.cache_perfect.dram_bytes)}: {self.cache_perfect.assumption})"
        if self.bound_by == LATENCY:
            return f"Floor on the {self.device.name}, an estimate: {format_seconds(self.seconds)}, set by {what}."
        clock = f"its rated {self.device.speed.boost_clock_mhz.value:,g} MHz boost clock"
        run = self.beaten_by
        if run is not None:
            return (
                f"Roof on the {self.device.name} at {clock}: {format_seconds(self.seconds)}, set by {what}; not a "
                f"bound on this card: a published cuBLAS TF32 run is faster ({run.gflops:,.0f} GFLOP/s at "
                f"{run.size}³, {run.cite}), as a card that clocks higher than its rated boost can be."
            )
        return (
            f"Bound on the {self.device.name} at {clock}: {format_seconds(self.seconds)}, set by {what}; no run at "
            "that clock is faster."
        )

    def regime(self) -> str:
        """Why that figure sets the bound: the cache-perfect intensity against the ridge point, or the latency."""
        ridge = format_intensity(self.ridge_point)
        intensity = format_intensity(self.cache_perfect.intensity)
        if self.bound_by == LATENCY:
            latency = self.device.latency_global
            where = "a modelled assumption" if latency.assumed else "from its source"
            return (
                f"The run is so small that one global-memory round trip ({latency.value:g} cycles, {where}) outlasts "
                "both its FLOPs at the FP32 peak and its compulsory DRAM traffic at full bandwidth: no result can be "
                "stored before its inputs have been loaded. The latency is not a measured minimum, so this floor is "
                "an estimate, not a bound."
            )
        if self.tensor_flops is not None and self.device.tf32_per_second is None:
            return (
                f"The {self.device.name} has no dense TF32 figure in its sources, so the run's tensor-core FLOPs set "
                "no bound here: its compulsory traffic at full DRAM bandwidth does."
            )
        does = f"Cache-perfect, the run does {intensity}" + (
            "" if self.tensor_flops is None else " on its tensor cores"
        )
        if self.bound_by in (COMPUTE, TENSOR):
            return (
                f"{does}, at or above the ridge point of {ridge}: its FLOPs at {self.units} take longer than its "
                "compulsory traffic at full DRAM bandwidth."
            )
        return (
            f"{does}, below the ridge point of {ridge}: its compulsory traffic at full DRAM bandwidth takes longer "
            f"than its FLOPs at {self.units}."
        )

    def no_reuse_note(self) -> str:
        """The no-reuse traffic, named for what it is (bytes and intensity, no time)."""
        none = self.no_reuse
        return (
            f"With no cache reuse at all, every global load and store would reach DRAM: {format_bytes(none.dram_bytes)} "
            f"({format_intensity(none.intensity)}). That is an estimate of traffic, and a pessimistic one: the L1 and "
            "L2 caches serve many repeated loads before they reach DRAM, so a real kernel can take less time than "
            "moving it would."
        )

    def describe(self) -> str:
        """The whole statement a view prints: the bound, what sets it, and that it is a bound."""
        # CAVEAT speaks of the bound at the rated clock; a floor set by the round trip says what it is in regime().
        return " ".join(part for part in (self.summary(), self.regime(), self.caveat()) if part)


def _count(name: str, value: int, low: int) -> int:
    number = operator.index(value)  # accepts NumPy integers, refuses floats
    if number < low:
        raise ValueError(f"{name} must be at least {low} (got {number})")
    return int(number)


def time_bound(
    device: Device,
    fma: int,
    global_loads: int,
    global_stores: int,
    M: int,
    N: int,
    K: int,
    tensor_flops: int | None = None,
) -> TimeBound:
    """The bound on the time of a run with these counts on `device`, and its two traffic estimates; a tensor-core
    kernel's `tensor_flops` are priced at the dense TF32 peak (its FP32 units do none: fma is 0)."""
    fma, global_loads, global_stores = (
        _count(name, value, 0)
        for name, value in (("fma", fma), ("global_loads", global_loads), ("global_stores", global_stores))
    )
    M, N, K = (_count(name, value, 1) for name, value in (("M", M), ("N", N), ("K", K)))
    peak = device.flops_per_second if tensor_flops is None else device.tf32_per_second
    flops = 2 * fma if tensor_flops is None else _count("tensor_flops", tensor_flops, 0)
    sgemm_bytes = compulsory_bytes(M, N, K)
    no_reuse_bytes = WORD_BYTES * (global_loads + global_stores)
    if no_reuse_bytes < sgemm_bytes:  # fewer words than an SGEMM must move: not an SGEMM (the transpose)
        perfect_bytes, assumption = no_reuse_bytes, "every word it loads or stores moved once"
    else:
        perfect_bytes, assumption = sgemm_bytes, "A and B read once, C written once"
    return TimeBound(
        device=device,
        M=M,
        N=N,
        K=K,
        fma=fma,
        global_loads=global_loads,
        global_stores=global_stores,
        cache_perfect=_estimate(device, "cache-perfect", assumption, flops, perfect_bytes, peak),
        no_reuse=_estimate(device, "no reuse", "every global load and store from DRAM", flops, no_reuse_bytes, peak),
        ridge_point=float(peak / device.bytes_per_second) if peak else float("inf"),
        # With no TF32 figure for the card (the RTX A6000's), the tensor FLOPs set no bound: traffic and latency do.
        floor=lower_bounds(device, 2 * fma, perfect_bytes, tensor_flops if peak else None),
        tensor_flops=tensor_flops,
    )


def time_bound_for(
    device: Device, counters: Counters, M: int, N: int, K: int, tensor_flops: int | None = None
) -> TimeBound:
    """`time_bound` from a kernel's counters (fma, global_loads, global_stores) and, for a tensor-core kernel, the
    FLOPs its tensor instructions execute (the kernel's `tensor_flops`)."""
    return time_bound(device, counters.fma, counters.global_loads, counters.global_stores, M, N, K, tensor_flops)
