"""What the page claims is what the simulation did, in CPython: the C check can fail, the lens adds up,
limits are enforced, and the device preset changes the bound shown. (Was tests/browser/test_truth.py,
whose broken store was a patched copy of the served archive; here it is the kernel module, patched.)"""

import re
from dataclasses import replace

import numpy as np
import pytest

from pysim.core.matrices import operands
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams
from pysim.kernels import KERNELS
from pysim.lessons.walkthrough import Walkthrough
from pysim.speed import latency_floor


def c_grid(page, rows: int, cols: int) -> np.ndarray:
    texts = [page.text(cell) for cell in page.all(".cell", page.testid("grid-C"))]
    return np.array([float(t) if t else np.nan for t in texts]).reshape(rows, cols)


def test_a_broken_store_turns_the_badge_and_the_grid(page, monkeypatch):
    """Every C store of the smem kernel writes -1 instead of partialSum."""
    module = KERNELS["smem"].module
    unbroken = module.block_steps

    def block_steps(p, A, B, bx, by):
        for step in unbroken(p, A, B, bx, by):
            if step.phase == "store":
                store = step.accesses[0]
                step = replace(step, accesses=(replace(store, values=np.full(store.values.shape, -1.0)),))
            yield step

    monkeypatch.setattr(module, "block_steps", block_steps)
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    assert page.attribute("verify", "data-value") == "mismatch"
    assert "differ" in page.text("verify")
    page.click("run-to-end")
    assert (c_grid(page, 4, 4) == -1).all()


def test_the_unbroken_build_shows_what_numpy_says(page):
    page.go("#/tiling?M=7&N=5&K=11&T=4")
    assert page.attribute("verify", "data-value") == "ok"
    page.click("run-to-end")
    A, B = operands(7, 5, 11)
    np.testing.assert_array_equal(c_grid(page, 7, 5), A @ B)


def test_lens_shows_the_sum_carried_in_from_earlier_tiles(page):
    # Step 14 of 6×6×9, T=3 is the second tile's closing barrier in block (0,0); thread (1,2) owns C[2][1].
    page.go("#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14")
    text = page.inner_text("lens-sum")
    carried, this_tile, total = (float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text.split("→")[0]))
    A, B = operands(6, 6, 9)
    assert carried == sum(A[2, k] * B[k, 1] for k in range(3))
    assert this_tile == sum(A[2, k] * B[k, 1] for k in range(3, 6))
    assert total == carried + this_tile
    assert "C[2][1]" in text


def test_lens_at_the_store_shows_the_final_value(page):
    # 2×2 blocks of 2 + 3 tiles × 8 steps: step 103 is the store of the last block, (1,1); thread (0,0) owns C[4][4].
    page.go("#/tiling?M=7&N=5&K=11&T=4&thread=0,0&step=103")
    assert page.inner_text("phase").startswith("Store")
    assert "not yet" not in page.inner_text("lens-timeline")
    A, B = operands(7, 5, 11)
    assert page.inner_text("lens-sum") == f"final partialSum = {(A @ B)[4, 4]:g}, stored to C[4][4]"


def test_lens_during_a_load_shows_no_half_terms(page):
    page.go("#/tiling?M=6&N=6&K=9&T=3&step=8")
    timeline = page.inner_text("lens-timeline")
    assert "·" not in timeline and "being loaded" in timeline


def test_register_budget_is_an_input_error(page):
    page.go("#/register?M=32&N=32&K=32&BM=64&BN=64&BK=4&TM=16&TN=16")
    assert page.visible("input-error")
    message = page.inner_text("input-error")
    assert "TM" in message and "TN" in message and "255" in message and "estimate" in message


@pytest.mark.parametrize("view,sizes", [("tiling", "M=64&N=64&K=64&T=16"), ("register", "M=64&N=64&K=64")])
def test_h100_and_h200_pages_differ_where_the_hardware_does(page, view, sizes):
    shown = {}
    for key in ("h100", "h200"):
        page.go(f"#/{view}?{sizes}&device={key}")
        bound = page.testid("time-bound")
        shown[key] = (
            float(str(bound.getAttribute("data-value"))),
            page.inner_text("device-facts"),
            page.inner_text(bound),
        )
    # At 64³ one global round trip sets the bound, and both parts have the same latency and clock.
    assert shown["h100"][0] == shown["h200"][0] == latency_floor(DEVICES["h200"])
    assert "3,350" in shown["h100"][1] and "4,800" in shown["h200"][1]
    assert "Floor on the NVIDIA H200 SXM, an estimate" in shown["h200"][2]  # the round trip: an assumed latency


def test_walkthrough_time_bound_follows_the_device(page):
    for key in ("h100", "h200", "a100"):
        page.go(f"#/hierarchy?N=1024&T=16&device={key}")
        w = Walkthrough(HierarchyParams(N=1024, T=16, device=key))
        assert float(str(page.attribute("time-bound", "data-value"))) == w.bound.seconds
        assert f"Bound on the {DEVICES[key].name}" in page.inner_text("time-bound")
