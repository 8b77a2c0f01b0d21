"""The device panel's bound (site/app/widgets/device_panel.py) on the pages of the tensor-core kernels, and what
the panel calls its figure. The tensor kernels do no FFMA: their bound was priced at 0 FLOPs ("the run does 0
FLOP/byte", set by DRAM traffic, 129 µs for #/mma at 4096³ where the TF32 peak needs 881 µs)."""

from __future__ import annotations

import pytest

from pysim.hardware.devices import DEVICES
from pysim.speed import CAVEAT
from views.test_stepping import link

MMA_4096 = dict(M=4096, N=4096, K=4096, BM=128, BN=128, BK=16, WM=64, WN=64, stages=3, swizzle=0, split=1)
WGMMA_4096 = dict(M=4096, N=4096, K=4096, BM=128, BN=128, BK=32, stages=4, consumers=2)


def panel(page) -> tuple[str, float, str, bool]:
    """(heading, the figure in seconds, the bound's text, whether the caveat shows)."""
    element = page.testid("device-panel")
    heading = page.find("h3", element)
    caveat = page.find("p.hint", element)
    bound = page.testid("time-bound")
    return page.text(heading), float(page.attribute(bound, "data-value")), page.text(bound), page.visible(caveat)


@pytest.mark.parametrize(
    "kernel,sizes,device",
    [
        ("mma", MMA_4096, "a100"),
        ("mma", MMA_4096, "h100"),
        ("wgmma", WGMMA_4096, "h100"),
        ("wgmma", WGMMA_4096, "h200"),
    ],
)
def test_a_tensor_kernels_bound_is_its_flops_at_the_tf32_peak(page, kernel, sizes, device):
    page.go(link(kernel, {**sizes, "device": device}, mode="counts"))
    heading, seconds, text, caveat = panel(page)
    # 128-wide tiles divide 4096: no padding, so the tensor cores execute 2·4096³ FLOPs, above DRAM's 201 MB.
    tf32 = DEVICES[device].tf32_tensor.value * 1e12
    assert seconds == pytest.approx(2 * 4096**3 / tf32, rel=1e-9)
    assert "set by the dense TF32 tensor peak" in text and "683 FLOP/byte on its tensor cores" in text
    assert heading == "Time bound (at the rated boost clock)" and caveat


def test_a_tf32_peak_that_a_published_run_beats_is_a_roof_not_a_bound(page):
    page.go(link("mma", {**MMA_4096, "device": "rtx4090"}, mode="counts"))
    heading, seconds, text, caveat = panel(page)
    assert seconds == pytest.approx(2 * 4096**3 / 82.6e12, rel=1e-9)
    assert heading == "Time roof (at the rated boost clock)" and not caveat
    assert "not a bound on this card" in text and "no run at that clock is faster" not in text


def test_a_card_with_no_tf32_figure_bounds_the_tensor_kernel_by_its_traffic(page):
    page.go(link("mma", {**MMA_4096, "device": "rtxa6000"}, mode="counts"))
    heading, seconds, text, caveat = panel(page)
    assert seconds == pytest.approx(4 * 3 * 4096**2 / 768e9, rel=1e-9)  # A, B read and C written once
    assert "no dense TF32 figure" in text and heading == "Time bound (at the rated boost clock)" and caveat


def test_a_floor_set_by_the_round_trip_is_not_called_a_bound(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    heading, _, text, caveat = panel(page)
    assert "one global-memory round trip" in text and "an estimate" in text
    assert heading == "Time floor (an estimate)" and not caveat
    assert CAVEAT not in page.inner_text()
