"""The guided lesson in every stepping view (issue 38, SPEC §7), driven as a student would in CPython.

The answers come from pysim.lessons.guides (checked against brute-force counts in tests/unit); here the
page is checked: the question comes before its answer (which is nowhere in the page until given),
bad input is refused in place, a wrong answer may be tried again or shown, the picture does not
pass an open question, and the guide ends with its "change it" task.
"""

from __future__ import annotations

import pytest

from app.core.urlstate import STEPPING_VIEWS
from pysim.lessons.guides import guide_for
from pysim.lessons.guides.model import Moment, Task
from views.page import Event

ROUTES = [view.path for view in STEPPING_VIEWS]


def open_moment(page) -> Moment | None:
    """The moment whose question is open on the page, found by its question text."""
    guide = page.testid("guide")
    question = page.testid("guide-question")
    if not page.visible(page.testid("guide-submit").parentElement) or not question.getAttribute("data-kind"):
        return None
    text = page.text(question)
    found = [m for m in page.sitting_moments if m.question == text]
    assert found, f"no moment asks {text!r} ({guide.getAttribute('data-moment')})"
    return found[0]


def cell(page, array: str, row: int, col: int):
    """A grid cell, found by the names SPEC §7 gives it (the build's DOM splits selectors at commas)."""
    found = [c for c in page.all(f'[data-array="{array}"]') if c.getAttribute("data-index") == f"{row},{col}"]
    assert len(found) == 1, f"{array}[{row}][{col}]: {len(found)} cells"
    return found[0]


def pick(page, array: str, row: int, col: int) -> None:
    """Click a grid cell: its element, or, for a matrix drawn on a canvas, the canvas where the cell is painted."""
    from app.widgets.grids import CANVAS_PITCH  # the app's modules import once the page is open

    canvas = page.view.querySelector(f'[data-testid="canvas-{array}"]')
    if canvas is None or not page.visible(canvas):
        page.click(cell(page, array, row, col))
        return
    middle = CANVAS_PITCH // 2
    canvas.dispatchEvent(Event("click", offsetX=col * CANVAS_PITCH + middle, offsetY=row * CANVAS_PITCH + middle))
    page.settle()


def assert_answer_absent(page, moment: Moment) -> None:
    """Nothing of the answer is in the page while the question is open: not the guide's text, not a
    hidden counter's value (they show "?" and carry no data-value; the walkthrough's number slots are in a step
    not shown yet)."""
    guide = page.testid("guide")
    assert "answer is" not in page.text(guide) and moment.why not in guide.outerHTML
    assert page.text("guide-why") == "" and moment.answer_text not in page.text("guide-result")
    for testid in moment.hidden:
        counter = page.view.querySelector(f'[data-testid="{testid}"]')
        shown = counter is not None and page.visible(counter)
        assert not shown or page.text(counter) == "?" and counter.getAttribute("data-value") is None
    # The route's prose states the numbers its questions ask ("so 4 × 8 = 32 cells per block"): out of the page.
    note = page.view.querySelector('[data-testid="prose-withheld"]')
    if note is not None and note.parentElement is not None:
        assert page.view.querySelector("section.explain") is None and page.visible(note)
    board = page.view.querySelector('[data-testid="counters"]')  # a stepping view's
    if board is not None and isinstance(moment.answer, int) and moment.answer >= 1000:  # distinct enough to look for
        assert moment.answer_text not in page.text("counters")


def page_guide(page, route: str):
    """The guide of the sizes on screen (a view's presets are its own, not the kernel's defaults)."""
    sizes = {key: value for key, value in page.params().items() if key not in ("thread", "step")}
    return guide_for(route, sizes)


def answer_wrong_then_right(page, moment: Moment) -> None:
    step = page.params()["step"]
    if moment.kind == "number":
        page.fill("guide-answer", "2.5")
        page.press("Enter", "guide-answer")
        assert "whole number" in page.text("guide-refusal") and page.visible("guide-refusal")
        assert page.attribute("guide-result", "data-value") is None
        page.fill("guide-answer", str(moment.answer + 1))
        page.press("Enter", "guide-answer")
        assert page.attribute("guide-result", "data-value") == "wrong"
        assert page.params()["step"] == step, "a wrong answer does not advance the picture"
        assert_answer_absent(page, moment)
        page.fill("guide-answer", f"{moment.answer:,}")
        page.press("Enter", "guide-answer")
    elif moment.kind == "choice":
        wrong = next(c.value for c in moment.choices if c.value != moment.answer)
        page.click(page.find(f'[data-testid="guide-choice"][data-value="{wrong}"]'))
        assert page.attribute("guide-result", "data-value") == "wrong"
        assert_answer_absent(page, moment)
        page.click(page.find(f'[data-testid="guide-choice"][data-value="{moment.answer}"]'))
    else:
        page.click("guide-submit")
        assert "at least one cell" in page.text("guide-refusal")
        assert page.attribute("guide-result", "data-value") is None
        for array, row, col in sorted(moment.answer):
            pick(page, array, row, col)
        page.click("guide-submit")
    assert page.attribute("guide-result", "data-value") == "right"
    assert moment.why in page.text("guide-why") and moment.answer_text in page.text("guide-result")


def drive(page, moments: tuple[Moment, ...], reveal_first: bool = False, asking=None, answered=None) -> list[str]:
    """Answer every question the page asks (the first by Show the answer if `reveal_first`), in order; `asking`
    and `answered` (page, moment, keys asked so far) check the page while a question is open and after it."""
    page.sitting_moments = moments
    asked = []
    for _ in range(3 * len(moments) + 3):
        moment = open_moment(page)
        if moment is None:
            if not page.visible("guide-next"):
                break
            page.click("guide-next")
            continue
        assert int(page.params()["step"]) == moment.step, "the picture stops at the question's step"
        assert_answer_absent(page, moment)
        if asking is not None:
            asking(page, moment)
        asked.append(moment.key)
        if reveal_first and len(asked) == 1:
            page.click("guide-reveal")
            assert page.attribute("guide-result", "data-value") == "shown"
            assert moment.answer_text in page.text("guide-result")
        else:
            answer_wrong_then_right(page, moment)
        assert int(page.params()["step"]) <= moment.reveal
        if answered is not None:
            answered(page, moment, asked)
        page.click("guide-next")
    return asked


@pytest.mark.parametrize("route", ROUTES)
def test_one_full_guide_per_view(guided_page, route):
    page = guided_page
    page.go(f"#{route}")
    guide = page_guide(page, route)
    assert page.visible("guide") and page.attribute("guide", "data-moments")
    passed = {line.getAttribute("data-key") for line in page.all('[data-testid="guide-skipped"] li')}
    assert {s.key for s in guide.skipped} <= passed
    asked = drive(page, guide.moments, reveal_first=True)
    assert asked and set(asked) == {m.key for m in guide.moments} - passed
    task = guide.task
    assert isinstance(task, Task)
    assert page.visible("guide-change")
    page.click("guide-change")
    changed = page.params()
    assert all(changed[name] == str(value) for name, value in task.change.items())
    assert drive(page, (task.moment,)) == [task.moment.key]
    assert "every question" in page.text("guide")
    assert has_prose(page) == (route not in NO_PROSE), "every question answered: the explanations are back"


NO_PROSE = ("/wgmma",)  # its prose is the narration and the panels


def has_prose(page) -> bool:
    return page.view.querySelector("section.explain") is not None and not page.visible("prose-withheld")


@pytest.mark.parametrize(
    "route,key,said",
    [
        ("/tiling?M=4&N=4&K=8&T=2", "tiling:block-loads", "= 32 cells per block"),
        ("/register", "register:reads", "TM + TN = 2 + 2 = 4"),
        ("/naive", "naive:sectors-a", "distinct words in"),
        ("/transpose", "transpose:bank", "column read degree"),
    ],
)
def test_the_prose_that_states_an_answer_is_out_of_the_page_until_the_questions_are_answered(
    guided_page, route, key, said
):
    """The leaks a read-only review found: the explanation under the picture said the open question's answer."""
    page = guided_page
    page.go(f"#{route}")
    assert said not in page.text()  # from the first question on
    moments = page_guide(page, route.split("?")[0].lstrip("/")).moments
    page.sitting_moments = moments
    for _ in range(3 * len(moments)):
        moment = open_moment(page)
        if moment is not None and moment.key == key:
            break
        if moment is not None:
            page.click("guide-reveal")
        page.click("guide-next")
    assert open_moment(page).key == key and said not in page.text() and page.visible("prose-withheld")
    page.click("guide-off")
    assert said in page.text() and has_prose(page), "Explore freely: the explanations are back"


def test_a_cell_answer_is_marked_against_what_happened(guided_page):
    page = guided_page
    page.go("#/register")
    moments = page_guide(page, "register").moments
    moment = next(m for m in moments if m.key == "register:regm")
    page.sitting_moments = moments
    for _ in range(10):
        if open_moment(page) == moment:
            break
        if open_moment(page) is not None:
            page.click("guide-reveal")
        page.click("guide-next")
    (array, row, col), *_ = sorted(moment.answer)
    page.click(cell(page, array, row, col))
    assert "guide-picked" in cell(page, array, row, col).getAttribute("class")
    page.click(cell(page, "As", 0, 3))  # one not read
    page.click("guide-submit")
    assert page.attribute("guide-result", "data-value") == "wrong"
    page.click("guide-reveal")
    assert page.attribute("guide-result", "data-value") == "shown"


def test_a_deep_link_opens_at_its_step_and_passes_the_earlier_questions(guided_page):
    page = guided_page
    page.go("#/tiling?M=4&N=4&K=8&T=2&step=5")
    assert page.params()["step"] == "5", "a deep link never moves backward"
    passed = {line.getAttribute("data-key") for line in page.all('[data-testid="guide-skipped"] li')}
    assert {m.key for m in page_guide(page, "tiling").moments if m.step < 5} <= passed
    page.click("step")
    assert page.params()["step"] == "6" and page.attribute("guide-question", "data-kind") == "cells"
    page.click("step")
    assert page.params()["step"] == "6", "the picture waits at an open question"


def test_explore_freely_and_back_to_where_it_was_left(guided_page):
    page = guided_page
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    assert page.text("counter-global_sectors") == "?"
    page.click("guide-reveal")
    page.click("guide-next")
    at = page.params()["step"]
    page.click("guide-off")
    assert not page.visible("guide") and page.visible("guide-on")
    assert "guide=0" in page.address, "a reload or a shared link keeps the free view"
    assert page.attribute("counter-global_loads", "data-value") is not None
    page.click("run-to-end")
    assert page.params()["step"] != at
    page.go(page.address)  # the free address, opened again: still free
    assert not page.visible("guide") and page.visible("guide-on")
    page.click("guide-on")
    assert page.visible("guide") and page.params()["step"] == at
    assert "guide=" not in page.address


def test_guide_0_is_the_full_view(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    assert "guide=0" in page.address and not page.visible("guide")
    page.click("run-to-end")
    assert page.params()["step"] != "0"


def test_the_gate_stops_at_an_open_question_then_at_the_reveal_on_the_way():
    from app.core.guiding import Sitting

    guide = guide_for("tiling", {"M": "4", "N": "4", "K": "8", "T": "2"})
    sitting = Sitting(guide)
    first = guide.moments[0]
    assert sitting.stop_at(first.reveal + 5) == first.step
    sitting.arrive(first.step)
    assert sitting.asking() == first and sitting.stop_at(first.step + 1) == first.step
    sitting.answer(first, "wrong")
    assert sitting.stop_at(first.step + 1) == first.step, "a wrong answer does not open the way"
    sitting.answer(first, "right")
    later = [m.step for m in guide.moments[1:]]
    assert sitting.stop_at(first.reveal + 1) == min([first.reveal, *[s for s in later if s >= first.step]])
    assert Sitting(guide, start=5).passed.keys() == {m.key for m in guide.moments if m.step < 5}


class Recorder:
    """window.tilelabScore as a course package has it (site/scorm/score.js): what the page hands it."""

    def __init__(self) -> None:
        self.interactions: list[tuple] = []

    def restored(self) -> str:
        return "{}"

    def interaction(self, *fields) -> None:
        self.interactions.append(fields)


def test_each_answered_moment_is_one_interaction_and_a_refusal_none(guided_page):
    page = guided_page
    recorder = page.window.tilelabScore = Recorder()
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    moment = page_guide(page, "tiling").moments[0]
    page.fill("guide-answer", "x")
    page.press("Enter", "guide-answer")
    assert recorder.interactions == []
    for text in (str(moment.answer + 1), str(moment.answer)):
        page.fill("guide-answer", text)
        page.press("Enter", "guide-answer")
    ((key, kind, response, result, latency),) = recorder.interactions
    assert (key, kind, response, result) == (moment.key, "numeric", str(moment.answer + 1), "wrong") and latency >= 0


def assert_slots_absent(page, moment: Moment) -> None:
    """The walkthrough prints its answers in number slots: none of the moment's is on screen while it is open."""
    guide = page.testid("guide")
    assert "answer is" not in page.text(guide) and moment.why not in guide.outerHTML
    for name in moment.hidden:
        assert not [slot for slot in page.all(f'[data-slot="{name}"]') if page.visible(slot)], name


@pytest.mark.parametrize("sizes", ["", "?N=1000&T=16", "?N=24&T=32"])
def test_the_walkthrough_is_guided_to_its_task(guided_page, sizes):
    page = guided_page
    page.go(f"#/hierarchy{sizes}")
    guide = guide_for("hierarchy", {k: v for k, v in page.params().items() if k != "step"})
    assert 6 <= len(guide.entries) <= 10 and page.visible("guide")
    assert not page.visible("walk-step-1") and not page.visible("summary"), "no step after the one on screen"

    def asking(page, moment: Moment) -> None:
        assert_slots_absent(page, moment)
        page.click("step")  # Next ▶ does not pass an open question
        assert int(page.params()["step"]) == moment.step

    def answered(page, moment: Moment, asked: list[str]) -> None:
        waiting = [m for m in guide.moments if m.key not in asked and m.step < moment.reveal]  # asked on the way
        assert page.visible(f"walk-step-{moment.reveal}") != bool(waiting), "the answer is shown in the step after"

    asked = drive(page, guide.moments, asking=asking, answered=answered)
    assert asked == [m.key for m in guide.moments]
    skipped = {line.getAttribute("data-key") for line in page.all('[data-testid="guide-skipped"] li')}
    assert skipped == {s.key for s in guide.skipped}
    assert page.visible("summary")
    task = guide.task
    assert isinstance(task, Task) and page.visible("guide-change")
    page.click("guide-change")
    assert page.params()["T"] == str(task.change["T"])
    page.sitting_moments = (task.moment,)
    assert open_moment(page) == task.moment and int(page.params()["step"]) == task.moment.step
    assert_slots_absent(page, task.moment)
    answer_wrong_then_right(page, task.moment)
    page.click("guide-next")
    assert "every question" in page.text("guide")


def test_the_walkthrough_explored_freely_keeps_guide_0_and_goes_back(guided_page):
    page = guided_page
    page.go("#/hierarchy")
    page.click("guide-reveal")
    page.click("guide-next")
    page.click("guide-off")
    assert "guide=0" in page.address and page.visible("walk-step-7") and not page.visible("guide")
    page.click("guide-on")
    assert "guide=" not in page.address and not page.visible("walk-step-7")
    assert page.params()["step"] == "1"


def test_a_cells_question_is_answered_on_a_canvas_grid(guided_page):
    """#/transpose at its presets draws its 64×64 matrices and its tile on canvases: its click questions are
    asked all the same, a click on the canvas picking the cell under it."""
    page = guided_page
    page.go("#/transpose")
    assert page.visible("canvas-A")
    moments = page_guide(page, "transpose").moments
    asked = drive(page, moments)
    assert {"transpose:cells-a", "transpose:cells-c"} <= set(asked)


def test_a_view_built_after_a_failed_start_gathers_the_prose_from_the_page(guided_page):
    """site/boot/failure.js places the prose's templates when start-up fails; a view built afterwards found no
    template, filled nothing and failed on every route (a browser test of issue 45 caught it)."""
    page = guided_page
    page.go("#/")
    section = page.document.querySelector("#view-tiling")
    template = section.querySelector("template.prose")
    for child in list(template.childNodes):  # what failure.js does: the template replaced by its content
        section.insertBefore(child, template)
    template.remove()
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    assert page.view.querySelector("section.explain") is None and page.visible("prose-withheld")
    page.click("guide-off")
    assert "For the sizes on screen: M = 4" in page.text() and has_prose(page)
