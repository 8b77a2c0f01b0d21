"""#/mma in Chromium: a deep link with guide=0 opens at its step, steps by keyboard, runs to the end with the
counters on screen equal to tests/bruteforce_mma.py and C verified, its fragment tiles, bank strip, error
table and timeline drawn, and axe-core finds no serious violation. (The cells, the wavefronts, the swizzle
switch and the explanation: tests/views/test_mma.py; the geometry: test_geometry.py.)"""

import bruteforce_mma

from browser.conftest import go, url_has, value, view
from browser.test_blocktiled import AXE, SERIOUS

SIZES = dict(M=20, N=28, K=20, BM=32, BN=16, BK=8, WM=16, WN=16, stages=3, swizzle=0, split=3)
LINK = "#/mma?" + "&".join(f"{k}={v}" for k, v in SIZES.items())
ON_SCREEN = ("global_loads", "global_sectors", "async_copy_bytes", "shared_loads", "shared_wavefronts")
ON_SCREEN += ("bank_extra_cycles", "mma_instructions", "barriers", "global_stores")


def test_deep_link_keys_run_to_end_verified_and_axe(app):
    go(app, f"{LINK}&step=12&guide=0")
    section = view(app, "mma")
    assert url_has(app.page, "step=12", "split=3")
    for name, cells in (("A", 16 * 8), ("B", 8 * 8), ("C", 16 * 8)):
        assert section.locator(f"[data-testid=fragment-{name}] td").count() == cells
    assert section.locator("[data-testid=bank-strip] td").count() == 32
    assert section.locator("[data-testid=c-error] tbody tr").count() == 3
    assert section.locator("[data-testid=pipeline-timeline] td.pipe-now").count() == 3
    section.locator("[data-testid=step]").focus()
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=13")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=12")
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS) == []
    section.locator("[data-testid=run-to-end]").click()
    expected = bruteforce_mma.mma(*SIZES.values())
    for counter in ON_SCREEN:
        assert value(app, "mma", f"counter-{counter}") == expected[counter], counter
    verify = section.locator("[data-testid=verify]")
    app.page.wait_for_function("el => el.dataset.value !== 'pending'", arg=verify.element_handle(), timeout=20_000)
    assert verify.get_attribute("data-value") == "ok"
