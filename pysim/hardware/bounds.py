"""Roofline time bounds: how fast a kernel run *could* go on a device, never how fast it goes.

A run does 2·fma FLOPs and moves some bytes through DRAM. It cannot finish before
the device's FP32 units have done the FLOPs at peak, nor before DRAM has moved
the bytes at peak bandwidth, so

    time ≥ max(FLOPs / FP32 peak, DRAM bytes / DRAM bandwidth)      (the roofline)

How many bytes reach DRAM depends on the caches, which the simulator does not
model, so two estimates bracket it:

- *cache-perfect*: A and B read once, C written once: 4·(M·K + K·N + M·N) bytes.
  No correct SGEMM moves less.
- *no reuse*: every global load and store goes to DRAM: 4·(loads + stores) bytes.
  Counted in 4-byte words; a real DRAM access moves whole 32-byte sectors, so a
  badly coalesced kernel can move more still.

Both are lower bounds on time for their traffic: real kernels also pay latency,
occupancy limits and instruction overhead. FLOPs include the multiply-adds on
zero-filled padding (they run). Counts are exact Python ints; the comparison
that decides compute- vs memory-bound is exact (Fractions), seconds are floats.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from fractions import Fraction

from ..core.constants import WORD_BYTES
from ..core.counters import Counters
from .devices import Device

CAVEAT = (
    "A bound, not a prediction: a real kernel also pays latency, occupancy limits and instruction "
    "overhead, so it takes longer."
)
COMPUTE = "compute"
MEMORY = "memory"


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


def format_bytes(count: int) -> str:
    """Decimal units, like the bandwidths they are divided by: 201,326,592 -> '201 MB'."""
    if count < 1000:
        return f"{count} B"
    value = float(f"{count:.3g}")
    for scale, unit in ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "KB")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_intensity(flop_per_byte: float) -> str:
    if flop_per_byte == float("inf"):
        return "∞ FLOP/byte"
    return f"{flop_per_byte:.3g} FLOP/byte"


# --- the bounds ------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """One estimate of DRAM traffic and the roofline lower bound on time it gives (a bound, not a prediction)."""

    name: str  # "cache-perfect" | "no reuse"
    assumption: str  # what the traffic estimate assumes, in words
    flops: int
    dram_bytes: int  # estimated, see the module docstring
    compute_seconds: float  # flops / FP32 peak
    memory_seconds: float  # dram_bytes / DRAM bandwidth
    seconds: float  # the bound: the larger of the two
    intensity: float  # FLOP per estimated DRAM byte (inf when no bytes)
    bound_by: str  # COMPUTE or MEMORY: which roof sets the bound

    def describe(self) -> str:
        """'1.23 ms (cache-perfect: A and B read once, C written once)'."""
        return f"{format_seconds(self.seconds)} ({self.name}: {self.assumption})"


def _estimate(device: Device, name: str, assumption: str, flops: int, dram_bytes: int) -> Estimate:
    compute = Fraction(flops) / device.flops_per_second
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
    """Lower bounds on a run's time on one device, under the two traffic estimates (bounds, not predictions)."""

    device: Device
    M: int
    N: int
    K: int
    fma: int
    global_loads: int
    global_stores: int
    cache_perfect: Estimate
    no_reuse: Estimate
    ridge_point: float  # FLOP per DRAM byte where the device's bandwidth slope meets its FP32 roof

    @property
    def flops(self) -> int:
        return 2 * self.fma

    @property
    def low_seconds(self) -> float:
        """The smaller bound (cache-perfect for any kernel that loads A and B at least once)."""
        return min(self.cache_perfect.seconds, self.no_reuse.seconds)

    @property
    def high_seconds(self) -> float:
        return max(self.cache_perfect.seconds, self.no_reuse.seconds)

    def summary(self) -> str:
        """'Time bound on <device>: between X (cache-perfect: …) and Y (no reuse: …).'"""
        low, high = sorted((self.cache_perfect, self.no_reuse), key=lambda e: e.seconds)
        return f"Time bound on the {self.device.name}: between {low.describe()} and {high.describe()}."

    def regime(self) -> str:
        """Which roof binds under each estimate, with the intensities against the ridge point."""
        ridge = format_intensity(self.ridge_point)
        perfect, none = self.cache_perfect, self.no_reuse
        if perfect.bound_by == none.bound_by == COMPUTE:
            return (
                f"Compute-bound under both estimates: even with no reuse it does "
                f"{format_intensity(none.intensity)}, at or above the ridge point of {ridge}."
            )
        if perfect.bound_by == none.bound_by == MEMORY:
            return (
                f"Memory-bound under both estimates: even cache-perfect it does "
                f"{format_intensity(perfect.intensity)}, below the ridge point of {ridge}."
            )
        return (
            f"{self._side(perfect)} if caches are perfect ({format_intensity(perfect.intensity)}); "
            f"{self._side(none).lower()} with no reuse ({format_intensity(none.intensity)}); "
            f"the ridge point is {ridge}, so reuse decides which roof binds."
        )

    @staticmethod
    def _side(estimate: Estimate) -> str:
        return "Compute-bound" if estimate.bound_by == COMPUTE else "Memory-bound"

    def describe(self) -> str:
        """The whole statement a view prints: bounds, regime, and that it is a bound."""
        return f"{self.summary()} {self.regime()} {CAVEAT}"


def _count(name: str, value: int, low: int) -> int:
    number = operator.index(value)  # accepts NumPy integers, refuses floats
    if number < low:
        raise ValueError(f"{name} must be at least {low} (got {number})")
    return int(number)


def time_bound(device: Device, fma: int, global_loads: int, global_stores: int, M: int, N: int, K: int) -> TimeBound:
    """Roofline lower bounds on the time of a run with these counts, on `device`."""
    fma, global_loads, global_stores = (
        _count(name, value, 0)
        for name, value in (("fma", fma), ("global_loads", global_loads), ("global_stores", global_stores))
    )
    M, N, K = (_count(name, value, 1) for name, value in (("M", M), ("N", N), ("K", K)))
    flops = 2 * fma
    perfect_bytes = WORD_BYTES * (M * K + K * N + M * N)
    no_reuse_bytes = WORD_BYTES * (global_loads + global_stores)
    return TimeBound(
        device=device,
        M=M,
        N=N,
        K=K,
        fma=fma,
        global_loads=global_loads,
        global_stores=global_stores,
        cache_perfect=_estimate(device, "cache-perfect", "A and B read once, C written once", flops, perfect_bytes),
        no_reuse=_estimate(device, "no reuse", "every global load and store from DRAM", flops, no_reuse_bytes),
        ridge_point=float(device.ridge_point),
    )


def time_bound_for(device: Device, counters: Counters, M: int, N: int, K: int) -> TimeBound:
    """`time_bound` from a kernel's counters (fma, global_loads, global_stores)."""
    return time_bound(device, counters.fma, counters.global_loads, counters.global_stores, M, N, K)
