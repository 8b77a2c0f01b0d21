"""#/blocktile1d, #/vectorized, #/warptile in Chromium: counters against brute force at non-multiple sizes,
C verified from the stores, 128-bit loads as four-cell groups, the warp tile, deep links, embed/lock,
keyboard, every preset steps, axe-core."""

from pathlib import Path

import pytest

import bruteforce
from browser.conftest import go, url_has, value, view
from browser.test_register import COUNTERS
from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from pysim.lessons import blocktiled

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


@pytest.mark.parametrize("name", ("vectorized", "warptile"))
def test_float4_loads_are_drawn_as_groups_of_four(app, name):
    """At the load of B every lane moves one float4 (or more): each group of four cells has one outline."""
    kernel = KERNELS[name]
    index = first_step(name, TEACHING[name], lambda s: s.lines == kernel.module.LOAD_B)
    go(app, link(name, TEACHING[name], step=index))
    step = Trace(kernel, params(name, TEACHING[name]))[index]
    load = next(a for a in step.accesses if a.space == "global")
    assert load.width == 4
    lanes = int(load.active.sum())  # one float4 per lane and instruction, every lane inside B here
    grid = section(app, name).locator("[data-testid=grid-B]")
    assert grid.locator(".cell.vec4").count() == 4 * lanes
    assert grid.locator(".cell.vec-l").count() == lanes == grid.locator(".cell.vec-r").count()
    # A 32-bit access has no groups: the transposed stores into As are four scalar stores.
    index = first_step(name, TEACHING[name], lambda s: s.lines == kernel.module.LOAD_A)
    go(app, link(name, TEACHING[name], step=index))
    assert section(app, name).locator("[data-testid=grid-As] .cell.vec4").count() == 0
    assert section(app, name).locator("[data-testid=grid-A] .cell.vec4").count() > 0


def test_blocktile1d_has_no_vector_groups(app):
    go(app, link("blocktile1d", TEACHING["blocktile1d"], step=2))
    assert section(app, "blocktile1d").locator(".cell.vec4").count() == 0


def test_warp_tile_subtiles_and_the_followed_patch(app):
    sizes = TEACHING["warptile"]
    p = params("warptile", sizes)
    index = first_step("warptile", sizes, lambda s: s.inner == (1, 1))
    go(app, link("warptile", sizes, thread="5,0", step=index))
    grid = section(app, "warptile").locator("[data-testid=grid-C]")
    assert grid.locator(".cell.warp-tile").count() == min(p.WM, p.M) * min(p.WN, p.N)
    # The striped box covers subtile (1, 1) of warp 0 exactly, as drawn: from its first cell to its last.
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
    now = grid.locator(".cell.followed")
    assert now.count() == p.TM * p.TN, "the followed thread's patch in the subtile computed now"
    # Lane 5 of one warp: patch column 5·TN of every subtile, here subtile (1, 1).
    cols = {int(now.nth(i).get_attribute("data-c")) for i in range(now.count())}
    assert cols == set(range(p.WSUBN + 5 * p.TN, p.WSUBN + 6 * p.TN))
    assert grid.locator(".cell.warp-t").count() == min(p.WN, p.N)
    assert grid.locator(".cell.sub-l").count() == p.WMITER * p.WNITER * p.WSUBM


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


@pytest.mark.parametrize("name", SMALL)
def test_deep_link_reproduces_the_state(app, visit, name):
    index = Trace(KERNELS[name], params(name, SMALL[name])).steps_per_block + 7
    go(app, link(name, SMALL[name], thread="1,0", step=index))
    shown = {
        testid: section(app, name).locator(f"[data-testid={testid}]").inner_text()
        for testid in ("narration", "focus", "phase", "counters")
    }
    marks = section(app, name).locator(".memory").inner_html()
    visit.page.goto(app.page.url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    visit.page.wait_for_timeout(200)
    for testid, text in shown.items():
        assert view(visit, name).locator(f"[data-testid={testid}]").inner_text() == text, testid
    assert view(visit, name).locator(".memory").inner_html() == marks
    assert visit.page.url == app.page.url


@pytest.mark.parametrize("name", SMALL)
def test_keyboard_controls(app, name):
    trace = Trace(KERNELS[name], params(name, SMALL[name]))
    go(app, link(name, SMALL[name], step=0))
    app.page.locator(f"#view-{name} h1").click()
    presses = (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("n", trace.steps_per_block))
    for key, expected in (*presses, ("End", len(trace) - 1), ("Home", 0)):
        app.page.keyboard.press(key)
        assert url_has(app.page, f"step={expected}"), key


@pytest.mark.parametrize("name", SMALL)
def test_every_preset_steps(app, name):
    """Each preset steps; one too large to animate (siboehm's 128³) shows the closed-form totals instead."""
    kernel = KERNELS[name]
    for raw in kernel.PARAMS.PRESETS.values():
        p = kernel.PARAMS(**raw)
        if p.too_large_to_animate():
            go(app, link(name, p.as_strings(), mode="counts"))
            assert section(app, name).locator("[data-testid=counts-note]").is_visible()
            assert value(app, name, "counter-shared_wavefronts") == kernel.counters(p).shared_wavefronts
            continue
        go(app, link(name, p.as_strings(), step=0))
        section(app, name).locator("[data-testid=step]").click()
        assert url_has(app.page, "step=1", f"M={p.M}")
        assert section(app, name).locator("[data-testid=input-error]").inner_text() == ""
        assert value(app, name, "counter-global_loads") == Trace(kernel, p)[1].counters.global_loads


@pytest.mark.parametrize("name", SMALL)
def test_a_bare_link_opens_at_the_teaching_preset(browser, server, name):
    from browser.conftest import Visit

    fresh = Visit(browser, server)
    try:
        fresh.open(f"#/{name}")
        for key, number in TEACHING[name].items():
            assert url_has(fresh.page, f"{key}={number}")
    finally:
        fresh.close()


def test_embed_and_lock_keep_stepping(app):
    go(app, link("warptile", TEACHING["warptile"], step=3, embed=1, lock=1))
    assert not section(app, "warptile").locator(".param-form").is_visible()
    section(app, "warptile").locator("[data-testid=step]").click()
    assert url_has(app.page, "step=4", "embed=1", "lock=1")
    go(app, "#/")


@pytest.mark.parametrize("name", SMALL)
def test_explanation_numbers_follow_the_sizes_on_screen(app, name):
    go(app, link(name, SMALL[name]))
    expected = blocktiled.slot_values(name, params(name, SMALL[name]))
    root = section(app, name)
    for slot in ("this_load_instructions", "prev_load_instructions", "this_run_load_instructions", "M", "N", "K"):
        assert root.locator(f"[data-slot={slot}]").first.get_attribute("data-value") == str(expected[slot]), slot
    for slot in ("this_wavefronts_per_fma", "this_warp_reuse", "waves_change", "compare_note"):
        if slot in expected:
            assert root.locator(f"[data-slot={slot}]").first.inner_text() == expected[slot], slot


SERIOUS = """() => axe.run(document, {resultTypes: ['violations']}).then(result => result.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => `${v.id} (${v.impact}): ${v.nodes[0].target}`))"""


def test_axe_finds_no_serious_violations(app):
    for name in SMALL:
        index = first_step(name, TEACHING[name], lambda s: s.inner != ())
        go(app, link(name, TEACHING[name], step=index))
        app.page.wait_for_timeout(200)
        app.page.evaluate(AXE.read_text())
        assert app.page.evaluate(SERIOUS) == [], name
