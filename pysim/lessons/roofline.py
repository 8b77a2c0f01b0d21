"""The ladder's roofline: each rung at the FLOP per DRAM byte the speed model's cache model leaves and at its
estimated FLOP/s, under the FP32 roof and, on a card with TF32 tensor cores, a second roof: the dense TF32
tensor peak, which only a tensor-core rung (mma) can climb to. The second roof is called a bound only where no
published run on the card beats it (pysim.speed.bounds.tensor_roof_beaten_by); the published cuBLAS TF32
run on the card at the page's N is shown beside it (pysim.hardware.measurements.TF32_CUBLAS)."""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.devices import Device, device
from ..hardware.measurements import Cublas, tf32_cublas
from ..speed import format_bytes, format_flops, format_intensity, tensor_roof_beaten_by
from .ladder import LadderParams, Rung, measured_here, speed


def attainable(d: Device, intensity: float) -> float:
    """The roofline: FLOP/s a kernel of this intensity (FLOP per DRAM byte) can reach at most on `d`."""
    return min(float(d.flops_per_second), float(d.bytes_per_second) * intensity)


@dataclass(frozen=True)
class RooflinePoint:
    """A kernel on the roofline as the speed model sees it: a point on or below the roof."""

    key: str
    label: str
    number: int  # its row in the table, from 1
    intensity: float  # FLOP per DRAM byte: 2MNK over the DRAM bytes the model's L1/L2 cache model leaves
    estimate: float  # the model's FLOP/s, 2MNK / estimate_s
    measured: float | None  # a published FLOP/s of this kernel on this card (preset) at this N and tile
    measured_by: str = ""  # who, which card, N, and calibration or out-of-sample (Evidence.by)

    @property
    def calibration(self) -> bool:
        return self.measured_by.endswith("calibration")

    def describe(self) -> str:
        text = f"{self.label}: {format_intensity(self.intensity)} (cache model); estimate {format_flops(self.estimate)}"
        if self.measured is None:
            return text
        return f"{text}; measured {format_flops(self.measured)} ({self.measured_by})"


@dataclass(frozen=True)
class TensorRoof:
    """The second roof: the card's dense TF32 tensor peak, whether it is a bound, and cuBLAS TF32 beside it."""

    peak: float  # FLOP/s, NVIDIA's dense TF32 figure (at the rated boost clock)
    source: str
    bound: bool  # no published run on this card is faster
    cublas: Cublas | None  # the published cuBLAS TF32 run on this card at the page's N

    def describe(self) -> str:
        roof = f"TF32 tensor roof {format_flops(self.peak)} (dense, NVIDIA's figure)"
        if self.bound:
            roof += ", a bound for the tensor-core rung at the rated clock"
        else:
            roof += ", not a bound on this card: a published cuBLAS TF32 run beats it (the card clocks above its rated boost)"
        return f"{roof}." + (f" {self.cublas.describe()}." if self.cublas is not None else "")


@dataclass(frozen=True)
class Roofline:
    device: Device
    peak: float  # FLOP/s
    bandwidth: float  # bytes/s
    ridge: float  # FLOP per byte
    points: tuple[RooflinePoint, ...]
    tensor: TensorRoof | None = None  # None on a card without a dense TF32 figure (the T4, the RTX A6000)

    def describe(self) -> str:
        text = (
            f"Roofline of the {self.device.name}: FP32 roof {format_flops(self.peak)}, DRAM slope "
            f"{format_bytes(int(self.bandwidth))}/s, ridge point {format_intensity(self.ridge)}."
        )
        return text if self.tensor is None else f"{text} {self.tensor.describe()}"


def tensor_roof(d: Device, size: int) -> TensorRoof | None:
    peak = d.tf32_per_second
    if peak is None or d.tf32_tensor is None:
        return None
    return TensorRoof(float(peak), d.tf32_tensor.source, tensor_roof_beaten_by(d.key) is None, tf32_cublas(d.key, size))


def roofline(p: LadderParams, rungs: tuple[Rung, ...]) -> Roofline:
    d = device(p.device)
    points = []
    for number, rung in enumerate(rungs, 1):
        report = speed(rung)
        if report is None or rung.params is None:
            continue  # cannot run, or cannot launch on the device: the model has no point for it
        flops = 2 * rung.params.M * rung.params.N * rung.params.K
        dram_bytes = report.units["dram"].seconds * float(d.bytes_per_second)
        found = measured_here(rung)
        shown = (None, "") if found is None else (found.gflops * 1e9, found.by)
        points.append(
            RooflinePoint(rung.key, rung.label, number, flops / dram_bytes, flops / report.estimate_s, *shown)
        )
    ridge = float(d.ridge_point)
    return Roofline(d, float(d.flops_per_second), float(d.bytes_per_second), ridge, tuple(points), tensor_roof(d, p.N))
