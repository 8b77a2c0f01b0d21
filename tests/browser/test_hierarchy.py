"""#/hierarchy in Chromium: every number follows N and T, banks, walls, quiz, keyboard."""

import re

import pytest

from browser.conftest import go, url_has, view
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams
from pysim.lessons.formulas import naive_loads, tiled_loads
from pysim.lessons.ladder import measured_seconds
from pysim.lessons.walkthrough import Walkthrough
from pysim.speed import measured
from timetext import bound_times, durations


def section(app):
    return view(app, "hierarchy")


def number(app, testid):
    return int(section(app).locator(f"[data-testid={testid}]").get_attribute("data-value"))


def test_defaults_show_the_seed_numbers(app):
    go(app, "#/hierarchy?N=1024&T=16")
    text = section(app).inner_text()
    assert "2,147,483,648" in text and "134,217,728" in text
    assert number(app, "naive-total") == 2_147_483_648
    assert number(app, "tiled-total") == 134_217_728


@pytest.mark.parametrize("N,T", [(1000, 16), (512, 8), (300, 7), (64, 1)])
def test_numbers_follow_n_and_t(app, N, T):
    go(app, f"#/hierarchy?N={N}&T={T}")
    # Independent closed forms, written out here: 2N³ and 2N²⌈N/T⌉.
    assert number(app, "naive-total") == 2 * N**3 == naive_loads(N, N, N)
    assert number(app, "tiled-total") == 2 * N * N * -(-N // T) == tiled_loads(N, N, N, T)
    assert number(app, "per-thread-loads") == 2 * N
    assert number(app, "tiles-per-row") == -(-N // T)
    speedup = float(section(app).locator("[data-testid=speedup]").get_attribute("data-value"))
    assert speedup == pytest.approx((2 * N**3) / (2 * N * N * -(-N // T)))


def test_edge_blocks_explain_the_excess(app):
    go(app, "#/hierarchy?N=1000&T=16")
    text = section(app).locator("[data-testid=walk-step-4]").inner_text()
    assert "126,000,000" in text and "125,000,000" in text
    assert "zero-filled" in text and "only 8 wide" in text and "1,000,000 more" in text


def test_reduction_is_computed_not_fifteen(app):
    go(app, "#/hierarchy?N=1024&T=40")
    step5 = section(app).locator("[data-testid=walk-step-5]")
    assert step5.locator("[data-testid=speedup]").inner_text() == "39.38×"
    assert "15×" not in section(app).inner_text()
    assert "global-load reduction" in step5.inner_text() and "L2" in step5.inner_text()


def test_tile_wider_than_matrix_explains_the_2n2_floor(app):
    go(app, "#/hierarchy?N=8&T=16")
    floor = section(app).locator("[data-testid=floor-loads]")
    assert floor.is_visible() and floor.get_attribute("data-value") == "128"
    text = section(app).locator("[data-testid=walk-step-4]").inner_text()
    assert "2N²" in text and "capped" in text and "= 8" in text
    assert number(app, "tiled-total") == 128
    go(app, "#/hierarchy?N=1024&T=16")
    assert not section(app).locator("[data-testid=floor-loads]").is_visible()


def test_enter_in_a_quiz_box_checks_it(app):
    go(app, "#/hierarchy?N=1024&T=16")
    box = section(app).locator("[data-testid=quiz-padded]")
    box.fill("1")
    box.press("Enter")
    feedback = section(app).locator("[data-testid=quiz-padded-feedback]")
    assert feedback.get_attribute("class") == "feedback right"
    assert section(app).locator("form[data-quiz=padded] .explain").is_visible()
    assert url_has(app.page, "N=1024")  # still on the page: the form did not navigate


def test_controls_are_bound_once(app):
    go(app, "#/hierarchy?N=1024&T=16&step=6")
    before = app.page.evaluate("document.querySelector('#view-hierarchy [data-testid=input-pad]') !== null")
    pad = section(app).locator("[data-testid=input-pad]")
    handle = pad.element_handle()
    for value in ("1", "0", "2", "0"):
        pad.select_option(value)
    go(app, "#/hierarchy?N=512&T=8&step=6")
    assert before and handle.evaluate("e => e.isConnected")  # the same select, updated, not rebuilt
    assert number(app, "bank-degree") == 32


STEP_LINK = "#/hierarchy?N=1024&T=16&step=4"


def step_top(page) -> float:
    """How far below the walkthrough's sticky bar (its form and Back/Next) step 4 starts, in px."""
    return page.evaluate(
        """() => document.querySelector('[data-testid=walk-step-4]').getBoundingClientRect().top
          - Math.max(0, document.querySelector('[data-part=walk-bar]').getBoundingClientRect().bottom)"""
    )


def test_step_link_scrolls_to_the_step(visit):
    visit.open(STEP_LINK)
    visit.page.wait_for_timeout(200)
    assert 0 <= step_top(visit.page) < 40


def test_step_link_scrolls_inside_a_frame_not_the_parent(visit):
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title></head><body>'
        f'<h1>Course page</h1><iframe id="frame" title="TileLab" width="800" height="600" src="/{STEP_LINK}"></iframe>'
        '<p style="height:2000px">more</p></body></html>'
    )
    visit.server.extra["course.html"] = ("text/html; charset=utf-8", page.encode())
    try:
        visit.page.goto(visit.server.url + "course.html")
        frame = visit.page.query_selector("#frame").content_frame()
        frame.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
        visit.page.wait_for_timeout(300)
        assert visit.page.evaluate("scrollY") == 0
        assert 0 <= step_top(frame) < 40
    finally:
        visit.server.extra.clear()


SVG_TEXT_OUTSIDE = """() => {
  const bad = [];
  document.querySelectorAll('#view-hierarchy svg').forEach(s => {
    const box = s.getBoundingClientRect();
    if (box.width === 0) return;
    s.querySelectorAll('text').forEach(t => {
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        bad.push((s.dataset.picture || '?') + ': ' + t.textContent);
    });
  });
  return bad;
}"""


@pytest.mark.parametrize("width,height", [(1280, 720), (360, 800)])
@pytest.mark.parametrize("route", ["N=1024&T=16", "N=1000&T=16", "N=8&T=16", "N=1&T=1", "N=16384&T=256&device=h100"])
def test_every_svg_label_inside_its_picture(app, width, height, route):
    app.page.set_viewport_size({"width": width, "height": height})
    try:
        go(app, f"#/hierarchy?{route}&step=0")
        for step in range(8):
            go(app, f"#/hierarchy?{route}&step={step}")
            assert section(app).locator(f"[data-testid=walk-step-{step}] svg.picture text").count() > 0
        assert app.page.evaluate(SVG_TEXT_OUTSIDE) == []
    finally:
        app.page.set_viewport_size({"width": 1280, "height": 900})


def test_the_prose_reads_without_python(visit):
    visit.page.route("**/pyscript/core.js", lambda route: route.abort())
    visit.page.goto(visit.server.url + "#/hierarchy")
    visit.page.wait_for_timeout(500)
    text = visit.page.locator("#view-hierarchy").inner_text()
    assert "2,147,483,648" in text and "134,217,728" in text
    # The numbers are the pre-rendered defaults' (tools/sitebuild/prerender.py), and the form says which.
    view = visit.page.locator("#view-hierarchy")
    assert view.locator("[data-testid=input-N]").input_value() == "1024"
    assert view.locator("[data-testid=input-T]").input_value() == "16"
    for step in range(8):
        assert visit.page.locator(f"[data-testid=walk-step-{step}] h2").is_visible()


def test_bank_step_32_way_and_padding(app):
    go(app, "#/hierarchy?N=1024&T=16&step=6")
    assert number(app, "bank-degree") == 32
    section(app).locator("[data-testid=input-pad]").select_option("1")
    assert number(app, "bank-degree") == 1
    assert url_has(app.page, "pad=1")
    section(app).locator("[data-testid=input-pad]").select_option("2")
    assert number(app, "bank-degree") == 2
    section(app).locator("[data-testid=input-access]").select_option("row")
    assert number(app, "bank-degree") == 1


def test_wall_appears_past_the_thread_limit(app):
    go(app, "#/hierarchy?N=1024&T=32")
    assert "fits" in section(app).locator("[data-testid=wall-message]").inner_text()
    go(app, "#/hierarchy?N=1024&T=33")
    message = section(app).locator("[data-testid=wall-message]").inner_text()
    assert "1,089 threads per block" in message


def test_quiz_marks_right_and_wrong(app):
    go(app, "#/hierarchy?N=1024&T=16")
    quiz = section(app)
    quiz.locator("[data-testid=quiz-tiled]").fill("33,554,432")
    quiz.locator("[data-testid=quiz-tiled-check]").click()
    assert quiz.locator("[data-testid=quiz-tiled-feedback]").get_attribute("class") == "feedback right"
    quiz.locator("[data-testid=quiz-bank]").fill("16")
    quiz.locator("[data-testid=quiz-bank-check]").click()
    feedback = quiz.locator("[data-testid=quiz-bank-feedback]")
    assert feedback.get_attribute("class") == "feedback wrong" and "32" not in feedback.inner_text()  # see test_quiz
    quiz.locator("[data-testid=quiz-naive]").fill("<img src=x onerror=alert(1)>")
    quiz.locator("[data-testid=quiz-naive-check]").click()
    assert "whole number" in quiz.locator("[data-testid=quiz-naive-feedback]").inner_text()


def test_keyboard_moves_through_all_steps(app):
    go(app, "#/hierarchy?N=1024&T=16&step=0")
    app.page.locator("#view-hierarchy h1").click()
    for expected in range(1, 8):
        app.page.keyboard.press("ArrowRight")
        assert url_has(app.page, f"step={expected}")
        assert section(app).locator(f"[data-testid=walk-step-{expected}]").get_attribute("aria-current") == "step"
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=7")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=6")


def test_bad_url_values_show_an_error_and_keep_state(app):
    go(app, "#/hierarchy?N=1024&T=16")
    go(app, "#/hierarchy?N=abc&T=16")
    assert "N must be a whole number" in section(app).locator("[data-testid=input-error]").inner_text()
    assert number(app, "naive-total") == 2_147_483_648


def test_both_walls_are_drawn(app):
    go(app, "#/hierarchy?N=1024&T=16&step=7")
    walls = section(app).locator("[data-testid=walk-step-7] svg .wall")
    assert walls.count() == 2
    labels = section(app).locator("[data-testid=walk-step-7] svg").text_content()
    assert "1,024 threads" in labels and "shared memory" in labels
    ticks = section(app).locator("[data-testid=walk-step-7] svg text").all_text_contents()
    assert "20" in ticks and "40" in ticks and not any("." in t for t in ticks if t.replace(".", "").isdigit())


# --- steps 5 and 7: a time is the bound or a labelled estimate, and only for a tile that launches ---------
def siboehm_seconds(*numbers: int) -> list[float]:
    """siboehm's measured times at 4096³ on the RTX A6000 (0: cuBLAS)."""
    return [measured_seconds(measured(n).gflops) for n in numbers]


def test_no_bound_on_the_page_is_beaten_by_siboehms_kernels(app):
    # His kernel 2 (naive, coalesced, 32×32 blocks) and kernel 3 (shared-memory tiled, 32): the kernels of this page
    # at his size on his card. A bound holds for any kernel, so it must not exceed cuBLAS's time either.
    go(app, "#/hierarchy?N=4096&T=32&device=rtxa6000&step=5")
    text = section(app).inner_text()
    printed = bound_times(text)
    assert printed, "the page prints the bound"
    assert max(printed) <= min(siboehm_seconds(1, 2, 3, 0))
    bound = float(section(app).locator("[data-testid=time-bound]").get_attribute("data-value"))
    assert bound == Walkthrough(HierarchyParams(N=4096, T=32, device="rtxa6000")).bound.seconds
    estimate = section(app).locator("[data-testid=time-estimate]")
    assert "Estimate (speed model, not a measurement)" in estimate.inner_text()
    assert float(estimate.get_attribute("data-naive")) >= bound and float(estimate.get_attribute("data-tiled")) >= bound
    assert "global-load reduction" in text and "32.00×" in text


def test_a_tile_that_cannot_launch_prints_no_speed(app):
    go(app, "#/hierarchy?N=100&T=33&step=5")
    text = section(app).inner_text()
    assert durations(text) == [] and "FLOP/s" not in text
    assert not section(app).locator("[data-testid=time-bound]").is_visible()
    assert not section(app).locator("[data-testid=time-estimate]").is_visible()
    why = section(app).locator("[data-testid=no-time]")
    assert why.is_visible() and "cannot launch" in why.inner_text() and "1,089 threads per block" in why.inner_text()
    assert "gives no time" in section(app).locator("[data-testid=wall-message]").inner_text()
    step5 = section(app).locator("[data-testid=walk-step-5]").inner_text()  # no traffic for a kernel that cannot run
    assert not section(app).locator("[data-testid=no-reuse]").is_visible() and "would reach DRAM" not in step5
    assert "not a run" in why.inner_text()
    go(app, "#/hierarchy?N=100&T=32&step=5")  # one smaller, and the times come back
    assert section(app).locator("[data-testid=time-bound]").is_visible()
    assert section(app).locator("[data-testid=no-reuse]").is_visible()
    assert not section(app).locator("[data-testid=no-time]").is_visible()


@pytest.mark.parametrize("device", ["a100", "h200", "t4"])
def test_each_latency_links_its_source_or_says_it_is_an_assumption(app, device):
    go(app, f"#/hierarchy?N=1024&T=16&device={device}&step=0")
    d = DEVICES[device]
    for field in ("latency_register", "latency_shared", "latency_l2", "latency_global"):
        figure, link = getattr(d, field), section(app).locator(f"[data-source={field}]")
        if not figure.source.startswith("https://"):  # a modelled assumption
            assert link.get_attribute("href") is None and link.inner_text() == "none: a modelled assumption"
        else:
            assert link.get_attribute("href") == figure.source and link.inner_text() == "source"
    text = section(app).locator("[data-testid=walk-step-0]").inner_text()
    assert "ticks of arithmetic" not in text and "other warps" in text and "four places" in text


@pytest.mark.parametrize("N, T", [(1, 1), (8, 1), (17, 16), (1024, 16)])
def test_reuse_counts_read_right_in_every_step(app, N, T):
    go(app, f"#/hierarchy?N={N}&T={T}&step=0")
    text = section(app).inner_text()
    # A reuse of 1 reads "1 thread", "1 time", "1 output cell", "1 use"; never a plural after 1.
    assert not re.findall(r"\b1 (?:threads|times|uses|values|output cells)\b", text)
    reuse = Walkthrough(HierarchyParams(N=N, T=T)).reuse
    assert f"used by up to {reuse} {'thread' if reuse == 1 else 'threads'}" in " ".join(text.split())
