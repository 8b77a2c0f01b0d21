"""The guided lesson in a stepping view (issue 38, SPEC §7): ask, wait, reveal, say why.

pysim.lessons.guides computes the moments and their answers for the sizes on screen and marks an
answer; app.core.guiding keeps where the student is and where the picture may go. This widget owns
the question box and tells its view (the `host`: a SteppingView, or the walkthrough, which steps the same
way: `player.go`, `player.index`, `show_step`, `apply`, `apply_at`, `stage`) what to do: which step to show,
which counters to hide, which cells to mark, which thread to follow. The answer is written into the
page only once it is given or shown, never earlier, hidden or not.
"""

from __future__ import annotations

from dataclasses import replace

from pyscript import window

from pysim.lessons.guides import guide_for, view_name
from pysim.lessons.guides.marking import Mark, mark
from pysim.lessons.guides.model import GridCell, Moment, Skipped, Task

from ..core.dom import Listeners, h
from ..core.guiding import SCORM_KINDS, Sitting
from ..core.score import Interaction
from .checkpoint import shared_book
from .components import add_marks
from .grids import CANVAS_PITCH

VERDICTS = {
    "right": "Right.",
    "wrong": "Not quite. Try again, or press Show the answer.",
}
CELL_MARKS = (("hit", "guide-hit"), ("missed", "guide-missed"), ("extra", "guide-extra"))
CELL_SELECTOR = "[data-array][data-index]"


def show(element, visible: bool) -> None:
    if visible:
        element.removeAttribute("hidden")
    else:
        element.setAttribute("hidden", "")


class GuidePanel:
    """The question box of one stepping view, and its gate on the view's player."""

    def __init__(self, host, view: str) -> None:
        self.host = host
        self.view = view_name(view)
        self.listeners = Listeners()
        self.active = True
        self.flag: str | None = "unread"  # the address's guide= value last read (None: absent)
        self.sitting: Sitting | None = None
        self.picked: set[GridCell] = set()
        self.marked: dict[str, Mark] = {}  # each cells moment's marking, drawn at its reveal step
        self.asked_at = 0.0  # when the open question appeared (ms), for the answer's latency
        prefix = f"{self.view}-guide"
        button = lambda text, testid, cls="": h("button", cls, text, type="button", data_testid=testid)  # noqa: E731
        self.title = h("strong", "guide-title", "")
        self.off = button("Explore freely", "guide-off", "guide-off")
        self.skipped = h("ul", "guide-skipped", data_testid="guide-skipped")
        self.question = h("label", "guide-question", "", for_=f"{prefix}-answer", data_testid="guide-question")
        self.input = h(
            "input", "", id=f"{prefix}-answer", type="text", inputmode="numeric", autocomplete="off",
            data_testid="guide-answer",
        )  # fmt: skip
        self.choices = h("div", "guide-choices", role="group", aria_label="Answers")
        self.submit = h("button", "", "Check", type="submit", data_testid="guide-submit")
        self.reveal = button("Show the answer", "guide-reveal")
        self.refusal = h("p", "guide-refusal", "", role="alert", data_testid="guide-refusal")
        self.result = h("p", "guide-result", "", aria_live="polite", data_testid="guide-result")
        self.why = h("p", "guide-why", "", data_testid="guide-why")
        self.next = button("Next question", "guide-next")
        self.change = button("", "guide-change")
        self.form = h(
            "form", "guide-form", novalidate="",
            children=[self.question, h("div", "guide-row", children=[self.input, self.choices, self.submit, self.reveal])],
        )  # fmt: skip
        self.element = h(
            "section",
            "guide",
            aria_label="Guided lesson",
            data_testid="guide",
            children=[
                h("div", "guide-head", children=[self.title, self.off]),
                self.skipped, self.form, self.refusal, self.result, self.why, self.change, self.next,
            ],
        )  # fmt: skip
        self.on_button = button("Back to the guide", "guide-on", "guide-on")
        self.listeners.on(self.form, "submit", self.submitted)
        self.listeners.on(self.reveal, "click", lambda event: self.answer("", shown=True))
        self.listeners.on(self.next, "click", lambda event: self.go_next())
        self.listeners.on(self.change, "click", lambda event: self.make_change())
        self.listeners.on(self.off, "click", lambda event: self.switch(False))
        self.listeners.on(self.on_button, "click", lambda event: self.switch(True))
        self.listeners.on(self.choices, "click", self.chose)
        self.listeners.on(host.stage, "click", self.cell_clicked)
        self.listeners.on(host.stage, "keydown", self.cell_key)

    # --- from the view ------------------------------------------------------------------------------
    def enable(self, raw: dict[str, str]) -> None:
        """guide=0 or guide=1 in the address turns the guide off or on; an address without it leaves the
        reader's own choice (Explore freely) as it is."""
        flag = raw.get("guide")
        if flag != self.flag:
            self.flag = flag
            self.place(flag != "0")

    def load(self, params, index: int) -> None:
        """New sizes on screen (None: counts only, no guide). The sizes of the guide on screen keep its
        sitting; its task's sizes start the task; any others a new guide, the questions before `index` passed."""
        sitting = self.sitting
        if params is None:
            show(self.element, False)
            return
        if sitting is not None and not self.active:
            return  # exploring freely: the guide waits where it was left (switch)
        task = sitting.guide.task if sitting is not None else None
        if sitting is not None and params == sitting.guide.params:
            sitting.in_task = False
        elif isinstance(task, Task) and params == replace(sitting.guide.params, **task.change):
            sitting.start_task()
            index = 0  # its moment is asked on its way from step 0, whatever step the view keeps (the walkthrough's)
        else:
            trace = getattr(self.host, "trace", None)  # a stepping view's, of these sizes (the walkthrough has none)
            self.sitting = sitting = Sitting(guide_for(self.view, params, trace), index)
            self.marked = {}
            self.skipped.textContent = ""
            lines = [entry for entry in sitting.guide.entries if isinstance(entry, Skipped)]
            lines += [Skipped(key, reason) for key, reason in sitting.passed.items()]
            for entry in lines:
                self.skipped.appendChild(h("li", "", f"Not asked: {entry.reason}.", data_key=entry.key))
        sitting.shown_index = index
        self.place(self.active)

    def place(self, active: bool) -> None:
        self.active = active
        show(self.element, active and self.sitting is not None)
        show(self.on_button, not active and self.sitting is not None)

    def stop_at(self, index: int) -> int:
        return self.sitting.stop_at(index) if self.on else index

    @property
    def on(self) -> bool:
        return self.active and self.sitting is not None

    def arrive(self, index: int) -> None:
        """The view is about to draw step `index`: update the question box, follow the asked thread."""
        if not self.on:
            return
        sitting = self.sitting
        before = sitting.current
        sitting.arrive(index)
        moment = sitting.current
        if moment is not None and moment is not before:
            self.ask(moment)
            if moment.thread is not None:
                self.host.follow_quietly(moment.thread)
        elif moment is None:
            self.between(index)
        at = sitting.moments.index(moment) if moment is not None else len(sitting.moments) - len(sitting.pending())
        self.element.setAttribute("data-moment", str(at))
        self.element.setAttribute("data-moments", str(len(sitting.moments)))

    @property
    def unanswered(self) -> bool:
        """Questions are still to come (the open one included): the view keeps out what states their answers."""
        return self.on and bool(self.sitting.pending())

    def hidden(self) -> frozenset[str]:
        """The counters (data-testid) the open question is about: not written into the page."""
        asking = self.sitting.asking() if self.on else None
        return frozenset(asking.hidden) if asking is not None else frozenset()

    def add_marks(self, targets: dict[str, dict]) -> None:
        """The cells picked for the open question, the answered one's cells (predicted against actual) while it
        is on screen, and each revealed cells answer at its reveal step."""
        if not self.on:
            return
        for array, row, col in self.picked:
            add_marks(targets.setdefault(array, {}), [(row, col)], "guide-picked")
        index = self.sitting.shown_index
        for moment in self.sitting.moments:
            marking = self.marked.get(moment.key)
            revealed = moment.reveal == index and moment.key in self.sitting.revealed
            if marking is not None and (revealed or moment is self.sitting.current):
                for field, cls in CELL_MARKS:
                    for array, row, col in getattr(marking, field):
                        add_marks(targets.setdefault(array, {}), [(row, col)], cls)

    def narrate(self, index: int, text: str) -> str:
        """The step's sentence, with the reason at a moment's reveal step (the why beside the picture)."""
        if self.on:
            for moment in self.sitting.moments:
                if moment.reveal == index and moment.key in self.sitting.revealed:
                    return f"{text} Why: {moment.why}."
        return text

    # --- the question box ---------------------------------------------------------------------------
    def ask(self, moment: Moment) -> None:
        self.picked = set()
        self.asked_at = float(window.performance.now())
        total = len(self.sitting.moments)
        kind = "Change it" if self.sitting.in_task else f"Question {self.sitting.moments.index(moment) + 1} of {total}"
        self.title.textContent = kind  # short: it shares a line with Explore freely on a phone (the box is labelled)
        self.question.textContent = moment.question
        self.question.setAttribute("data-kind", moment.kind)
        self.input.value = ""
        show(self.input, moment.kind == "number")
        show(self.submit, moment.kind != "choice")
        self.submit.textContent = "Confirm the cells" if moment.kind == "cells" else "Check"
        self.choices.textContent = ""
        for choice in moment.choices:
            self.choices.appendChild(
                h("button", "", choice.label, type="button", data_testid="guide-choice", data_value=choice.value)
            )
        show(self.choices, moment.kind == "choice")
        if moment.kind == "cells":
            self.focusable(moment)
        self.settle_box(asking=True)

    def focusable(self, moment: Moment) -> None:
        """The cells of the grids a cells question is about take the keyboard's focus (Enter picks one)."""
        for array in sorted({array for array, _, _ in moment.answer}):
            cells = self.host.stage.querySelectorAll(f'[data-array="{array}"]')
            for i in range(cells.length):
                cells.item(i).setAttribute("tabindex", "0")

    def settle_box(self, asking: bool, result: str = "") -> None:
        """Show the form while asking; the verdict, the why and guide-next once settled."""
        show(self.input.parentElement, asking)
        if asking and not result:  # a new question: nothing of the last answer stays in the page
            self.result.textContent = self.why.textContent = ""
            self.result.removeAttribute("data-value")
        self.refusal.textContent = ""
        show(self.refusal, False)
        show(self.result, bool(result))
        show(self.why, bool(result) and result != "wrong")
        show(self.next, bool(result) and result != "wrong")
        show(self.change, False)

    def between(self, index: int) -> None:
        """No question at this step: say where the next one is, or offer the task, or say the guide is done."""
        sitting = self.sitting
        pending = sitting.pending()
        show(self.input.parentElement, False)
        show(self.result, False)
        show(self.why, False)
        show(self.refusal, False)
        if pending:
            self.title.textContent = "Guide"
            self.question.textContent = (
                f"Step on, or press Next question: the next question is at step {pending[0].step}."
            )
            self.question.setAttribute("data-kind", "")
            show(self.next, True)
            show(self.change, False)
            return
        task = sitting.guide.task
        show(self.next, False)
        if sitting.in_task or not isinstance(task, Task):
            reason = f" (no change it task: {task.reason})" if isinstance(task, Skipped) else ""
            self.title.textContent = "Guide done"
            self.question.textContent = (
                f"You have been through every question{reason}. Explore freely, or change the sizes."
            )
            show(self.change, False)
        else:
            self.title.textContent = "Change it"
            self.question.textContent = f"Now change it: {task.instruction}, then predict."
            self.change.textContent = task.instruction[:1].upper() + task.instruction[1:]  # "Set T=8", not "t=8"
            show(self.change, True)
        self.question.setAttribute("data-kind", "")

    # --- the student's actions ------------------------------------------------------------------------
    def submitted(self, event) -> None:
        event.preventDefault()
        moment = self.sitting.asking() if self.on else None
        if moment is None:
            return
        self.answer(frozenset(self.picked) if moment.kind == "cells" else str(self.input.value))

    def chose(self, event) -> None:
        button = event.target.closest('[data-testid="guide-choice"]')
        if button is not None:
            self.answer(str(button.getAttribute("data-value")))

    def answer(self, response, shown: bool = False) -> None:
        """Mark an answer (or show it): refused in place, wrong (try again), or right/shown (play to the reveal)."""
        moment = self.sitting.asking() if self.on else None
        if moment is None:
            return
        if shown:
            result, marking = "shown", mark(moment, moment.answer if moment.kind == "cells" else "")
        else:
            marking = mark(moment, response)
            if marking.right is None:
                self.refusal.textContent = marking.refusal
                show(self.refusal, True)
                return
            result = "right" if marking.right else "wrong"
        if self.sitting.answer(moment, result):
            latency = (float(window.performance.now()) - self.asked_at) / 1000
            text = ",".join(f"{a}[{r}][{c}]" for a, r, c in sorted(response)) if moment.kind == "cells" else response
            outcome = "correct" if result == "right" else "wrong"
            shared_book().interaction(Interaction(moment.key, SCORM_KINDS[moment.kind], text, outcome, latency))
        self.settle_box(asking=result == "wrong", result=result)
        self.result.setAttribute("data-value", result)
        said = VERDICTS.get(result, "")
        self.result.textContent = f"{said} The answer is {moment.answer_text}." if result != "wrong" else said
        if result == "wrong":
            return
        self.why.textContent = f"Why: {moment.why}."
        if moment.kind == "cells":
            self.marked[moment.key] = mark(moment, response) if not shown else Mark(None, missed=moment.answer)
        self.picked = set()
        self.host.player.go(moment.reveal)

    def go_next(self) -> None:
        step = self.sitting.next_step()
        index = self.host.player.index
        if step is None or step == index:
            self.host.show_step(index)
        else:
            self.host.player.go(step)

    def make_change(self) -> None:
        task = self.sitting.guide.task
        if isinstance(task, Task):
            self.host.apply(replace(self.sitting.guide.params, **task.change))

    def switch(self, active: bool) -> None:
        """Explore freely (the full view, nothing hidden), or back to the guide where it was left."""
        sitting = self.sitting
        self.flag = None if active else "0"  # as the view now writes it into the address
        self.place(active)
        if sitting is None:
            self.host.write_address()
            return
        if active:
            params = (
                replace(sitting.guide.params, **sitting.guide.task.change) if sitting.in_task else sitting.guide.params
            )  # type: ignore[union-attr]
            left = sitting.shown_index
            if params != self.host.params:
                self.host.apply_at(params, self.host.thread, left)
                return
            self.host.player.go(left)
        else:
            self.host.show_step(self.host.player.index)

    @property
    def picking(self) -> bool:
        """A cells question is open: a click on a grid picks a cell (the view does not follow its thread)."""
        asking = self.sitting.asking() if self.on else None
        return asking is not None and asking.kind == "cells"

    def cell_clicked(self, event) -> None:
        picked = clicked_cell(event) if self.picking else None
        if picked is None:
            return
        self.picked ^= {picked}
        show(self.refusal, False)
        self.host.show_step(self.host.player.index)

    def cell_key(self, event) -> None:
        if event.key in ("Enter", " ") and event.target.closest(CELL_SELECTOR) is not None:
            event.preventDefault()
            self.cell_clicked(event)


def clicked_cell(event) -> GridCell | None:
    """The grid cell a click picks: an element cell by its names (data-array, data-index), or a cell of a matrix
    drawn on a canvas (`canvas-<array>`, too large for elements) by where in it the click landed."""
    target = event.target
    cell = target.closest(CELL_SELECTOR)
    if cell is not None:
        row, _, col = str(cell.getAttribute("data-index")).partition(",")
        return str(cell.getAttribute("data-array")), int(row), int(col)
    testid = str(target.getAttribute("data-testid") or "") if target.localName == "canvas" else ""
    if not testid.startswith("canvas-"):
        return None
    return testid.removeprefix("canvas-"), int(event.offsetY // CANVAS_PITCH), int(event.offsetX // CANVAS_PITCH)
