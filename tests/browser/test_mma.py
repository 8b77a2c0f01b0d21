"""#/mma in Chromium: a deep link with guide=0 opens at its step, steps by keyboard (a focused box that
overflows scrolls instead), runs to the end with the counters on screen equal to tests/bruteforce_mma.py and C
verified, its fragment tiles, bank strip, error table and timeline drawn, and axe-core finds no serious violation. (The cells, the wavefronts, the swizzle
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


# The first focusable box on the view that scrolls on its own along `axis` (x: sideways, y: down).
OVERFLOWING = """axis => {
  const boxes = [...document.querySelectorAll('#view-mma [tabindex="0"]')].filter(box => {
    const style = getComputedStyle(box);
    return axis === 'x'
      ? ['auto', 'scroll'].includes(style.overflowX) && box.scrollWidth > box.clientWidth
      : ['auto', 'scroll'].includes(style.overflowY) && box.scrollHeight > box.clientHeight;
  });
  if (!boxes.length) return false;
  boxes[0].setAttribute('data-probe', axis);
  return true;
}"""


def test_keys_scroll_a_focused_box_that_overflows_instead_of_stepping(app):
    """A wide grid or a long listing scrolls by keyboard only while its own keys reach it: with one focused, → and
    End scroll it and the step stays; with the page focused they step."""
    go(app, f"{LINK}&step=12&guide=0")
    page = app.page
    for axis, key, offset in (("x", "ArrowRight", "scrollLeft"), ("y", "End", "scrollTop")):
        assert page.evaluate(OVERFLOWING, axis), f"no focusable box overflows along {axis} on #/mma"
        box = page.locator(f"[data-probe={axis}]")
        box.focus()
        page.keyboard.press(key)
        page.wait_for_function(f"document.querySelector('[data-probe={axis}]').{offset} > 0", timeout=5000)
        assert url_has(page, "step=12")
    page.locator("#view-mma h1").click()
    page.keyboard.press("ArrowRight")
    assert url_has(page, "step=13")
