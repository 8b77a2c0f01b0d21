"""What the page claims is what the simulation did: the C check can fail, the lens adds up,
limits are enforced, and the device preset changes the bound shown."""

import re
import shutil
import zipfile

import numpy as np
import pytest

from browser.conftest import READY_TIMEOUT_MS, Visit, go
from pysim.core.matrices import operands
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams
from pysim.lessons.walkthrough import Walkthrough
from pysim.speed import latency_floor
from tools.harness import Server
from tools.sitebuild import paths

# Appended to the served copy of the smem kernel: every C store writes -1 instead of partialSum.
BROKEN_STORE = """

_unbroken_block_steps = block_steps


def block_steps(p, A, B, bx, by):
    from dataclasses import replace as _replace

    for _step in _unbroken_block_steps(p, A, B, bx, by):
        if _step.phase == "store":
            _store = _step.accesses[0]
            _step = _replace(_step, accesses=(_replace(_store, values=np.full(_store.values.shape, -1.0)),))
        yield _step
"""


def verify_state(page, view: str) -> str:
    badge = page.locator(f"#view-{view} [data-testid=verify]")
    page.wait_for_function("el => el.dataset.value !== 'pending'", arg=badge.element_handle(), timeout=READY_TIMEOUT_MS)
    return badge.get_attribute("data-value")


def c_grid(page, view: str, rows: int, cols: int) -> np.ndarray:
    texts = page.locator(f"#view-{view} [data-testid=grid-C] .cell").all_inner_texts()
    return np.array([float(t) if t.strip() else np.nan for t in texts]).reshape(rows, cols)


@pytest.fixture(scope="module")
def broken_server(dist, tmp_path_factory):
    copy = tmp_path_factory.mktemp("broken") / "dist"
    shutil.copytree(dist, copy)
    kernel = "pysim/kernels/k03_smem_tiled.py"
    with (
        zipfile.ZipFile(dist / paths.PYTHON_ARCHIVE) as original,
        zipfile.ZipFile(copy / paths.PYTHON_ARCHIVE, "w") as broken,
    ):
        for name in original.namelist():
            source = original.read(name)
            broken.writestr(name, source + BROKEN_STORE.encode() if name == kernel else source)
    serving = Server(copy)
    yield serving
    serving.close()


def test_a_broken_store_turns_the_badge_and_the_grid(browser, broken_server):
    visit = Visit(browser, broken_server)
    try:
        visit.open("#/tiling?M=4&N=4&K=8&T=2")
        assert verify_state(visit.page, "tiling") == "mismatch"
        assert "differ" in visit.page.locator("#view-tiling [data-testid=verify]").inner_text()
        visit.page.locator("#view-tiling [data-testid=run-to-end]").click()
        assert (c_grid(visit.page, "tiling", 4, 4) == -1).all()
    finally:
        visit.close()


def test_the_unbroken_build_shows_what_numpy_says(app):
    go(app, "#/tiling?M=7&N=5&K=11&T=4")
    assert verify_state(app.page, "tiling") == "ok"
    app.page.locator("#view-tiling [data-testid=run-to-end]").click()
    A, B = operands(7, 5, 11)
    np.testing.assert_array_equal(c_grid(app.page, "tiling", 7, 5), A @ B)


def test_lens_shows_the_sum_carried_in_from_earlier_tiles(app):
    # Step 14 of 6×6×9, T=3 is the second tile's closing barrier in block (0,0); thread (1,2) owns C[2][1].
    go(app, "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14")
    text = app.page.locator("#view-tiling [data-testid=lens-sum]").inner_text()
    carried, this_tile, total = (float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text.split("→")[0]))
    A, B = operands(6, 6, 9)
    assert carried == sum(A[2, k] * B[k, 1] for k in range(3))
    assert this_tile == sum(A[2, k] * B[k, 1] for k in range(3, 6))
    assert total == carried + this_tile
    assert "C[2][1]" in text


def test_lens_at_the_store_shows_the_final_value(app):
    # 2×2 blocks of 2 + 3 tiles × 8 steps: step 103 is the store of the last block, (1,1); thread (0,0) owns C[4][4].
    go(app, "#/tiling?M=7&N=5&K=11&T=4&thread=0,0&step=103")
    assert app.page.locator("#view-tiling [data-testid=phase]").inner_text().startswith("Store")
    timeline = app.page.locator("#view-tiling [data-testid=lens-timeline]").inner_text()
    assert "not yet" not in timeline
    A, B = operands(7, 5, 11)
    text = app.page.locator("#view-tiling [data-testid=lens-sum]").inner_text()
    assert text == f"final partialSum = {(A @ B)[4, 4]:g}, stored to C[4][4]"


def test_lens_during_a_load_shows_no_half_terms(app):
    go(app, "#/tiling?M=6&N=6&K=9&T=3&step=8")
    timeline = app.page.locator("#view-tiling [data-testid=lens-timeline]").inner_text()
    assert "·" not in timeline and "being loaded" in timeline


def test_register_budget_is_an_input_error(app):
    go(app, "#/register?M=32&N=32&K=32&BM=64&BN=64&BK=4&TM=16&TN=16")
    error = app.page.locator("#view-register [data-testid=input-error]")
    assert error.is_visible()
    message = error.inner_text()
    assert "TM" in message and "TN" in message and "255" in message and "estimate" in message


@pytest.mark.parametrize("view,sizes", [("tiling", "M=64&N=64&K=64&T=16"), ("register", "M=64&N=64&K=64")])
def test_h100_and_h200_pages_differ_where_the_hardware_does(app, view, sizes):
    shown = {}
    for key in ("h100", "h200"):
        go(app, f"#/{view}?{sizes}&device={key}")
        bound = app.page.locator(f"#view-{view} [data-testid=time-bound]")
        facts = app.page.locator(f"#view-{view} [data-testid=device-facts]").inner_text()
        shown[key] = (float(bound.get_attribute("data-value")), facts, bound.inner_text())
    # At 64³ one global round trip sets the bound, and both parts have the same latency and clock.
    assert shown["h100"][0] == shown["h200"][0] == latency_floor(DEVICES["h200"])
    assert "3,350" in shown["h100"][1] and "4,800" in shown["h200"][1]
    assert "Bound on the NVIDIA H200 SXM" in shown["h200"][2]


def test_walkthrough_time_bound_follows_the_device(app):
    for key in ("h100", "h200", "a100"):
        go(app, f"#/hierarchy?N=1024&T=16&device={key}")
        bound = app.page.locator("#view-hierarchy [data-testid=time-bound]")
        w = Walkthrough(HierarchyParams(N=1024, T=16, device=key))
        assert float(bound.get_attribute("data-value")) == w.bound.seconds
        assert f"Bound on the {DEVICES[key].name}" in bound.inner_text()
