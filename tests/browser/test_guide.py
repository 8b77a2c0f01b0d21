"""The guided lesson in Chromium (SPEC §7): one guide completed from the keyboard alone (#/tiling, and the
walkthrough's with axe-core run while a question is open), a cells answer given by clicking the picture
(#/register) or on a canvas (#/transpose), and the question on the first screen of every guided view at four
sizes. Every other guided view's whole guide is driven in Chromium by test_guide_every_view.py, and in CPython
(tests/views/test_guide.py) at more sizes; here what needs a browser: focus, keys, clicks and layout."""

import pytest

from app.core.urlstate import EMBED_HEIGHT, GUIDED_VIEWS
from browser.conftest import READY_TIMEOUT_MS, Visit, go, view
from browser.test_first_screen import SERIOUS
from browser.test_ladder import AXE
from pysim.lessons.guides import guide_for
from pysim.lessons.guides.model import Task

TILING = {"M": "4", "N": "4", "K": "8", "T": "2"}
VISIBLE = "els => els.filter(e => e.checkVisibility()).length"


def keyboard_answer(app, section, moment) -> None:
    guide = section.locator("[data-testid=guide]")
    if moment.kind == "number":
        guide.locator("[data-testid=guide-answer]").focus()
        app.page.keyboard.type(str(moment.answer))
        app.page.keyboard.press("Enter")
    elif moment.kind == "choice":
        guide.locator(f"[data-testid=guide-choice][data-value='{moment.answer}']").focus()
        app.page.keyboard.press("Enter")
    else:
        for array, row, col in sorted(moment.answer):
            section.locator(f"[data-array='{array}'][data-index='{row},{col}']").focus()
            app.page.keyboard.press("Enter")
        guide.locator("[data-testid=guide-submit]").focus()
        app.page.keyboard.press("Enter")


def test_a_whole_guide_from_the_keyboard(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2&guide=1")
    section = view(app, "tiling")
    prose = section.locator("[data-testid=why-tiling]")

    def asking(moment) -> None:  # the prose states the answers: not in the page (a <template> until placed)
        assert prose.count() == 0 and section.locator("[data-testid=prose-withheld]").is_visible()

    keyboard_guide(app, section, guide_for("tiling", TILING), asking)
    section.locator("[data-testid=guide-next]").focus()
    app.page.keyboard.press("Enter")  # every question answered: the prose is placed, for the sizes on screen
    assert prose.is_visible() and "T (TILE) = 4" in prose.inner_text()


def keyboard_guide(app, section, lesson, asking=lambda moment: None) -> None:
    """Every question of `lesson` answered right from the keyboard alone, then its change-it task; `asking` checks
    the page while each question is open."""
    guide = section.locator("[data-testid=guide]")
    for moment in lesson.moments:
        assert guide.locator("[data-testid=guide-question]").inner_text() == moment.question
        assert moment.why not in guide.inner_text()
        asking(moment)
        keyboard_answer(app, section, moment)
        assert guide.locator("[data-testid=guide-result]").get_attribute("data-value") == "right"
        guide.locator("[data-testid=guide-next]").focus()
        app.page.keyboard.press("Enter")
    task = lesson.task
    assert isinstance(task, Task)
    guide.locator("[data-testid=guide-change]").focus()
    app.page.keyboard.press("Enter")
    assert guide.locator("[data-testid=guide-question]").inner_text() == task.moment.question
    keyboard_answer(app, section, task.moment)
    assert guide.locator("[data-testid=guide-result]").get_attribute("data-value") == "right"


def to_the_first_cells_question(guide) -> None:
    question = guide.locator("[data-testid=guide-question]")
    for _ in range(8):  # on through the questions before the first cells question (their answers shown)
        kind = question.get_attribute("data-kind")
        if kind == "cells":
            break
        if kind:
            guide.locator("[data-testid=guide-reveal]").click()
        guide.locator("[data-testid=guide-next]").click()
    assert question.get_attribute("data-kind") == "cells"


def test_a_cells_answer_is_clicked_on_the_picture(app):
    go(app, "#/register?guide=1")
    section = view(app, "register")
    guide = section.locator("[data-testid=guide]")
    question = guide.locator("[data-testid=guide-question]")
    to_the_first_cells_question(guide)
    guide.locator("[data-testid=guide-submit]").click()
    assert "at least one cell" in guide.locator("[data-testid=guide-refusal]").inner_text()
    asked = next(m for m in guide_for("register", _sizes(app)).moments if m.question == question.inner_text())
    for array, row, col in sorted(asked.answer):
        section.locator(f"[data-array='{array}'][data-index='{row},{col}']").click()
    guide.locator("[data-testid=guide-submit]").click()
    assert guide.locator("[data-testid=guide-result]").get_attribute("data-value") == "right"
    assert section.locator(".cell.guide-hit").count() == len(asked.answer)


def test_a_cells_answer_is_clicked_on_a_canvas(app):
    go(app, "#/transpose?guide=1")  # its presets draw the 64×64 matrices on canvases
    section = view(app, "transpose")
    guide = section.locator("[data-testid=guide]")
    question = guide.locator("[data-testid=guide-question]")
    to_the_first_cells_question(guide)
    sizes = _sizes(app)
    asked = next(m for m in guide_for("transpose", sizes).moments if m.question == question.inner_text())
    for array, row, col in sorted(asked.answer):
        assert array in ("A", "C")  # n×n matrices: a cell is the canvas's width over n
        canvas = section.locator(f"[data-testid=canvas-{array}]")
        canvas.scroll_into_view_if_needed()
        pitch = canvas.bounding_box()["width"] / int(sizes["n"])
        canvas.click(position={"x": (col + 0.5) * pitch, "y": (row + 0.5) * pitch})
    guide.locator("[data-testid=guide-submit]").click()
    assert guide.locator("[data-testid=guide-result]").get_attribute("data-value") == "right"


def address(app) -> dict[str, str]:
    """The address's keys and values, as the page holds them now."""
    query = app.page.evaluate("location.hash").partition("?")[2]
    return dict(part.split("=", 1) for part in query.split("&") if "=" in part)


def _sizes(app) -> dict[str, str]:
    return {key: value for key, value in address(app).items() if key not in ("thread", "step", "guide")}


# A projector, a laptop, a phone, and the Share snippet's frame in an 800×600 course page (embed=1, 800×560).
FIRST_SCREENS = (
    ("projector", 1280, 720, ""),
    ("laptop", 1366, 768, ""),
    ("phone", 360, 800, ""),
    ("embed", 800, EMBED_HEIGHT, "&embed=1"),
)
# The guide's box on the first screen, whole: nothing of it above, below or beside the viewport, no text of it
# cut (a box narrower than its content), and its question and answer controls shown.
GUIDE_BOX = """([view, width, height]) => {
  const guide = document.querySelector(`#view-${view} [data-testid=guide]`);
  if (!guide || !guide.checkVisibility()) return [`${view}: no guide shown`];
  const problems = [];
  const box = guide.getBoundingClientRect();
  if (box.top < 0 || box.bottom > height || box.left < 0 || box.right > width)
    problems.push(`${view}: the guide at x ${box.left | 0}..${box.right | 0}, y ${box.top | 0}..${box.bottom | 0}`);
  for (const el of [guide, ...guide.querySelectorAll('*')]) {
    if (!el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      problems.push(`${view}: text cut in <${el.tagName.toLowerCase()} class="${el.className}">`);
    if (r.right > box.right + 1 || r.left < box.left - 1)
      problems.push(`${view}: <${el.tagName.toLowerCase()} class="${el.className}"> leaves the guide`);
  }
  const question = guide.querySelector('[data-testid=guide-question]');
  if (!question.checkVisibility()) problems.push(`${view}: guide-question not shown`);
  const asking = question.dataset.kind;  // a question open (else the box says where the next one is)
  if (asking && !guide.querySelector('[data-testid=guide-reveal]').checkVisibility())
    problems.push(`${view}: guide-reveal not shown`);
  return problems;
}"""


@pytest.mark.parametrize("screen", FIRST_SCREENS, ids=[s[0] for s in FIRST_SCREENS])
def test_the_question_is_on_the_first_screen_of_every_guided_view(browser, server, screen):
    _, width, height, frame = screen
    visit = Visit(browser, server)
    visit.context.close()
    visit.context = browser.new_context(viewport={"width": width, "height": height})
    visit.page = visit.context.new_page()
    try:
        visit.open(f"#/?guide=1{frame}")
        found = []
        for spec in GUIDED_VIEWS:
            name = spec.path.strip("/")
            go(visit, f"#{spec.path}?guide=1{frame}")
            visit.page.wait_for_function(
                f"document.querySelector('#view-{name} [data-testid=guide]')?.checkVisibility()",
                timeout=READY_TIMEOUT_MS,
            )
            visit.page.evaluate("window.scrollTo(0, 0)")
            found += visit.page.evaluate(GUIDE_BOX, [name, width, height])
        assert found == []
    finally:
        visit.close()


def test_the_walkthrough_guide_from_the_keyboard_axe_clean_with_a_question_open(app):
    go(app, "#/hierarchy?guide=1")
    section = view(app, "hierarchy")
    lesson = guide_for("hierarchy", {})
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS) == [], "a question open, the later steps hidden"

    def asking(moment) -> None:
        assert not section.locator(f"[data-testid=walk-step-{moment.reveal}]").is_visible(), "asked before shown"
        for slot in moment.hidden:  # the answer's number slots are nowhere on screen
            assert section.locator(f"[data-slot={slot}]").evaluate_all(VISIBLE) == 0, slot

    keyboard_guide(app, section, lesson, asking)
    assert app.page.evaluate(SERIOUS) == [], "the why and the verdict shown"
