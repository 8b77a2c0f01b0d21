"""#/tiling in Chromium: the counters on screen once, the keyboard and the focus ring. The rest (stepping,
address, errors, lens, banks, device panel) is tests/views/test_tiling.py and test_stepping.py."""

import pytest

from browser.conftest import go, url_has, value, view
from bruteforce import smem

COUNTERS = ("global_loads", "shared_loads", "shared_stores", "fma", "barriers", "global_sectors", "bank_extra_cycles")


def tiling(app):
    return view(app, "tiling")


def click(app, testid):
    tiling(app).locator(f"[data-testid={testid}]").click()


def test_run_to_end_counters_equal_brute_force(app):
    """Once in the browser; at other sizes, tests/views/test_stepping.py."""
    M, N, K, T = 4, 4, 8, 2
    go(app, f"#/tiling?M={M}&N={N}&K={K}&T={T}")
    click(app, "run-to-end")
    expected = smem(M, N, K, T)
    for name in COUNTERS:
        assert value(app, "tiling", f"counter-{name}") == expected[name], name
    assert tiling(app).locator("[data-testid=verify]").get_attribute("data-value") == "ok"


def test_keyboard_controls(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2&step=0")
    app.page.locator("#view-tiling h1").click()
    app.page.keyboard.press("ArrowRight")
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=2")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=1")
    app.page.keyboard.press("n")
    assert url_has(app.page, "step=26")  # 2 + 4 tiles × (2 + 4) steps per block
    app.page.keyboard.press("Home")
    assert url_has(app.page, "step=0")
    app.page.keyboard.press(" ")
    assert tiling(app).locator("[data-testid=play]").get_attribute("aria-pressed") == "true"
    app.page.keyboard.press(" ")
    assert tiling(app).locator("[data-testid=play]").get_attribute("aria-pressed") == "false"


def test_tab_reaches_controls_with_a_visible_focus_ring(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2&step=0")
    assert tiling(app).locator(".position").inner_text().startswith("step 0 of")
    app.page.locator("#view-tiling h1").click()
    for _ in range(60):
        app.page.keyboard.press("Tab")
        if app.page.evaluate("document.activeElement.dataset.testid") == "step":
            break
    else:
        pytest.fail("Tab never reached the Step button")
    outline = app.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    app.page.keyboard.press("Enter")
    app.page.wait_for_function("document.querySelector('#view-tiling .position').textContent.startsWith('step 1 of')")
    assert url_has(app.page, "step=1")
