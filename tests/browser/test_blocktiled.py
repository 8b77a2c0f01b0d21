"""#/blocktile1d, #/vectorized, #/warptile in Chromium: the counters on screen once per view, where the warp
tile's box lies, the monitor off screen, embed and lock (style sheets), axe-core. The rest (float4 groups, the
warp tile's cells, presets, deep links, keys, the explanation's numbers): tests/views/test_blocktiled.py and
test_stepping.py."""

from pathlib import Path

import pytest

import bruteforce
from browser.conftest import go, url_has, value, view
from browser.test_register import COUNTERS
from pysim.core.trace import Trace
from pysim.kernels import KERNELS

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
ON_SCREEN = (*COUNTERS, "shared_wavefronts")  # #/register's counters and the wavefronts
# Small sizes that are not multiples of the block tiles (K, N stay multiples of 4 for the float4 kernels;
# at most 64, the largest size animated, and C small enough to be drawn cell by cell).
SMALL = {
    "blocktile1d": dict(M=9, N=7, K=5, BM=8, BN=8, BK=2, TM=4),
    "vectorized": dict(M=18, N=20, K=12, BM=16, BN=16, BK=4, TM=4, TN=4),
    "warptile": dict(M=18, N=52, K=12, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32),
}
TEACHING = {name: next(iter(KERNELS[name].PARAMS.PRESETS.values())) for name in SMALL}


def link(name: str, sizes: dict, **extra) -> str:
    return f"#/{name}?" + "&".join(f"{k}={v}" for k, v in {**sizes, **extra}.items())


def section(app, name):
    return view(app, name)


def params(name: str, sizes: dict):
    return KERNELS[name].PARAMS(**sizes)


@pytest.mark.parametrize("name", SMALL)
def test_run_to_end_counters_equal_brute_force(app, name):
    """Once per view in the browser; tests/views/test_stepping.py runs every stepping view in CPython."""
    go(app, link(name, SMALL[name]))
    section(app, name).locator("[data-testid=run-to-end]").click()
    expected = getattr(bruteforce, name)(*SMALL[name].values())
    for counter in ON_SCREEN:
        assert value(app, name, f"counter-{counter}") == expected[counter], (name, counter)
    verify = section(app, name).locator("[data-testid=verify]")
    app.page.wait_for_function("el => el.dataset.value !== 'pending'", arg=verify.element_handle(), timeout=20_000)
    assert verify.get_attribute("data-value") == "ok"


def first_step(name: str, sizes: dict, test) -> int:
    return next(step.index for step in Trace(KERNELS[name], params(name, sizes)) if test(step))


def test_the_subtile_box_covers_its_cells(app):
    """The striped box covers subtile (1, 1) of warp 0 exactly, as drawn: from its first cell to its last. (The
    cells it marks: tests/views/test_blocktiled.py.)"""
    sizes = TEACHING["warptile"]
    p = params("warptile", sizes)
    index = first_step("warptile", sizes, lambda s: s.inner == (1, 1))
    go(app, link("warptile", sizes, thread="5,0", step=index))
    grid = section(app, "warptile").locator("[data-testid=grid-C]")
    box, first, last = grid.evaluate(
        """(grid, [r0, c0, r1, c1]) => [
          grid.querySelector('[data-testid=region-sub-now]'),
          grid.querySelector(`.cell[data-r='${r0}'][data-c='${c0}']`),
          grid.querySelector(`.cell[data-r='${r1}'][data-c='${c1}']`),
        ].map((element) => element.getBoundingClientRect().toJSON())""",
        [p.WSUBM, p.WSUBN, 2 * p.WSUBM - 1, 2 * p.WSUBN - 1],
    )
    assert abs(box["left"] - first["left"]) < 1 and abs(box["top"] - first["top"]) < 1
    assert abs(box["right"] - last["right"]) < 1 and abs(box["bottom"] - last["bottom"]) < 1


def test_the_monitor_off_screen_shows_the_step_just_after_it(app, visit):
    """Far below the fold the browser skips the monitor's rendering and the view writes its values just after
    the step's frame: they must still be the step's, as a fresh visit at that step draws them."""
    go(app, link("warptile", TEACHING["warptile"], step=0))
    monitor = section(app, "warptile").locator("[data-testid=monitor]")
    skipped = "m => !m.querySelector('tbody').checkVisibility({contentVisibilityAuto: true})"  # its contents
    app.page.wait_for_function(skipped, arg=monitor.element_handle())
    for _ in range(9):
        section(app, "warptile").locator("[data-testid=step]").click()
    app.page.wait_for_timeout(300)
    assert url_has(app.page, "step=9")
    shown = monitor.locator("tbody").text_content()
    visit.page.goto(app.page.url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    assert view(visit, "warptile").locator("[data-testid=monitor] tbody").text_content() == shown


def test_embed_and_lock_keep_stepping(app):
    go(app, link("warptile", TEACHING["warptile"], step=3, embed=1, lock=1))
    assert not section(app, "warptile").locator(".param-form").is_visible()
    section(app, "warptile").locator("[data-testid=step]").click()
    assert url_has(app.page, "step=4", "embed=1", "lock=1")
    go(app, "#/")


SERIOUS = """() => axe.run(document, {resultTypes: ['violations']}).then(result => result.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => `${v.id} (${v.impact}): ${v.nodes[0].target}`))"""


def test_axe_finds_no_serious_violations(app):
    for name in SMALL:
        index = first_step(name, TEACHING[name], lambda s: s.inner != ())
        go(app, link(name, TEACHING[name], step=index))
        app.page.wait_for_timeout(200)
        app.page.evaluate(AXE.read_text())
        assert app.page.evaluate(SERIOUS) == [], name
