"""siboehm/SGEMM_CUDA's measured table, the one the speed model is calibrated on: GFLOP/s at M = N = K = 4096
on an NVIDIA RTX A6000 (pysim.hardware.measurements.CALIBRATION holds it, with the other published runs)."""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.measurements import CALIBRATION

SIZE = CALIBRATION.size
CARD = CALIBRATION.card


@dataclass(frozen=True)
class Measured:
    gflops: float
    card: str
    source: str


def measured(number: int) -> Measured | None:
    """The cited measurement of siboehm's kernel `number` (0: cuBLAS), or None where there is none."""
    gflops = CALIBRATION.of(number)
    return None if gflops is None else Measured(gflops, CARD, CALIBRATION.source)
