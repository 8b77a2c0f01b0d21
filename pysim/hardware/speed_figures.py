"""The speed model's figures per device (what pysim/speed needs beyond the facts table), each with its source.

`Figure` is one number with where it comes from; `Fitted` a constant solved so the model reproduces a
measurement. `speed_figures` builds a preset's SpeedFigures: the rated boost clock the bounds use, and the sustained
clock the estimates use (issue 42 item 5: a card under a long SGEMM runs below its rated clock, a T4 far below).
"""

from __future__ import annotations

from dataclasses import dataclass

from .sources import ASSUMED, CUDA_GUIDE, GA102_WHITEPAPER, L1_RETURN_RATE, NSIGHT_L1TEX, SIBOEHM_README


@dataclass(frozen=True)
class Figure:
    """One number with where it comes from, and a second opinion or context where needed."""

    value: float
    source: str
    alternative: str = ""

    @property
    def assumed(self) -> bool:
        """A modelled assumption: no source states this number."""
        return self.source == ASSUMED


@dataclass(frozen=True)
class Fitted:
    """A constant solved so the model reproduces a measurement: what it was fitted to, on which card."""

    value: float
    fitted_to: str


@dataclass(frozen=True)
class SpeedFigures:
    """What the speed model (pysim/speed) needs beyond the facts table. `alternative` marks modelled values."""

    sm_count: Figure
    boost_clock_mhz: Figure  # the *rated* boost clock; under load a card can run below it, or above (fp32_note)
    sustained_clock_mhz: Figure  # the clock the estimates run at: what a card holds under a long SGEMM (issue 42, 5)
    fp32_lanes_per_sm: Figure
    schedulers_per_sm: Figure  # warp instructions issued per clock per SM, nominal
    l1_bytes_per_clock: Figure  # L1TEX return rate per SM (shared and global alike): one 128 B wavefront per clock
    l2_bandwidth: Figure  # GB/s
    registers_per_sm: Figure
    max_warps_per_sm: Figure
    max_blocks_per_sm: Figure
    shared_reserved_per_block: Figure  # bytes the system keeps per resident block
    launch_overhead_us: Figure
    issue_efficiency: Fitted
    round_latency_cycles: Fitted
    overlap_p: Fitted


# At most three fitted constants per architecture; only GA102 (RTX A6000) is calibrated.
GA102_FIT = (
    Fitted(0.6875, f"siboehm's kernel 10 on the RTX A6000 at 4096³, 21779.3 GFLOP/s ({SIBOEHM_README})"),
    Fitted(573.7, f"siboehm's kernel 2 on the RTX A6000 at 4096³, 1986.5 GFLOP/s ({SIBOEHM_README})"),
    Fitted(4.0, "worst ratio over siboehm's kernels 1-6 and 10 on the RTX A6000, grid of p, the other two re-solved"),
)
PLACEHOLDER = "placeholder, not calibrated on this device: GA102's value, fitted to "
MODELLED = "modelled: no published figure found"


def _fit(calibrated: bool) -> dict[str, Fitted]:
    names = ("issue_efficiency", "round_latency_cycles", "overlap_p")
    return {
        name: fit if calibrated else Fitted(fit.value, PLACEHOLDER + fit.fitted_to)
        for name, fit in zip(names, GA102_FIT)
    }


def rated_clocks(rated: Figure, why: str) -> tuple[Figure, Figure]:
    """The rated boost clock, and a sustained clock taken equal to it (a modelled assumption), saying why."""
    return rated, Figure(rated.value, ASSUMED, f"modelled: taken equal to the rated boost clock; {why}")


def speed_figures(
    sms: Figure,
    clock: tuple[Figure, Figure],
    lanes: Figure,
    warps: Figure,
    blocks: Figure,
    l2: Figure,
    calibrated: bool = False,
) -> SpeedFigures:
    # Shared by every preset: 4 schedulers and a 64 K-register file per SM (GA102 whitepaper; the same
    # on GA100, GH100, TU104, AD102), 128 B/clk L1TEX return, 1 KB reserved per block (cc >= 8.0).
    rated, sustained = clock
    return SpeedFigures(
        sm_count=sms,
        boost_clock_mhz=rated,
        sustained_clock_mhz=sustained,
        fp32_lanes_per_sm=lanes,
        schedulers_per_sm=Figure(4, GA102_WHITEPAPER, "one warp scheduler per SM partition, four partitions"),
        l1_bytes_per_clock=Figure(
            128,
            L1_RETURN_RATE,
            f"stated for cc 7.0-7.5, assumed unchanged later; one L1TEX data path for shared and global ({NSIGHT_L1TEX})",
        ),
        l2_bandwidth=l2,
        registers_per_sm=Figure(65536, GA102_WHITEPAPER, "a 64 KB register file per partition, 256 KB per SM"),
        max_warps_per_sm=warps,
        max_blocks_per_sm=blocks,
        shared_reserved_per_block=Figure(1024, CUDA_GUIDE, "1 KB system reservation per block"),
        launch_overhead_us=Figure(
            1,
            ASSUMED,
            "modelled: the time a run gains per launch when many are timed back to back between two events "
            "(siboehm's 50): the CPU's few-µs launch cost overlaps the kernel before it, so only the GPU's gap "
            "between kernels remains; no published figure for it was found",
        ),
        **_fit(calibrated),
    )


def assumed_l2(gbs: float, measured: str = "") -> Figure:
    """The L2 bandwidth the model assumes, GB/s: NVIDIA publishes none; a measured figure beside it where found."""
    beside = measured or "no measured figure found for this card"
    return Figure(gbs, ASSUMED, f"{MODELLED}; never the limiter of the calibrated kernels; {beside}")
