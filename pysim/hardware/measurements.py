"""Published measurements of siboehm's kernels: GFLOP/s per kernel, the card, the size and the source.

One run per table, typed from the README at the commit cited. A run is *calibration* when the speed model's
fitted constants were solved on it (speed_figures.GA102_FIT: issue efficiency on kernel 10, the round latency
on kernel 2, p on the whole table), so the model agrees with it by construction; every other run is
*out-of-sample*: nothing was fitted to it, and how far the estimate lands from it is the model's real error
(issue 42 item 6). `preset` is the device preset the run is drawn on; `card_note` says how the card measured
differs from that preset, where it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from .sources import SIBOEHM_README

# A fork of siboehm/SGEMM_CUDA run on an A100-PCIE-40GB (its README quotes deviceQuery: 108 SMs, 1410 MHz).
A100_PCIE_README = "https://github.com/vlejd/MASK_SGEMM_CUDA/blob/2c06681da4b33c8e68d982251bb6f62ee85d8b9e/README.md"


@dataclass(frozen=True)
class Run:
    """One published table: who ran it, on which card, at which size, and its GFLOP/s per kernel number."""

    who: str
    card: str
    preset: str  # the pysim.hardware.devices key the run is drawn on
    size: int  # M = N = K
    source: str
    calibration: bool  # the model's fitted constants were solved on this run
    gflops: tuple[tuple[int, float], ...]  # (siboehm's kernel number, GFLOP/s); 0 is cuBLAS
    card_note: str = ""  # how the card differs from the preset's, where it does

    @property
    def cite(self) -> str:
        """The source in a few words: 'github.com/owner/repo at 60cba6f' (its README at that commit)."""
        host, owner, repo, _, commit = self.source.removeprefix("https://").split("/")[:5]
        return f"{host}/{owner}/{repo} at {commit[:7]}"

    @property
    def role(self) -> str:
        return "calibration" if self.calibration else "out-of-sample"

    def of(self, number: int) -> float | None:
        """The GFLOP/s of kernel `number` in this run; None where the table has no row for it."""
        return dict(self.gflops).get(number)


RUNS = (
    Run(
        who="siboehm",
        card="NVIDIA RTX A6000",
        preset="rtxa6000",
        size=4096,
        source=SIBOEHM_README,
        calibration=True,
        # 50 back-to-back launches between two CUDA events; alpha = 0.5, beta = 3.0, so C is read.
        gflops=(
            (1, 309.0),
            (2, 1986.5),
            (3, 2980.3),
            (4, 8474.7),
            (5, 15971.7),
            (6, 18237.3),
            (7, 16213.4),
            (8, 16459.2),
            (9, 19721.0),
            (10, 21779.3),
            (11, 17278.3),
            (0, 23249.6),
        ),
    ),
    Run(
        who="vlejd's fork",
        card="NVIDIA A100-PCIE-40GB",
        preset="a100",
        size=4096,
        source=A100_PCIE_README,
        calibration=False,
        # siboehm's runner and kernels; his kernel 11 (double buffering) is not TileLab's pipelined rung.
        gflops=((1, 290.7), (2, 3006.9), (3, 4859.7), (4, 9260.8), (5, 12276.0), (6, 13033.9), (10, 13462.2)),
        card_note="the PCIe card (250 W), not the preset's SXM4 (400 W): same chip, SMs and rated clock",
    ),
)
CALIBRATION = next(run for run in RUNS if run.calibration)


def runs_on(preset: str, size: int) -> tuple[Run, ...]:
    """The runs drawn on a device preset at M = N = K = size."""
    return tuple(run for run in RUNS if run.preset == preset and run.size == size)
