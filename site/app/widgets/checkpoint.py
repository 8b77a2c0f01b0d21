"""Prediction checkpoints in the stepping views: the question box and when to ask.

pysim.lessons.checkpoints computes the questions and answers for the sizes on screen; this module
shows one when the view reaches its step, stops playback there, and, until it is answered
(or skipped), brings the view back to it whenever a step would jump past it. A wrong first
prediction keeps the answer hidden and offers a second try or "Show the answer" (app.core.tries).
Answers go to the shared ScoreBook (app.core.score), which keeps the first and reports it to a
course package's LMS.

Off unless the page is a course package (<html data-quiz="on">) or the address has quiz=1.
"""

from __future__ import annotations

from functools import cache

from pyscript import document, window

from pysim.lessons.checkpoints import Checkpoint, check, checkpoints

from ..core.dom import h, on
from ..core.score import ScoreBook, quiz_on
from ..core.tries import Reply, after_try, feedback_class, shown


@cache
def shared_book() -> ScoreBook:
    """One book per page, shared by the walkthrough and every stepping view."""
    return ScoreBook(getattr(window, "tilelabScore", None))


class Checkpoints:
    """The checkpoints of one stepping view: a form (hidden until a checkpoint's step) and the gate."""

    def __init__(self, kernel, player, settled=lambda: None) -> None:
        self.kernel = kernel
        self.player = player
        self.settled = settled  # called when a checkpoint is answered or skipped (the view may place its prose)
        self.enabled = False
        self.items: list[Checkpoint] = []
        self.skipped: set[str] = set()
        self.deep_link = False  # the sizes on screen came from an address (see load)
        self.shown_index: int | None = None  # the step on screen, None right after a load
        self.current: Checkpoint | None = None
        self.tries = 0  # numeric tries at the current checkpoint
        prefix = f"{kernel.NAME}-checkpoint"
        self.prompt = h("label", "checkpoint-prompt", "", for_=f"{prefix}-input", data_testid="checkpoint-prompt")
        self.input = h(
            "input",
            "",
            id=f"{prefix}-input",
            type="text",
            inputmode="decimal",
            autocomplete="off",
            data_testid="checkpoint-input",
        )
        self.check_button = h("button", "", "Check", type="submit", data_testid="checkpoint-check")
        self.skip_button = h("button", "", "Skip", type="button", data_testid="checkpoint-skip")
        self.show_button = h(
            "button", "show-answer", "Show the answer", type="button", hidden="", data_testid="checkpoint-show"
        )
        self.feedback = h("p", "feedback", "", data_testid="checkpoint-feedback")
        self.explain = h("p", "explain", "", hidden="", data_testid="checkpoint-explain")
        # One polite live region announces the question when it appears, then the verdict.
        self.status = h("p", "checkpoint-status", "", aria_live="polite", data_testid="checkpoint-status")
        self.element = h(
            "form",
            "checkpoint",
            hidden="",
            novalidate="",
            aria_label="Prediction checkpoint",
            data_testid="checkpoint",
            children=[
                h("strong", "checkpoint-title", "Predict before you step on"),
                self.prompt,
                h(
                    "div",
                    "checkpoint-row",
                    children=[self.input, self.check_button, self.show_button, self.skip_button],
                ),
                self.feedback,
                self.explain,
                self.status,
            ],
        )
        on(self.element, "submit", self.submit)
        on(self.skip_button, "click", lambda event: self.skip())
        on(self.show_button, "click", lambda event: self.show_answer())

    # --- state -----------------------------------------------------------------
    def enable(self, raw: dict[str, str], params, trace) -> None:
        """From the address (quiz=1) or the page (a course package): ask checkpoints or not."""
        enabled = quiz_on(raw, document.documentElement.getAttribute("data-quiz"))
        if enabled != self.enabled:
            self.enabled = enabled
            if trace is not None:
                self.load(params, trace)

    def load(self, params, trace, reached_from: int | None = None) -> None:
        """New sizes: new checkpoints, computed by pysim for them. `reached_from` is 0 when an address
        brought them: its step is where the reader was sent (a teacher's `step=14` link), so the first
        step shown is that one, never an earlier checkpoint, and the open checkpoints before it are
        skipped (issue 38 item 5). None: the form's new sizes, which start at step 0."""
        self.items = checkpoints(self.kernel, params, trace) if self.enabled else []
        self.shown_index = None
        self.deep_link = reached_from is not None
        self.close()

    def open(self, checkpoint: Checkpoint) -> bool:
        """Still to be asked: not answered (here or in an earlier session) and not skipped."""
        return checkpoint.key not in self.skipped and shared_book().recorded(checkpoint.key) is None

    @property
    def unanswered(self) -> bool:
        """Checkpoints are still to be asked: the view keeps out what states their answers."""
        return any(self.open(checkpoint) for checkpoint in self.items)

    def stop_at(self, index: int) -> int:
        """The step to show when the player asks for `index`: an open checkpoint jumped over comes first."""
        previous, self.shown_index = self.shown_index, index
        if previous is None:
            if self.deep_link:
                self.skipped |= {c.key for c in self.items if c.step < index and self.open(c)}
            return index
        if index <= previous:
            return index
        for checkpoint in self.items:
            if previous < checkpoint.step < index and self.open(checkpoint):
                self.shown_index = checkpoint.step
                return checkpoint.step
        return index

    # --- the form ----------------------------------------------------------------
    def show(self, index: int) -> None:
        """Show the checkpoint of this step, if any; pause playback at an open one."""
        checkpoint = next((c for c in self.items if c.step == index), None)
        if checkpoint is None:
            self.close()
            return
        if checkpoint == self.current:
            return
        self.current = checkpoint
        self.tries = 0
        self.prompt.textContent = checkpoint.prompt
        self.input.value = ""
        self.reply(None, Reply("", False, False))
        self.element.removeAttribute("hidden")
        recorded = shared_book().recorded(checkpoint.key)
        if recorded is not None:
            self.input.value = recorded.text
            verdict = "Your recorded prediction: " + ("right." if recorded.correct else "not right.")
            self.reply(recorded.correct, Reply(verdict, True, False))
            self.status.textContent = "Checkpoint (already answered): " + checkpoint.prompt
            return
        if self.open(checkpoint):
            self.player.pause()
        self.status.textContent = "Checkpoint: " + checkpoint.prompt

    def close(self) -> None:
        self.current = None
        self.element.setAttribute("hidden", "")

    def reply(self, right: bool | None, reply: Reply) -> None:
        """Show a verdict; the answer and its reasoning only when `reply.reveal`."""
        self.feedback.textContent = reply.verdict
        self.feedback.className = feedback_class(right)
        self.explain.textContent = self.current.explanation if reply.reveal and self.current else ""
        for element, visible in ((self.explain, reply.reveal), (self.show_button, reply.offer)):
            if visible:
                element.removeAttribute("hidden")
            else:
                element.setAttribute("hidden", "")
        self.status.textContent = f"{reply.verdict} {self.explain.textContent}".strip()

    def submit(self, event) -> None:
        event.preventDefault()
        checkpoint = self.current
        if checkpoint is None:
            return
        text = str(self.input.value)
        right, verdict = check(checkpoint, text)
        if right is None:
            self.feedback.textContent = verdict
            self.feedback.className = "feedback"
            self.status.textContent = verdict
            return
        shared_book().record(checkpoint.key, right, text)  # kept only if it is the first prediction
        self.tries += 1
        self.reply(right, after_try(right, self.tries, checkpoint.answer_text))
        self.settled()

    def show_answer(self) -> None:
        if self.current is not None:
            self.reply(None, shown(self.current.answer_text))

    def skip(self) -> None:
        if self.current is not None:
            self.skipped.add(self.current.key)
            self.status.textContent = "Skipped; the step controls go on."
        self.close()
        self.settled()
