"""siboehm/SGEMM_CUDA's measured table: GFLOP/s at M = N = K = 4096 on an NVIDIA RTX A6000.

Source: the repository README at commit 60cba6f9b20a198116c76f18de8047f44df8c8b8
(50 back-to-back launches between two CUDA events; alpha = 0.5, beta = 3.0, so C is read).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.devices import SIBOEHM_README

SIZE = 4096
CARD = "NVIDIA RTX A6000"


@dataclass(frozen=True)
class Measured:
    gflops: float
    card: str
    source: str


# Kernel number in siboehm's repository -> GFLOP/s; 0 is cuBLAS.
TABLE = {
    1: 309.0,
    2: 1986.5,
    3: 2980.3,
    4: 8474.7,
    5: 15971.7,
    6: 18237.3,
    7: 16213.4,
    8: 16459.2,
    9: 19721.0,
    10: 21779.3,
    11: 17278.3,
    0: 23249.6,
}


def measured(number: int) -> Measured | None:
    """The cited measurement of siboehm's kernel `number` (0: cuBLAS), or None where there is none."""
    gflops = TABLE.get(number)
    return None if gflops is None else Measured(gflops, CARD, SIBOEHM_README)
