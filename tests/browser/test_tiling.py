"""#/tiling in Chromium: counters, stepping, URL state, keyboard, lens, errors, verify."""

import pytest

from browser.conftest import go, url_has, value, view
from bruteforce import smem
from pysim.core.trace import Trace
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS
from pysim.lessons.ladder import measured_seconds
from pysim.speed import latency_floor, measured
from timetext import bound_times, durations

COUNTERS = ("global_loads", "shared_loads", "shared_stores", "fma", "barriers", "global_sectors", "bank_extra_cycles")


def tiling(app):
    return view(app, "tiling")


def click(app, testid):
    tiling(app).locator(f"[data-testid={testid}]").click()


def state(app):
    """Everything a step shows that must round-trip: counters, focus, narration, step position."""
    section = tiling(app)
    counters = {name: section.locator(f"[data-testid=counter-{name}]").get_attribute("data-value") for name in COUNTERS}
    return (
        counters,
        section.locator("[data-testid=focus]").inner_text(),
        section.locator("[data-testid=narration]").inner_text(),
        section.locator(".position").inner_text(),
    )


def apply_sizes(app, **sizes):
    for name, text in sizes.items():
        tiling(app).locator(f"[data-testid=input-{name}]").fill(str(text))
    click(app, "apply")


@pytest.mark.parametrize("M,N,K,T", [(4, 4, 8, 2), (6, 6, 9, 3), (5, 7, 3, 2), (9, 4, 11, 4)])
def test_run_to_end_counters_equal_brute_force(app, M, N, K, T):
    go(app, f"#/tiling?M={M}&N={N}&K={K}&T={T}")
    click(app, "run-to-end")
    expected = smem(M, N, K, T)
    for name in COUNTERS:
        assert value(app, "tiling", f"counter-{name}") == expected[name], name
    assert tiling(app).locator("[data-testid=verify]").get_attribute("data-value") == "ok"


def test_prev_undoes_a_step(app):
    go(app, "#/tiling?M=6&N=6&K=9&T=3&step=5")
    before = state(app)
    click(app, "step")
    assert state(app) != before
    click(app, "prev")
    assert state(app) == before


def test_hash_restores_state_in_a_fresh_page(app, visit):
    go(app, "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14")
    shown = state(app)
    url = app.page.url
    assert "thread=1,2" in url and "step=14" in url
    visit.page.goto(url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    assert state(visit) == shown
    assert visit.page.url == url


def test_address_follows_every_step(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2&step=0")
    click(app, "step")
    click(app, "step")
    assert url_has(app.page, "step=2")
    click(app, "next-block")
    trace = Trace(KERNELS["smem"], SmemParams(M=4, N=4, K=8, T=2))
    assert url_has(app.page, f"step={trace.steps_per_block}")


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


def test_play_advances_at_the_chosen_speed(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2&step=0")
    speed = tiling(app).locator("[data-testid=speed]")
    speed.fill("50")
    click(app, "play")
    app.page.wait_for_function("() => /step=([5-9]|\\d\\d)/.test(location.hash)", timeout=5000)
    click(app, "play")


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


@pytest.mark.parametrize(
    "field,text,message",
    [
        ("M", "a", "M must be a whole number"),
        ("K", "0", "K must be at least 1"),
        ("N", "-4", "N must be at least 1"),
        ("T", "64", "T=64 needs 4,096 threads per block"),
        ("M", "<b>x</b>", "M must be a whole number"),
    ],
)
def test_invalid_input_shows_error_and_keeps_state(app, field, text, message):
    go(app, "#/tiling?M=6&N=6&K=9&T=3&step=7")
    before = state(app)
    apply_sizes(app, **{field: text})
    error = tiling(app).locator("[data-testid=input-error]")
    assert error.is_visible()
    assert message in error.inner_text()
    assert state(app) == before
    assert tiling(app).locator(f"[data-testid=input-{field}]").get_attribute("aria-invalid") == "true"
    assert tiling(app).locator("[data-testid=input-error] b").count() == 0


def test_too_large_offers_counts_only(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2")
    apply_sizes(app, M=1000, N=1000, K=1000, T=16)
    assert "too large to animate" in tiling(app).locator("[data-testid=input-error]").inner_text()
    click(app, "counts-only")
    expected = KERNELS["smem"].counters(SmemParams(M=1000, N=1000, K=1000, T=16))
    assert value(app, "tiling", "counter-global_loads") == expected.global_loads == 126_000_000
    assert url_has(app.page, "mode=counts")


def test_a_first_visit_too_large_to_animate_shows_its_counts(visit):
    """A link to sizes too large to animate, without mode=counts, opened first: the counts of those sizes. (It
    animated the defaults under an error that said "counts only", with the counts button hidden.)"""
    visit.open("#/tiling?M=1000&N=1000&K=1000&T=16")
    expected = KERNELS["smem"].counters(SmemParams(M=1000, N=1000, K=1000, T=16))
    assert value(visit, "tiling", "counter-global_loads") == expected.global_loads == 126_000_000
    assert value(visit, "tiling", "counter-fma") == expected.fma == 1008**3  # 63 tiles of 16 each way, padded
    assert "M=1000 is too large to animate" in tiling(visit).locator("[data-testid=counts-note]").inner_text()
    assert not tiling(visit).locator("[data-testid=input-error]").is_visible()
    assert url_has(visit.page, "M=1000", "mode=counts")


def test_lens_shows_the_followed_threads_row_and_column(app):
    p = SmemParams(M=6, N=6, K=9, T=3)
    trace = Trace(KERNELS["smem"], p)
    index = trace.first_step(1) + 12  # block (1,0), tile 2, k=1
    go(app, f"#/tiling?M=6&N=6&K=9&T=3&thread=2,1&step={index}")
    step = trace[index]
    assert step.phase == "compute"
    row = [float(x) for x in tiling(app).locator("[data-testid=lens-row] li").all_inner_texts()]
    col = [float(x) for x in tiling(app).locator("[data-testid=lens-col] li").all_inner_texts()]
    # Independently: thread (2,1) of block (1,0) at tile 2 sees A[1][3..5] and B[3..5][5].
    assert row == list(trace.A[1, 3:6])
    assert col == list(trace.B[3:6, 5])
    assert tiling(app).locator("[data-testid=lens-timeline] li.current").inner_text().startswith("k=1")


def test_bare_link_keeps_the_readers_state(app):
    go(app, "#/tiling?M=5&N=6&K=9&T=3&step=9")
    go(app, "#/")
    go(app, "#/tiling")
    assert url_has(app.page, "M=5", "step=9")


def test_clicking_c_follows_its_thread(app):
    go(app, "#/tiling?M=6&N=6&K=9&T=3&step=0")
    tiling(app).locator("[data-testid=grid-C] .cell[data-r='4'][data-c='2']").click()
    assert url_has(app.page, "thread=2,1")
    assert "Block (0, 1)" in tiling(app).locator("[data-testid=focus]").inner_text()


def test_zero_fill_is_drawn_for_edge_tiles(app):
    p = SmemParams(M=5, N=5, K=5, T=2)
    trace = Trace(KERNELS["smem"], p)
    index = next(s.index for s in trace if s.phase == "load" and s.tile == 2)
    go(app, f"#/tiling?M=5&N=5&K=5&T=2&step={index}")
    assert tiling(app).locator("[data-testid=grid-tileA] .cell.zero-fill").count() == 2


def test_bank_analysis_shows_broadcast_and_distinct_banks(app):
    go(app, "#/tiling?M=32&N=32&K=32&T=8")
    a = tiling(app).locator("[data-testid=bank-tileA]")
    b = tiling(app).locator("[data-testid=bank-tileB]")
    assert a.get_attribute("data-degree") == "1" and "broadcast" in a.inner_text()
    assert b.get_attribute("data-degree") == "1" and "8 banks" in b.inner_text()


def test_math_panel_uses_the_current_numbers(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2")
    text = tiling(app).locator("[data-testid=why-tiling]").inner_text()
    assert "256" in text and "128" in text
    go(app, "#/tiling?M=5&N=6&K=9&T=3")
    text = tiling(app).locator("[data-testid=why-tiling]").inner_text()
    assert "198" in text and "18 more than ideal" in text


# --- the device panel every stepping view shares: only the bound is called a bound ------------------------
def panel(app, route):
    return view(app, route).locator(".device-panel")


def test_the_device_panel_at_the_smallest_size_prints_the_latency_floor(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2")
    floor = latency_floor(DEVICES["a100"])  # one global round trip: 290 cycles at 1,410 MHz
    printed = bound_times(panel(app, "tiling").inner_text())
    assert printed and min(printed) >= floor * (1 - 1e-3), "no sub-nanosecond time called a bound"
    bound = panel(app, "tiling").locator("[data-testid=time-bound]")
    assert float(bound.get_attribute("data-value")) == floor
    estimate = panel(app, "tiling").locator("[data-testid=speed-estimate]")
    assert estimate.is_visible() and estimate.inner_text().startswith("Estimate (model, not a measurement)")
    assert float(estimate.get_attribute("data-value")) >= floor
    assert min(durations(estimate.inner_text())) >= floor * (1 - 1e-3)


@pytest.mark.parametrize(
    "route,sizes,number",
    [
        ("tiling", "T=32", 3),  # siboehm's kernel 3: shared-memory tiled, 32×32
        ("naive", "T=32&map=col", 2),  # kernel 2: naive, coalesced
        ("naive", "T=32&map=row", 1),  # kernel 1: naive, strided
    ],
)
def test_no_bound_in_the_device_panel_is_beaten_by_siboehms_kernel(app, route, sizes, number):
    go(app, f"#/{route}?M=4096&N=4096&K=4096&{sizes}&device=rtxa6000&mode=counts")  # too large to animate
    measured_s = measured_seconds(measured(number).gflops)
    text = panel(app, route).inner_text()
    assert "NVIDIA RTX A6000: published figures" in text
    printed = bound_times(text)
    assert printed and max(printed) <= measured_s
    bound = float(panel(app, route).locator("[data-testid=time-bound]").get_attribute("data-value"))
    estimate = float(panel(app, route).locator("[data-testid=speed-estimate]").get_attribute("data-value"))
    assert bound <= measured_s and estimate >= bound
    assert bound == pytest.approx(3.55e-3, rel=1e-3)  # 2·4096³ FLOPs at the A6000's 38.7 TFLOP/s
