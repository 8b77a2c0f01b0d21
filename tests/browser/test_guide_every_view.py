"""One full guide per guided view in Chromium (issue 38, "Done when"): the views test_guide.py does not
already drive whole (#/tiling from the keyboard, the walkthrough with axe-core). At each question the page
is checked for the answer first (the guide's why and verdict empty, the counters the question is about "?"
with no data-value), then a wrong answer is given (a number that is not whole is refused in place), then
the right one, with a click on the picture for a cells question; the guide ends with its change-it task.
The answers come from pysim.lessons.guides for the sizes in the address, never from the page."""

import re

import pytest

from app.core.urlstate import GUIDED_VIEWS
from browser.conftest import go, view
from browser.test_guide import _sizes, address
from pysim.lessons.guides import guide_for
from pysim.lessons.guides.model import Moment, Task
from tools.sitebuild.paths import SITE

DRIVEN_ELSEWHERE = ("tiling", "hierarchy")
ROUTES = [spec.path.strip("/") for spec in GUIDED_VIEWS if spec.path.strip("/") not in DRIVEN_ELSEWHERE]
# A cell painted on a canvas: the canvas is laid out at CANVAS_PITCH CSS px per cell (its style's width), shown
# scaled; its pixels may not be allocated yet (they are when it is first painted near the viewport), so its
# `width` attribute says nothing (app.widgets.grids, read as text: it imports the browser's pyodide module).
PITCH = int(re.search(r"^CANVAS_PITCH = (\d+)", (SITE / "app" / "widgets" / "grids.py").read_text(), re.M).group(1))
CANVAS_CELL = """(el, [row, col, pitch]) => {
  const scale = el.getBoundingClientRect().width / parseFloat(el.style.width);
  return {x: (col + 0.5) * pitch * scale, y: (row + 0.5) * pitch * scale};
}"""


AT_STEP = "step => new URLSearchParams(location.hash.split('?')[1]).get('step') === step"


def step_of(app) -> int:
    return int(address(app).get("step", "0"))


def assert_answer_absent(section, moment: Moment) -> None:
    guide = section.locator("[data-testid=guide]")
    assert moment.why not in guide.inner_html(), moment.key
    assert guide.locator("[data-testid=guide-why]").inner_text() == ""
    for testid in moment.hidden:
        counter = section.locator(f"[data-testid={testid}]")
        if counter.count() and counter.first.is_visible():
            assert counter.first.inner_text() == "?" and counter.first.get_attribute("data-value") is None, testid


def pick(app, section, array: str, row: int, col: int) -> None:
    canvas = section.locator(f"[data-testid=canvas-{array}]")
    if canvas.count() and canvas.first.is_visible():
        canvas.first.scroll_into_view_if_needed()
        where = canvas.first.evaluate(CANVAS_CELL, [row, col, PITCH])
        canvas.first.click(position=where)
        return
    section.locator(f"[data-array='{array}'][data-index='{row},{col}']").click()


def answer_wrong_then_right(app, section, moment: Moment) -> None:
    guide = section.locator("[data-testid=guide]")
    result = guide.locator("[data-testid=guide-result]")
    step = step_of(app)
    if moment.kind == "number":
        field = guide.locator("[data-testid=guide-answer]")
        field.fill("2.5")
        field.press("Enter")
        assert "whole number" in guide.locator("[data-testid=guide-refusal]").inner_text()
        assert result.get_attribute("data-value") is None, "a refused answer is not recorded"
        field.fill(str(moment.answer + 1))
        field.press("Enter")
        assert result.get_attribute("data-value") == "wrong"
        assert step_of(app) == step, "a wrong answer does not advance the picture"
        assert_answer_absent(section, moment)
        field.fill(str(moment.answer))
        field.press("Enter")
    elif moment.kind == "choice":
        wrong = next(choice.value for choice in moment.choices if choice.value != moment.answer)
        guide.locator(f"[data-testid=guide-choice][data-value='{wrong}']").click()
        assert result.get_attribute("data-value") == "wrong"
        assert_answer_absent(section, moment)
        guide.locator(f"[data-testid=guide-choice][data-value='{moment.answer}']").click()
    else:
        guide.locator("[data-testid=guide-submit]").click()
        assert "at least one cell" in guide.locator("[data-testid=guide-refusal]").inner_text()
        assert result.get_attribute("data-value") is None
        for array, row, col in sorted(moment.answer):
            pick(app, section, array, row, col)
        guide.locator("[data-testid=guide-submit]").click()
    assert result.get_attribute("data-value") == "right", moment.key
    assert moment.why in guide.locator("[data-testid=guide-why]").inner_text()


def drive(app, section, moments: tuple[Moment, ...]) -> list[str]:
    """Answer every question the page asks, in order; the keys asked."""
    guide = section.locator("[data-testid=guide]")
    question = guide.locator("[data-testid=guide-question]")
    asked: list[str] = []
    for _ in range(3 * len(moments) + 3):
        kind = question.get_attribute("data-kind")
        if not kind:
            nxt = guide.locator("[data-testid=guide-next]")
            if not nxt.is_visible():
                break
            nxt.click()
            continue
        text = question.inner_text()
        moment = next(m for m in moments if m.question == text)
        # the picture plays to the question's step and stops there (the address follows within 100 ms)
        app.page.wait_for_function(AT_STEP, arg=str(moment.step), timeout=30_000)
        assert_answer_absent(section, moment)
        answer_wrong_then_right(app, section, moment)
        asked.append(moment.key)
        guide.locator("[data-testid=guide-next]").click()
    return asked


@pytest.mark.parametrize("route", ROUTES)
def test_one_full_guide_in_the_browser(app, route):
    go(app, f"#/{route}?guide=1")
    section = view(app, route)
    lesson = guide_for(route, _sizes(app))
    skipped = {line.get_attribute("data-key") for line in section.locator("[data-testid=guide-skipped] li").all()}
    assert skipped == {s.key for s in lesson.skipped}, "a moment with no answer at these sizes is skipped, said"
    asked = drive(app, section, lesson.moments)
    assert set(asked) == {m.key for m in lesson.moments} - skipped
    task = lesson.task
    assert isinstance(task, Task)
    section.locator("[data-testid=guide-change]").click()
    changed = address(app)
    assert all(changed[name] == str(value) for name, value in task.change.items())
    assert drive(app, section, (task.moment,)) == [task.moment.key]
    assert "every question" in section.locator("[data-testid=guide]").inner_text()


def test_a_moment_with_no_answer_at_these_sizes_is_skipped_with_why(app):
    go(app, "#/transpose?n=32&TILE=32&pad=1&guide=1")  # padded, no conflict left: the padding question has no answer
    section = view(app, "transpose")
    lesson = guide_for("transpose", _sizes(app))
    reasons = {s.key: s.reason for s in lesson.skipped}
    assert "transpose:pad" in reasons
    line = section.locator("[data-testid=guide-skipped] li[data-key='transpose:pad']")
    assert line.is_visible() and reasons["transpose:pad"] in line.inner_text()
    asked = drive(app, section, lesson.moments)
    assert "transpose:pad" not in asked
