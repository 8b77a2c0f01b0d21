"""#/wgmma in Chromium: a deep link with guide=0 opens at its step, steps by keyboard, runs to the end with the
counters on screen equal to tests/bruteforce_wgmma.py and C verified (the trace's first run in Pyodide: its index
arrays are NumPy's default int32 there), its warpgroup table, swizzle atom and timeline drawn, and axe-core finds
no serious violation. (The panels' numbers: tests/views/test_wgmma.py; the geometry: test_geometry.py.)"""

import bruteforce_wgmma

from browser.conftest import go, url_has, value, view
from browser.test_blocktiled import AXE, SERIOUS

SIZES = dict(M=60, N=16, K=64, BM=128, BN=16, BK=32, stages=1, consumers=2)
LINK = "#/wgmma?" + "&".join(f"{k}={v}" for k, v in SIZES.items())
ON_SCREEN = ("global_loads", "global_sectors", "tma_bytes", "mbarrier_waits", "mma_instructions", "barriers")
ON_SCREEN += ("global_stores",)


def test_deep_link_keys_run_to_end_verified_and_axe(app):
    go(app, f"{LINK}&step=10&guide=0")
    section = view(app, "wgmma")
    assert url_has(app.page, "step=10", "consumers=2")
    assert section.locator("[data-testid=warpgroup-tile] tbody tr").count() == 8  # 2 warpgroups × 4 warps
    assert section.locator("[data-testid=swizzle-atom] tbody td").count() == 64  # 8 rows × 8 chunks
    assert section.locator("[data-testid=pipeline-timeline] td.pipe-now").count() == 1  # one stage
    section.locator("[data-testid=step]").focus()
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=11")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=10")
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS) == []
    section.locator("[data-testid=run-to-end]").click()
    expected = bruteforce_wgmma.wgmma(*SIZES.values())
    for counter in ON_SCREEN:
        assert value(app, "wgmma", f"counter-{counter}") == expected[counter], counter
    verify = section.locator("[data-testid=verify]")
    app.page.wait_for_function("el => el.dataset.value !== 'pending'", arg=verify.element_handle(), timeout=20_000)
    assert verify.get_attribute("data-value") == "ok"
