"""#/hierarchy in Chromium: what needs a browser (scrolling to a step, labels inside their pictures, the prose
before Python, the keyboard). Its numbers, banks, walls, quiz and times: tests/views/test_hierarchy.py."""

import pytest

from browser.conftest import go, url_has, view

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


# Sizes that draw the pictures differently: a divisor, an edge, a tile wider than the matrix, 1×1, the largest.
PICTURED = ("N=1024&T=16", "N=1000&T=16", "N=8&T=16", "N=1&T=1", "N=16384&T=256&device=h100")


@pytest.mark.parametrize("width,height", [(1280, 720), (360, 800)])
def test_every_svg_label_inside_its_picture(app, width, height):
    """Each of those, walked through its steps, at a projector's and a phone's width. (That every step draws a
    labelled picture: tests/views/test_hierarchy.py.)"""
    app.page.set_viewport_size({"width": width, "height": height})
    try:
        outside = {}
        for route in PICTURED:
            for step in range(8):
                go(app, f"#/hierarchy?{route}&step={step}")
            problems = app.page.evaluate(SVG_TEXT_OUTSIDE)
            if problems:
                outside[route] = problems
        assert outside == {}
    finally:
        app.page.set_viewport_size({"width": 1280, "height": 900})


def test_the_prose_reads_without_python(visit):
    visit.page.route("**/pyscript/core.js", lambda route: route.abort())
    # The free walkthrough (guide=0, pre-rendered on its own): the guided one shows a step once it is asked about.
    visit.page.goto(visit.server.url + "#/hierarchy?guide=0")
    visit.page.wait_for_timeout(500)
    text = visit.page.locator("#view-hierarchy").inner_text()
    assert "2,147,483,648" in text and "134,217,728" in text
    # The numbers are the pre-rendered defaults' (tools/sitebuild/prerender.py), and the form says which.
    view = visit.page.locator("#view-hierarchy")
    assert view.locator("[data-testid=input-N]").input_value() == "1024"
    assert view.locator("[data-testid=input-T]").input_value() == "16"
    for step in range(8):
        assert visit.page.locator(f"[data-testid=walk-step-{step}] h2").is_visible()


def test_keyboard_moves_through_all_steps(app):
    go(app, "#/hierarchy?N=1024&T=16&step=0")
    app.page.locator("#view-hierarchy h1").click()
    for expected in range(1, 8):
        app.page.keyboard.press("ArrowRight")
        assert url_has(app.page, f"step={expected}")
        assert (
            view(app, "hierarchy").locator(f"[data-testid=walk-step-{expected}]").get_attribute("aria-current")
            == "step"
        )
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=7")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=6")


# --- steps 5 and 7: a time is the bound or a labelled estimate, and only for a tile that launches ---------
