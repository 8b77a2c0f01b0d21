"""The quiz in Chromium: the walkthrough's reveal-check and the stepping views' checkpoints (quiz=1)
keep the answer hidden after a wrong first try, accept a second try, keep the first for the score, under
axe-core and from the keyboard. That question 1's answer is never printed above it: tests/views/test_quiz.py."""

from pathlib import Path

from browser.conftest import go, view
from pysim.core.trace import Trace
from pysim.hardware.params import RegisterParams, SmemParams
from pysim.kernels import KERNELS
from pysim.lessons.checkpoints import checkpoints

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = """root => axe.run(root, {resultTypes: ['violations']}).then(result => result.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => `${v.id}: ${v.nodes[0].target}`))"""
TILING = SmemParams(M=6, N=6, K=9, T=3)


def test_walkthrough_wrong_first_try_keeps_the_answer_then_a_second_try(app):
    go(app, "#/hierarchy?N=1024&T=16")
    quiz = view(app, "hierarchy")
    box, feedback = quiz.locator("[data-testid=quiz-bank]"), quiz.locator("[data-testid=quiz-bank-feedback]")
    explain, show = quiz.locator("form[data-quiz=bank] .explain"), quiz.locator("[data-testid=quiz-bank-show]")
    assert not show.is_visible()
    box.fill("16")
    box.press("Enter")
    assert feedback.get_attribute("class") == "feedback wrong" and "32" not in feedback.inner_text()
    assert not explain.is_visible() and show.is_visible()
    assert feedback.get_attribute("aria-live") == "polite"
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS, quiz.locator("[data-testid=quiz]").element_handle()) == []
    box.fill("32")
    box.press("Enter")
    assert feedback.get_attribute("class") == "feedback right" and "first answer" in feedback.inner_text()
    assert explain.is_visible() and not show.is_visible()
    # Show the answer, from the keyboard, after a wrong try at another question.
    box = quiz.locator("[data-testid=quiz-padded]")
    box.fill("5")
    box.press("Enter")
    box.press("Tab")
    app.page.keyboard.press("Tab")  # past Check, onto Show the answer
    assert app.page.evaluate("document.activeElement.dataset.testid") == "quiz-padded-show"
    app.page.keyboard.press("Enter")
    assert "The answer is 1." in quiz.locator("[data-testid=quiz-padded-feedback]").inner_text()
    assert quiz.locator("form[data-quiz=padded] .explain").is_visible()


def first_checkpoint(name: str, params) -> tuple[int, str]:
    """The step and answer of a run's first checkpoint (its answers are tested in test_checkpoints). A deep
    link opens at its step, skipping the checkpoints before it, so each test asks the first one of its kernel."""
    kernel = KERNELS[name]
    first = checkpoints(kernel, params, Trace(kernel, params))[0]
    return first.step, first.answer_text


def open_at(app, step: int):
    """The tiling view at `step`, loaded with other sizes first (a fresh checkpoint form)."""
    go(app, "#/tiling?M=6&N=6&K=9&T=2&quiz=1&step=0")
    go(app, f"#/tiling?M=6&N=6&K=9&T=3&quiz=1&step={step}")
    return view(app, "tiling").locator("[data-testid=checkpoint]")


def test_checkpoint_wrong_first_try_then_right_and_the_first_is_recorded(app):
    step, answer = first_checkpoint("smem", TILING)
    form = open_at(app, step)
    box, feedback = form.locator("[data-testid=checkpoint-input]"), form.locator("[data-testid=checkpoint-feedback]")
    explain, show = form.locator("[data-testid=checkpoint-explain]"), form.locator("[data-testid=checkpoint-show]")
    status = form.locator("[data-testid=checkpoint-status]")
    assert form.is_visible() and not show.is_visible()
    box.fill("0")  # every checkpoint's answer here is positive: loads, a conflict degree, FMAs per read
    box.press("Enter")
    assert feedback.get_attribute("class") == "feedback wrong"
    assert answer not in feedback.inner_text() and answer not in status.text_content()
    assert not explain.is_visible() and show.is_visible()
    assert status.get_attribute("aria-live") == "polite" and "Try once more" in status.text_content()
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS, form.element_handle()) == []
    box.fill(answer)
    box.press("Enter")
    assert feedback.get_attribute("class") == "feedback right" and "first answer" in feedback.inner_text()
    assert explain.is_visible() and answer in explain.inner_text()
    # Back at the step later: the first prediction is the one recorded (the score's), not the second.
    form = open_at(app, step)
    assert box.input_value() == "0" and "not right" in feedback.inner_text()


def test_checkpoint_show_the_answer_after_a_wrong_try(app):
    step, answer = first_checkpoint("register", RegisterParams())
    go(app, f"#/register?quiz=1&step={step}")
    form = view(app, "register").locator("[data-testid=checkpoint]")
    show = form.locator("[data-testid=checkpoint-show]")
    box = form.locator("[data-testid=checkpoint-input]")
    box.fill("0")
    # Submitted from the keyboard, as a student types a prediction and presses Enter. (A click here once
    # waited 30 s in CI for the Check button to be "stable", which Playwright judges over animation frames:
    # the button never moved in any run here, and this test is about the reveal, not the click.)
    box.press("Enter")
    assert "Try once more" in form.locator("[data-testid=checkpoint-status]").text_content()
    show.focus()
    app.page.keyboard.press("Enter")
    assert f"The answer is {answer}." in form.locator("[data-testid=checkpoint-feedback]").inner_text()
    assert form.locator("[data-testid=checkpoint-explain]").is_visible() and not show.is_visible()
