"""#/hierarchy: the memory-hierarchy walkthrough (seed 002), steps 0-7.

The prose is static HTML (site/partials/hierarchy.html) with number slots; this view fills
them from pysim's Walkthrough (numbers.py), shows the sentences that apply (`data-when`), draws the
SVG pictures (pictures.py), and wires the controls once. Guided (SPEC §7, unless guide=0), it asks the
guide's questions (pysim.lessons.guides.walkthrough) in the step they belong to, and shows no step after the
one on screen: each answer is printed in the step after its question."""

from __future__ import annotations

from pyodide.ffi import create_proxy
from pyscript import window

from pysim.core.banks import ACCESS_KINDS
from pysim.hardware.params import HierarchyParams, ParamError, parse_int
from pysim.lessons.walkthrough import Walkthrough, bank_picture, check, quiz

from ...core import slots
from ...core.dom import h, on
from ...core.score import walkthrough_key
from ...core.tries import Reply, after_try, feedback_class, shown
from ...widgets.checkpoint import shared_book
from ...widgets.form import ParamForm
from ...widgets.guide import GuidePanel, show
from .numbers import STEPS, cases, latency_sources, slot_values
from .pictures import (
    banks_before_after_picture,
    banks_picture,
    bars_picture,
    ladder_picture,
    naive_picture,
    reuse_picture,
    sweep_picture,
    thread_picture,
    tile_picture,
)


class HierarchyView:
    OWNED_KEYS = ("guide",)  # written by the view (guide=0 while exploring freely), not kept by the shell

    def __init__(self, container, navigate) -> None:
        self.root = container
        self.stage = container  # where the guide listens for clicks on the picture (it asks none here)
        self.player = self  # the guide moves the walkthrough as it moves a stepping view's player (go, index)
        self.thread = 0
        self.navigate = navigate
        self.params: HierarchyParams | None = None
        self.walk: Walkthrough | None = None
        self.step = 0
        self.pad = 0
        self.access = "column"
        self.answers: dict[str, object] = {}
        self.tries: dict[str, int] = {}  # numeric tries per question since the sizes last changed
        self.form = ParamForm(HierarchyParams, self.apply, legend="Problem (N×N matrices, T×T tiles)")
        self.part("form").appendChild(self.form.element)
        self.prev = self.find('[data-testid="prev"]')
        self.next = self.find('[data-testid="step"]')
        self.sections = [self.find(f'[data-testid="walk-step-{i}"]') for i in range(STEPS)]
        # After the last step: shown once the guide reaches it (it restates the answers). The reveal-check quiz stays:
        # it asks, and a course package scores it.
        self.summary = self.find('[data-testid="summary"]')
        self.guide = GuidePanel(self, "hierarchy")
        self.find(".steps-nav").appendChild(self.guide.on_button)
        self.pad_select = self.find('[data-testid="input-pad"]')
        self.access_select = self.find('[data-testid="input-access"]')
        # Bound once; every later change only updates text, attributes and pictures.
        on(self.prev, "click", lambda e: self.go(self.step - 1))
        on(self.next, "click", lambda e: self.go(self.step + 1))
        on(self.pad_select, "change", lambda e: self.set_banks(int(self.pad_select.value), self.access))
        on(self.access_select, "change", lambda e: self.set_banks(self.pad, str(self.access_select.value)))
        forms = container.querySelectorAll("form[data-quiz]")
        for i in range(forms.length):
            form = forms.item(i)
            on(form, "submit", self.mark)
            # Offered after a wrong first try, beside Check (so Tab reaches it next).
            show = h(
                "button",
                "show-answer",
                "Show the answer",
                type="button",
                hidden="",
                data_testid=f"quiz-{form.dataset.quiz}-show",
            )
            form.querySelector("div").appendChild(show)
            on(show, "click", lambda event, form=form: self.reply(form, None, shown(self.answer_text(form))))
        for control in (self.prev, self.next, self.pad_select, self.access_select):
            control.disabled = False
        for i in range(forms.length):
            forms.item(i).querySelector("button").disabled = False
        self.scroll_proxy = create_proxy(lambda timestamp: self.scroll_to_step())

    def find(self, selector: str):
        return self.root.querySelector(selector)

    def part(self, name: str):
        return self.find(f'[data-part="{name}"]')

    # --- state -------------------------------------------------------------
    @property
    def index(self) -> int:
        return self.step

    def activate(self, raw: dict[str, str]) -> None:
        self.guide.enable(raw)
        if self.params is not None and not set(raw) & {"N", "T", "device", "step", "pad", "access"}:
            self.write_address()
            return
        try:
            params = HierarchyParams.parse({k: raw[k] for k in ("N", "T", "device") if k in raw})
            step = parse_int("step", raw.get("step", "0"), 0, STEPS - 1)
            pad = parse_int("pad", raw.get("pad", "0"), 0, 2)
            access = raw.get("access", "column")
            if access not in ACCESS_KINDS:
                raise ParamError("access", f"access must be one of {', '.join(ACCESS_KINDS)}")
        except ParamError as error:
            self.form.show_error(error)
            if self.params is None:
                self.load(HierarchyParams())
            self.write_address()
            return
        self.form.clear_error()
        self.load(params, step)
        self.set_banks(pad, access, write=False)
        self.go(step, scroll=False)
        if "step" in raw:  # a deep link to a step: scroll once the page has settled (after the boot banner goes)
            window.requestAnimationFrame(self.scroll_proxy)

    def apply(self, params: HierarchyParams) -> None:
        self.apply_at(params, self.thread, self.step)

    def apply_at(self, params: HierarchyParams, thread: int, step: int) -> None:
        """New sizes from the form (or the guide's task, or back to the guide's own): shown at `step`, or at the
        guide's first open question before it."""
        self.form.clear_error()
        self.load(params, step)
        self.go(step, scroll=False)

    def show_step(self, step: int) -> None:
        self.go(step, scroll=False)

    def follow_quietly(self, thread: int) -> None:
        """No thread to follow in the walkthrough."""

    def load(self, params: HierarchyParams, step: int = 0) -> None:
        self.params = params
        self.walk = w = Walkthrough(params)
        self.form.show(params)
        slots.fill(self.root, slot_values(w))
        for case, visible in cases(w).items():
            slots.show(self.root, f'[data-when="{case}"]', visible)
        speed = self.find('[data-testid="speedup"]')
        speed.setAttribute("data-value", f"{w.reduction:.6f}")
        for testid, name, value in w.timing.attributes():
            self.find(f'[data-testid="{testid}"]').setAttribute(name, value)
        for field, href, label in latency_sources(w):
            link = self.find(f'[data-source="{field}"]')
            link.textContent = label
            if href is None:
                link.removeAttribute("href")
            else:
                link.setAttribute("href", href)
        self.part("defaults-note").setAttribute("data-filled", "")  # keeps its line: nothing below jumps
        for name, drawing in (
            ("ladder", ladder_picture(w)),
            ("thread", thread_picture(w)),
            ("naive", naive_picture(w)),
            ("tile", tile_picture(w)),
            ("reuse", reuse_picture(w)),
            ("bars", bars_picture(w)),
            ("banks-before-after", banks_before_after_picture()),
            ("sweep", sweep_picture(w)),
        ):
            self.draw(name, drawing)
        self.answers = {question.key: question for question in quiz(w)}
        self.reset_quiz()
        self.guide.load(params, step)

    def draw(self, name: str, drawing) -> None:
        """Put a freshly drawn picture in place of the one the partial reserved (same viewBox)."""
        drawing.setAttribute("data-picture", name)
        self.find(f'[data-picture="{name}"]').replaceWith(drawing)

    def set_banks(self, pad: int, access: str, write: bool = True) -> None:
        self.pad, self.access = pad, access
        self.pad_select.value = str(pad)
        self.access_select.value = access
        report = bank_picture(pad, access)
        slots.fill(
            self.root, {"bank-degree": report.degree, "banks-used": report.banks_used, "bank-threads": report.threads}
        )
        broadcast = access == "broadcast" and report.broadcast_words > 0 and report.degree == 1
        slots.show(self.root, '[data-when="conflict"]', report.degree > 1)
        slots.show(self.root, '[data-when="no-conflict"]', report.degree <= 1)
        slots.show(self.root, '[data-when="broadcast"]', broadcast)
        self.draw("banks", banks_picture(report))
        if write:
            self.write_address()

    def go(self, step: int, scroll: bool = True) -> None:
        self.step = self.guide.stop_at(max(0, min(step, STEPS - 1)))  # an open question stops the walk there
        self.guide.arrive(self.step)
        guided = self.guide.on
        for i, section in enumerate(self.sections):
            if i == self.step:
                section.setAttribute("aria-current", "step")
                if guided:  # the question box in the step it asks about, after its picture (css/guide.css)
                    section.appendChild(self.guide.element)
            else:
                section.removeAttribute("aria-current")
            show(section, not guided or i <= self.step)
        show(self.summary, not guided or self.step == STEPS - 1)
        self.prev.disabled = self.step == 0
        self.next.disabled = self.step == STEPS - 1
        self.part("position").textContent = f"step {self.step} of {STEPS - 1}"
        if scroll:
            self.scroll_to_step()
        self.write_address()

    def scroll_to_step(self) -> None:
        # This document only: scrollIntoView would also scroll a course page that embeds us in a frame.
        # The step lands just below the sticky bar (its form and Back/Next, or on a phone Back/Next alone).
        bar = max(self.part("walk-bar").offsetHeight, self.find(".steps-nav").offsetHeight)
        window.scrollTo(0, self.sections[self.step].getBoundingClientRect().top + window.scrollY - bar - 8)

    def write_address(self) -> None:
        values = self.params.as_strings() | {"step": str(self.step)}
        if not self.guide.active:  # exploring freely: a reload or a shared link keeps the free view
            values["guide"] = "0"
        if self.pad or self.access != "column":
            values |= {"pad": str(self.pad), "access": self.access}
        self.navigate(values)

    def key(self, event) -> bool:
        moves = {"ArrowRight": self.step + 1, "ArrowLeft": self.step - 1, "Home": 0, "End": STEPS - 1}
        if event.key not in moves:
            return False
        self.go(moves[event.key])
        return True

    # --- the quiz ------------------------------------------------------------
    def reset_quiz(self) -> None:
        self.tries = {}
        forms = self.root.querySelectorAll("form[data-quiz]")
        for i in range(forms.length):
            feedback = forms.item(i).querySelector(".feedback")
            feedback.textContent = ""
            feedback.className = "feedback"
            forms.item(i).querySelector(".explain").setAttribute("hidden", "")
            forms.item(i).querySelector(".show-answer").setAttribute("hidden", "")
            recorded = shared_book().recorded(walkthrough_key(str(forms.item(i).dataset.quiz)))
            if recorded is not None:  # answered in an earlier session of a course package: show it again
                forms.item(i).querySelector("input").value = recorded.text
                feedback.textContent = "Your recorded answer: " + ("right." if recorded.correct else "not right.")
                feedback.className = "feedback right" if recorded.correct else "feedback wrong"
                forms.item(i).querySelector(".explain").removeAttribute("hidden")

    def answer_text(self, form) -> str:
        return f"{self.answers[str(form.dataset.quiz)].answer:,}"

    def mark(self, event) -> None:
        """Enter in the box or the Check button: pysim marks the answer; a wrong first try may try again."""
        event.preventDefault()
        form = event.currentTarget
        key, text = str(form.dataset.quiz), str(form.querySelector("input").value)
        right, verdict = check(self.answers[key], text)
        if right is None:  # not a number: not a try, and what was shown stays
            feedback = form.querySelector(".feedback")
            feedback.textContent = verdict
            feedback.className = "feedback"
            return
        shared_book().record(walkthrough_key(key), right, text)  # kept only if it is the first answer
        self.tries[key] = self.tries.get(key, 0) + 1
        self.reply(form, right, after_try(right, self.tries[key], self.answer_text(form)))

    def reply(self, form, right: bool | None, reply: Reply) -> None:
        feedback = form.querySelector(".feedback")
        feedback.textContent = reply.verdict
        feedback.className = feedback_class(right)
        slots.show(form, ".explain", reply.reveal)
        slots.show(form, ".show-answer", reply.offer)
