"""How fast a run can go, and how fast the model says it goes: the one place views and lessons ask.

`estimate(kernel, params, device_key)` -> SpeedReport (SPEC §6): `estimate_s` is a *model
estimate* (model.py says what is fitted, modelled, sourced); its `bounds` are lower bounds at the
device's rated boost clock (bounds.py: no run at that clock is faster; the round trip an estimate). `time_bound_for`
gives the same bound from a kernel's counters, with the words a page says about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..hardware.devices import DEVICES, KIB, Device
from ..hardware.params import ParamError
from .bounds import (
    CAVEAT,
    COMPUTE,
    LATENCY,
    MEMORY,
    TENSOR,
    Bounds,
    TimeBound,
    compulsory_bytes,
    format_attribute,
    format_bytes,
    format_flops,
    format_intensity,
    format_seconds,
    latency_floor,
    lower_bounds,
    tensor_roof_beaten_by,
    time_bound,
    time_bound_for,
)
from .measured import Measured, measured
from .mma import mma
from .model import L1TEX, L1TEX_PARTS, KernelProfile, Machine, charged, resident_blocks, unit_times
from .pipelined import pipelined
from .profiles import BUILDERS as SIBOEHM_BUILDERS
from .wgmma import wgmma

__all__ = [
    "BUILDERS",
    "CAVEAT",
    "COMPUTE",
    "LATENCY",
    "MEMORY",
    "NO_TENSOR_RATE",
    "TENSOR",
    "BANK_RULE",
    "Bounds",
    "Measured",
    "Occupancy",
    "SpeedReport",
    "TimeBound",
    "UnitTime",
    "estimate",
    "estimate_from",
    "format_attribute",
    "format_bytes",
    "format_flops",
    "format_intensity",
    "format_seconds",
    "latency_floor",
    "tensor_roof_beaten_by",
    "measured",
    "profile",
    "time_bound",
    "time_bound_for",
]

# Every kernel the model prices: siboehm's (profiles.py) and the rungs past his ladder, each in its own module.
BUILDERS: dict[str, Callable[..., KernelProfile]] = {
    **SIBOEHM_BUILDERS,
    "pipelined": pipelined,
    "mma": mma,
    "wgmma": wgmma,
}

# The parameter a launch failure is blamed on: the one that sets threads / shared memory per block.
_THREADS_PARAM = {
    "naive": "T",
    "smem": "T",
    "warptile": "threads",
    "pipelined": "threads",
    "mma": "WM",
    "wgmma": "consumers",
}
_SHARED_PARAM = {"naive": "T", "smem": "T", "pipelined": "stages", "mma": "stages", "wgmma": "stages"}


@dataclass(frozen=True)
class UnitTime:
    seconds: float
    share: float  # seconds / estimate_s: the fraction of the unit's peak the estimate uses


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int


# The words of the refusal to estimate a tensor-core kernel on a card without a TF32 figure (it can launch there).
NO_TENSOR_RATE = "no dense TF32 tensor-core rate"

# What a figure resting on the bank rule for global loads (wavefronts.py: modelled, unverified) says of it.
BANK_RULE = "modelled, unverified: shared memory's bank rule applied to global loads"


@dataclass(frozen=True)
class SpeedReport:
    estimate_s: float
    gflops: float
    limiter: str  # the busiest unit the model charges (model.charged): shared and global wavefronts as one L1TEX
    next_limiter: str
    l1_bank_share: float  # of the l1 part's wavefronts, the share the bank rule for global loads adds
    units: dict[str, UnitTime]  # SPEC §6: the L1TEX unit's two parts apart ("shared", "l1")
    bounds: Bounds
    occupancy: Occupancy

    def unit(self, name: str) -> UnitTime:
        """One charged unit's time (model.charged): a key of `units`, or L1TEX, the sum of its two parts."""
        parts = L1TEX_PARTS if name == L1TEX else (name,)
        seconds = sum(self.units[part].seconds for part in parts if part in self.units)  # absent: idle (tensor)
        return UnitTime(seconds, seconds / self.estimate_s)

    @property
    def limiter_unverified(self) -> bool:
        """The limiter rests on the bank rule for global loads (wavefronts.py: modelled, unverified): L1TEX limits,
        and without the wavefronts the rule adds another unit would limit, or L1TEX's time would halve."""
        if self.limiter != L1TEX or self.l1_bank_share == 0:
            return False
        total = self.unit(L1TEX).seconds
        without = total - self.units["l1"].seconds * self.l1_bank_share
        return without < max(self.unit(self.next_limiter).seconds, total / 2)


def _launchable(kernel: str, prof: KernelProfile, device: Device) -> None:
    """Raise ParamError naming the parameter when the device cannot launch one block."""
    if prof.threads > device.thread_limit:
        name = _THREADS_PARAM.get(kernel, "TM")
        raise ParamError(name, f"{prof.threads:,} threads per block; the {device.name} allows {device.thread_limit:,}")
    optin = int(device.shared_per_block_optin.value) * KIB
    if prof.shared_bytes > optin:
        name = _SHARED_PARAM.get(kernel, "BK")
        raise ParamError(
            name, f"{prof.shared_bytes:,} bytes of shared memory per block; the {device.name} allows {optin:,}"
        )
    if prof.mma and device.tf32_tensor is None:
        priced = ", ".join(key for key, known in DEVICES.items() if known.tf32_tensor is not None)
        raise ParamError(
            "device",
            f"device: {NO_TENSOR_RATE} of the {device.name} was found in NVIDIA's datasheets or whitepapers, so the "
            f"speed model cannot price its mma.sync; it prices the tensor pipe on {priced}",
        )
    if resident_blocks(Machine.of(device), prof) < 1:
        raise ParamError("TM", f"a block of {prof.threads} threads at {prof.registers} registers does not fit one SM")


def _known_device(device_key: str) -> None:
    if device_key not in DEVICES:
        raise ParamError("device", f"device must be one of {', '.join(DEVICES)} (got {device_key!r})")


def profile(kernel: str, params: Any) -> KernelProfile:
    """The counts the model prices for one run of `kernel` (ParamError for a kernel it has no profile of)."""
    if kernel not in BUILDERS:
        raise ParamError("kernel", f"kernel must be one of {', '.join(BUILDERS)} (got {kernel!r})")
    return BUILDERS[kernel](params)


def estimate(kernel: str, params: Any, device_key: str) -> SpeedReport:
    """The model's estimate of one run of `kernel` with `params` on the device `device_key`."""
    return estimate_from(kernel, profile(kernel, params), device_key)


def estimate_from(kernel: str, prof: KernelProfile, device_key: str) -> SpeedReport:
    """`estimate` from the kernel's profile, built already (the ladder's page reads it for its "why" too)."""
    _known_device(device_key)
    device = DEVICES[device_key]
    _launchable(kernel, prof, device)
    times = unit_times(Machine.of(device), prof)
    dram = compulsory_bytes(prof.M, prof.N, prof.K)
    # A tensor-core kernel does its multiply-adds on the tensor cores: no FLOPs on the FP32 units.
    floor = lower_bounds(device, 0, dram, prof.tensor_flops) if prof.mma else lower_bounds(device, prof.flops, dram)
    seconds = max(times.combined_s, floor.seconds)
    busy = charged(times.seconds)
    ranked = sorted(busy, key=busy.__getitem__, reverse=True)
    return SpeedReport(
        estimate_s=seconds,
        gflops=prof.flops / seconds / 1e9,
        limiter=ranked[0],
        next_limiter=ranked[1],
        l1_bank_share=prof.global_bank_wavefronts / prof.global_wavefronts if prof.global_wavefronts else 0.0,
        units={name: UnitTime(t, t / seconds) for name, t in times.seconds.items()},
        bounds=floor,
        occupancy=Occupancy(times.blocks_per_sm, times.blocks_per_sm * prof.warps_per_block),
    )
