"""Issue 42 items 5-7: the speed model against published measurements it was not fitted to, and its figures'
sources. Item 5: a sustained clock per preset, with its source, used by the estimates (the bounds keep the rated
clock); the T4 and the A100-PCIe within ×1.3 of what was measured. Item 6 (pysim side): every published run is
one row of pysim.hardware.measurements, marked calibration or out-of-sample. Item 7: one L1TEX unit, L2 figures
labelled as assumptions, launch overhead as back-to-back timing sees it, NVIDIA's documents as sources."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

import pytest

from bench.speed_model import RUNGS, rung_at
from pysim.hardware.devices import DEVICES
from pysim.speed import estimate
from pysim.speed.model import Machine, unit_times

# What issue 42 item 5 cites for cuBLAS SGEMM on a T4 (4096³, a free notebook's card), in GFLOP/s, as the issue
# states it; measurements.CUBLAS_SPANS holds a sourced range for the same card and size (3,800-4,300).
T4_CUBLAS = (4700.0, 5000.0)
WITHIN = 1.3
# Out-of-sample points the estimate misses by more than ×1.3, each with the factor seen: a strict xfail, so a
# model change that brings one within the bound shows as XPASS and the mark must go (the bound is never widened).
# Why each is missed, as far as found, is in pysim/hardware/measurements.py (and on the ladder, beside the number).
MISSES = {
    # Unexplained: its macro bug reads fewer lines than siboehm's kernel (faster, not slower); one cold launch timed.
    ("rtx4090", 4096, 3): "estimate 1.33× annanyapr's 6,592.0 GFLOP/s, kernel 3 on an RTX 4090 (latency-bound)",
    # The T4 at 1024 ran at about half its own 2048 speed in 67-200 ms timed loops: most likely a clock still rising
    # from idle (test_the_t4s_misses_at_1024_follow_the_timed_loop_not_the_kernels_geometry), not priced.
    ("t4", 1024, 3): "estimate 1.78× dmalt's 537.7 GFLOP/s for kernel 3 on a T4 at N=1024 (200 ms loop)",
    ("t4", 1024, 5): "estimate 1.80× dmalt's 1,490.0 GFLOP/s for kernel 5 on a T4 at N=1024 (72 ms loop)",
    ("t4", 1024, 6): "estimate 1.97× dmalt's 1,595.3 GFLOP/s for kernel 6 on a T4 at N=1024 (67 ms loop)",
}
BASE_CLOCK_MHZ = 585  # "SM Frequency 585.00 Mhz": dmalt's Nsight Compute runs on the same card (T4_KERNELS_README)


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
                miss = MISSES.get((run.preset, run.size, number))
                marks = [pytest.mark.xfail(strict=True, reason=miss)] if miss else []
                yield pytest.param(run, number, gflops, id=f"{run.preset}-{run.size}-k{number}", marks=marks)


@pytest.mark.parametrize("run,number,gflops", list(out_of_sample()))
def test_out_of_sample_runs_within_x1_3(run, number, gflops):
    ratio = estimate(*rung_at(number, run.size), run.preset).gflops / gflops
    assert 1 / WITHIN <= ratio <= WITHIN, (run.card, number, round(ratio, 3))


def test_the_misses_named_are_out_of_sample_points_that_exist():
    """A strict xfail for a point no run holds would never run: each miss names a real (card, N, kernel)."""
    points = {(p.values[0].preset, p.values[0].size, p.values[1]) for p in out_of_sample()}
    assert set(MISSES) <= points


def sourced(url: str) -> bool:
    """A README at a commit (not a branch), or an issue thread: GitHub, where the table can be read again."""
    if not url.startswith("https://github.com/"):
        return False
    parts = url.removeprefix("https://github.com/").split("/")
    return (parts[2] == "blob" and len(parts[3]) == 40) or (parts[2] == "issues" and parts[3].isdigit())


def test_runs_are_sourced_and_marked():
    from pysim.hardware.measurements import CALIBRATION, CUBLAS_SPANS, RUNS

    assert CALIBRATION.preset == "rtxa6000" and CALIBRATION.role == "calibration"
    assert any(run.preset == "a100" and run.role == "out-of-sample" for run in RUNS)  # the default device
    for run in RUNS:
        assert sourced(run.source) and run.preset in DEVICES, run.source
    for span in CUBLAS_SPANS:
        assert sourced(span.source) and span.preset in DEVICES and 0 < span.low <= span.high


def test_every_preset_but_the_h200_has_an_out_of_sample_measurement():
    """The cards whose published tables were found; no table of siboehm's kernels on an H200 was."""
    from pysim.hardware.measurements import CUBLAS_SPANS, RUNS

    measured = {run.preset for run in RUNS if not run.calibration} | {span.preset for span in CUBLAS_SPANS}
    assert measured == set(DEVICES) - {"h200", "rtxa6000"}
    assert any(run.preset == "t4" and run.of(1) is not None for run in RUNS)  # the T4's kernels, not only cuBLAS


def test_the_t4_estimate_of_kernel_10_is_within_x1_3_of_a_sourced_cublas_range():
    """Kernel 10 ran at ~94 % of cuBLAS where both were measured (the A6000): a T4's published cuBLAS range bounds
    the estimate from both sides by ×1.3 (the rated clock put it at 7.33 TFLOP/s, 1.7× the range's top)."""
    from pysim.hardware.measurements import CUBLAS_SPANS

    span = next(span for span in CUBLAS_SPANS if span.preset == "t4")
    report = estimate(*RUNGS[10], "t4")
    assert span.low / WITHIN <= report.gflops <= span.high * WITHIN, report.gflops


def test_the_h100_table_is_siboehms_kernels_within_x1_25():
    """Issue 42: a published H100 run of siboehm's kernels (card, size, source); the estimates transfer as they do
    on the other cards (0.75-1.25 of measured: 0.94-1.16 when this was written)."""
    from pysim.hardware.measurements import RUNS

    run = next(run for run in RUNS if run.preset == "h100")
    assert run.size == 4096 and {1, 2, 3, 4, 5, 6, 10} <= dict(run.gflops).keys()
    for number in RUNGS:
        ratio = estimate(*rung_at(number, 4096), "h100").gflops / (run.of(number) or 0)
        assert 0.75 <= ratio <= 1.25, (number, round(ratio, 3))


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
    # An assumption with what was measured (or not) beside it, or the measured figure itself, cited and quoted.
    assert (l2.assumed and "measured" in l2.alternative) or (sourced(l2.source) and "GB/s" in l2.alternative)
    launch = speed.launch_overhead_us
    assert launch.assumed and "back to back" in launch.alternative and launch.value < 2


def test_the_h100_l2_is_the_measured_figure_cited_and_the_h200_takes_it_as_an_assumption():
    from pysim.hardware.sources import H100_L2_STUDY

    h100, h200 = DEVICES["h100"].speed.l2_bandwidth, DEVICES["h200"].speed.l2_bandwidth
    assert (h100.value, h100.source) == (3574, H100_L2_STUDY) and "3,574 GB/s" in h100.alternative
    assert h200.value == h100.value and h200.assumed and H100_L2_STUDY in h200.alternative
    for figure in (h100, h200):  # the other H100 measurement, a copy and cp.async loads, beside it
        assert "4199.223627 GB/s" in figure.alternative and "8428.563534 GB/s" in figure.alternative
    rtx4090 = DEVICES["rtx4090"].speed.l2_bandwidth
    assert rtx4090.assumed and "3645.014244 GB/s" in rtx4090.alternative


def test_no_secondary_site_is_cited():
    import pysim.hardware.sources as sources

    text = " ".join(str(value) for value in vars(sources).values() if isinstance(value, str))
    for host in ("sysrqmts", "gist.", "docs.rs", "blogspot", "saulelectric", "glennklockwood", "cs.virginia"):
        assert host not in text, host


@pytest.mark.parametrize("run,number,gflops", [p.values for p in out_of_sample()])
def test_no_published_run_beats_its_printed_bound(run, number, gflops):
    """A bound is a bound only if no measurement is faster: every out-of-sample run takes at least its time."""
    report = estimate(*rung_at(number, run.size), run.preset)
    assert 2 * run.size**3 / (gflops * 1e9) >= report.bounds.seconds, (run.card, number)


# Issue 40's "Done when" for kernels 3 and 4 on the a100 preset, against the A100-PCIe run (out-of-sample): no
# unit's modelled time longer than the measured run (that run would then have beaten a unit's bound on itself,
# impossible), and the estimate within ×1.25 of it. A drift of the shared-load model moves both.
ISSUE_40_WITHIN = 1.25


def a100_pcie(number: int) -> tuple[float, object]:
    from pysim.hardware.measurements import runs_on

    (run,) = runs_on("a100", 4096)
    kernel, params = RUNGS[number]
    return 2 * 4096**3 / (run.of(number) * 1e9), estimate(kernel, params, "a100")


@pytest.mark.parametrize("number", (3, 4))
def test_no_modelled_unit_outlasts_the_a100_pcie_run(number):
    measured_s, report = a100_pcie(number)
    assert max(unit.seconds for unit in report.units.values()) < measured_s, report.units


@pytest.mark.parametrize("number", (3, 4))
def test_kernels_3_and_4_within_x1_25_of_the_a100_pcie_run(number):
    measured_s, report = a100_pcie(number)
    ratio = measured_s / report.estimate_s
    assert 1 / ISSUE_40_WITHIN <= ratio <= ISSUE_40_WITHIN, round(ratio, 4)


def test_the_t4s_misses_at_1024_follow_the_timed_loop_not_the_kernels_geometry():
    """What measurements.py says of the three T4 misses, read back from the numbers: the geometry (wave tails) the
    model prices moves its own estimates by at most 14 % from 2048 to 1024, the measurements by 39-51 %; the shortfall
    follows how long the runner's timed loop lasted (kernel 1's long loop lost nothing); and at the SM clock the same
    card's Nsight Compute runs report, the three estimates land within ×1.3 (consistent with a clock still rising,
    not proof of it: how fast a T4's clock rises was found in no source, so the model does not price it)."""
    from pysim.hardware.measurements import DMALT, SHORT_LOOP, loop_seconds

    short, long = dict(DMALT[1024]), dict(DMALT[2048])
    base = replace(Machine.of(DEVICES["t4"]), clock_hz=BASE_CLOCK_MHZ * 1e6)
    from pysim.speed import profile

    for number in SHORT_LOOP:
        assert ("t4", 1024, number) in MISSES
        model = estimate(*rung_at(number, 1024), "t4").gflops / estimate(*rung_at(number, 2048), "t4").gflops
        assert model > 0.86 and short[number] / long[number] < 0.62, number
        assert loop_seconds(1024, short[number]) < 0.25 < 1.5 < loop_seconds(1024, short[1])
        prof = profile(*rung_at(number, 1024))
        at_base = prof.flops / unit_times(base, prof).combined_s / 1e9
        assert 1 / WITHIN <= at_base / short[number] <= WITHIN, number
    assert short[1] / long[1] > 0.98


def test_the_ladder_shows_each_miss_with_its_ratio_and_what_is_known():
    from pysim.lessons.evidence import SIBOEHM_NUMBER
    from pysim.lessons.ladder import LadderParams, cells, siboehm_ladder

    keys = {number: key for key, number in SIBOEHM_NUMBER.items()}
    for (preset, size, number), reason in MISSES.items():
        rung = next(r for r in siboehm_ladder(LadderParams(N=size, device=preset)) if r.key == keys[number])
        text = cells(rung)["measured"].text
        assert f"estimate ÷ measured {reason.split('×')[0].split()[-1]}" in text, text
        assert "out-of-sample" in text and "source: github.com/" in text
        why = "a clock still rising from idle" if preset == "t4" else "a macro without parentheses"
        assert why in text, text
