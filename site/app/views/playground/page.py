"""#/playground's page: the editor, the sizes, the puzzle picker, Run, and the address.

Data flows one way: the editor's text and the sizes go to `pysim.play.run` (and a
puzzle's `grade`) in the playground's worker (`runner`); the card, the results and the
stepping only draw what it sends back (pysim.play.session's records). Nothing runs until
the student presses Run: an address (a shared link) only fills the editor, the sizes and
the puzzle. User text (code, messages that quote it) goes into the page as textContent or
a form value, never as markup.

The address: `#/playground?puzzle=tiled&M=32&N=32&K=32&code=<zlib+base64url>`
(`code` is left out while the editor holds the puzzle's starter unchanged).
"""

from __future__ import annotations

import asyncio

from pyscript import document, window

from pysim.hardware.params import ParamError, parse_int
from pysim.play.endings import FAILURE_ENDINGS, ending_words
from pysim.play.protocol import GradeRequest, RunRequest
from pysim.play.puzzles import FREE_PLAY_FILE, PUZZLE_BY_KEY, PUZZLES, starter_for, starter_text
from pysim.play.session import expected_shape

from ...core.dom import Listeners, h, thousands
from ...core.score import puzzle_key, quiz_on
from ...widgets.checkpoint import shared_book
from ...widgets.editor import Editor
from ...widgets.icons import labelled
from .. import codeurl
from .card import PuzzleCard
from .results import Results
from .runner import GRADE_LIMIT_MS, RUN_LIMIT_MS, Job, Runner, clear_spans, span
from .texts import FAILURES, WORKER_STATES, seconds_text, shape_text, size_text

FREE_PLAY = ""  # the picker's value for "no puzzle"
FREE_PLAY_CODE = starter_text(FREE_PLAY_FILE)
DEFAULT_SIZES = (32, 32, 32)
MAX_SIZE = 256  # per dimension; the step budget stops what is still too slow
SIZE_NAMES = ("M", "N", "K")
ADDRESS_DELAY_MS = 400  # typing settles this long before the address follows


class PlaygroundView:
    """Editor, puzzle card, Run; then counters, diagnostics, C against NumPy, grids and stepping."""

    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.address_params: dict[str, str] = {}
        self.puzzle = None
        self.sizes = DEFAULT_SIZES
        self.result = None  # the RunSummary on screen: the last run that succeeded
        self.ran_with: tuple[str, tuple[int, int, int], str | None] | None = None  # the inputs of what is shown
        self.started = False
        self.address_timer = None
        self.listeners = Listeners()  # the page's listeners and its timer proxy, made once
        self.address_proxy = self.listeners.proxy(lambda *args: self.write_address())
        self.runner = Runner(self.worker_status)
        self.build(container)

    # --- building the page once ------------------------------------------------------------------
    def build(self, container) -> None:
        self.picker = h("select", "", id="play-puzzle", data_testid="puzzle")
        self.picker.appendChild(h("option", "", "Free play (no puzzle)", value=FREE_PLAY))
        for puzzle in PUZZLES:
            self.picker.appendChild(h("option", "", puzzle.title, value=puzzle.key))
        self.listeners.on(self.picker, "change", lambda event: self.pick(str(self.picker.value)))
        self.inputs = {name: self.size_input(name) for name in SIZE_NAMES}
        fields = [h("label", "field", children=[h("span", "", name), self.inputs[name]]) for name in SIZE_NAMES]
        # Run, Stop and what the last run did sit in a bar of their own, outside the form (Run still submits
        # it): a locked exercise (lock=1) hides the form with the teacher's sizes, never the bar.
        self.run_button = h(
            "button", "primary", children=labelled("play", "Run"), type="submit", form="play-form", data_testid="run"
        )
        self.stop_button = h(
            "button", "", children=labelled("stop", "Stop"), type="button", data_testid="stop", disabled=""
        )
        self.listeners.on(self.stop_button, "click", lambda event: self.runner.stop())
        sizes = h("fieldset", "", children=[h("legend", "", "Sizes"), *fields])
        self.form = h(
            "form",
            "param-form play-form",
            id="play-form",
            novalidate="",
            children=[h("label", "field", children=[h("span", "", "Puzzle"), self.picker]), sizes],
        )
        self.listeners.on(self.form, "submit", self.submitted)
        self.error = h("p", "input-error", "", role="alert", data_testid="input-error", hidden="")
        self.link_note = h("p", "link-note", "", role="status", data_testid="link-note", hidden="")
        self.status = h(
            "p", "run-status", "Nothing has run yet: press Run.", aria_live="polite", data_testid="run-status"
        )
        self.worker_line = h("p", "hint worker-status", "", data_testid="worker-status", data_state="none")
        self.run_bar = h("div", "run-bar", children=[self.run_button, self.stop_button, self.status])
        self.editor = Editor(FREE_PLAY_CODE, self.edited, self.start_run)
        editor_panel = h(
            "section",
            "editor-panel",
            aria_label="Your kernel",
            children=[h("h2", "", "Your kernel"), self.editor.element, self.editor.note],
        )
        self.card = PuzzleCard(self.load_starter, self.holds_edits)
        self.results = Results(self.editor.goto_line, self.runner)
        self.layout = h("div", "play-layout", children=[editor_panel, self.card.element])
        container.textContent = ""
        for part in (
            self.form,
            self.run_bar,
            self.results.summary,  # beside Run: what a run came to is on the screen where Run was pressed
            self.error,
            self.link_note,
            self.worker_line,
            self.layout,
            self.results.element,
        ):
            container.appendChild(part)

    def size_input(self, name: str):
        control = h(
            "input",
            "",
            id=f"play-{name}",
            type="text",
            inputmode="numeric",
            size="4",
            autocomplete="off",
            data_testid=f"input-{name}",
        )
        self.listeners.on(control, "change", lambda event: self.schedule_address())
        self.listeners.on(control, "input", lambda event: self.check_stale())
        return control

    # --- the address -------------------------------------------------------------------------------
    def activate(self, raw: dict[str, str]) -> None:
        """Fill the editor, sizes and puzzle from an address. Never runs anything."""
        self.address_params = raw  # quiz=1 there makes solved puzzles count (as in a course package)
        if self.started and not set(raw) & {"puzzle", *SIZE_NAMES, codeurl.KEY}:
            self.write_address()  # a bare link to the view: keep what the student was doing
            return
        first = not self.started
        self.started = True
        self.runner.start()  # the worker loads while the student reads and edits
        problems = []
        key = raw.get("puzzle", FREE_PLAY)
        if key != FREE_PLAY and key not in PUZZLE_BY_KEY:
            problems.append(f"puzzle must be one of {', '.join(PUZZLE_BY_KEY)} (got {key[:40]!r}); free play is open")
            key = FREE_PLAY
        self.set_puzzle(key)
        sizes = list(self.sizes if not first else (self.puzzle.sizes[0] if self.puzzle else DEFAULT_SIZES))
        for i, name in enumerate(SIZE_NAMES):
            if name in raw:
                try:
                    sizes[i] = parse_int(name, raw[name], 1, MAX_SIZE)
                except ParamError as error:
                    problems.append(error.message)
        self.sizes = (sizes[0], sizes[1], sizes[2])
        self.show_sizes()
        self.link_note.setAttribute("hidden", "")
        if codeurl.KEY in raw:
            problems.extend(self.load_link_code(raw[codeurl.KEY]))
        elif first or "puzzle" in raw:
            self.editor.set_text(self.starter())
        if problems:
            self.error.textContent = " ".join(problems)
            self.error.removeAttribute("hidden")
        else:
            self.error.setAttribute("hidden", "")
        self.write_address()

    def load_link_code(self, text: str) -> list[str]:
        """Put a link's code in the editor (the starter when it is damaged); the problems to report."""
        try:
            code = codeurl.decode(text)
        except codeurl.CodeLinkError as error:
            self.editor.set_text(self.starter())
            self.forget_results()
            return [f"{error}. The editor holds the starter code instead."]
        if code != self.editor.text():
            self.editor.set_text(code)
            self.forget_results()
            self.link_note.textContent = "The link's code is in the editor. Nothing has run: press Run to run it."
            self.link_note.removeAttribute("hidden")
        return []

    def edited(self) -> None:
        """The editor's text changed."""
        self.check_stale()
        self.schedule_address()

    def check_stale(self) -> None:
        """Mark the results out of date while the code, the sizes or the puzzle differ from their run's."""
        ran = self.ran_with
        if ran is None:
            return
        source, sizes, puzzle = ran
        now = tuple(str(self.inputs[name].value).strip() for name in SIZE_NAMES)
        changed = [
            what
            for what, differs in (
                ("the code", self.editor.text() != source),
                ("the sizes", now != tuple(str(v) for v in sizes)),
                ("the puzzle", (self.puzzle.key if self.puzzle else None) != puzzle),
            )
            if differs
        ]
        self.results.mark_stale(changed)

    def schedule_address(self) -> None:
        if self.address_timer is not None:
            window.clearTimeout(self.address_timer)
        self.address_timer = window.setTimeout(self.address_proxy, ADDRESS_DELAY_MS)

    def write_address(self) -> None:
        self.address_timer = None
        values: dict[str, str] = {}
        if self.puzzle is not None:
            values["puzzle"] = self.puzzle.key
        for name in SIZE_NAMES:
            values[name] = str(self.inputs[name].value).strip()[:12]
        text = self.editor.text()
        if text != self.starter():
            try:
                values[codeurl.KEY] = codeurl.encode(text)
            except codeurl.CodeLinkError as error:
                self.link_note.textContent = str(error)
                self.link_note.removeAttribute("hidden")
        self.navigate(values)

    # --- puzzles -------------------------------------------------------------------------------------
    def starter(self) -> str:
        return starter_for(self.puzzle) if self.puzzle is not None else FREE_PLAY_CODE

    def set_puzzle(self, key: str) -> None:
        self.puzzle = PUZZLE_BY_KEY.get(key)
        self.picker.value = key
        self.card.show(self.puzzle)
        self.layout.classList.toggle("with-card", self.puzzle is not None)

    def pick(self, key: str) -> None:
        """The picker changed: show the puzzle, its first size, and its starter if the editor held a starter."""
        held_starter = self.editor.text() in (self.starter(), "")
        self.set_puzzle(key)
        if self.puzzle is not None:
            self.sizes = self.puzzle.sizes[0]
            self.show_sizes()
        if held_starter:
            self.editor.set_text(self.starter())
        self.check_stale()
        self.write_address()

    def holds_edits(self) -> bool:
        """The editor holds code of the student's own (the card asks before the starter replaces it)."""
        return self.editor.text() not in (self.starter(), "")

    def load_starter(self) -> None:
        self.editor.set_text(self.starter())
        self.write_address()

    def show_sizes(self) -> None:
        for name, value in zip(SIZE_NAMES, self.sizes):
            self.inputs[name].value = str(value)

    # --- running ---------------------------------------------------------------------------------------
    def submitted(self, event) -> None:
        event.preventDefault()
        self.start_run()

    def read_sizes(self) -> tuple[int, int, int] | None:
        try:
            M, N, K = (parse_int(name, str(self.inputs[name].value), 1, MAX_SIZE) for name in SIZE_NAMES)
        except ParamError as error:
            self.show_error(error.message, error.param)
            return None
        shape = expected_shape(self.puzzle, M, N, K)
        if shape != (M, N):
            sizes = ", ".join(size_text(s) for s in self.puzzle.sizes)
            self.show_error(
                f"{self.puzzle.title} compares C ({M} × {N}) with {self.puzzle.expected_label}, which is "
                f"{shape_text(shape)} at these sizes: pick sizes like the puzzle's ({sizes})",
                "N",
            )
            return None
        return M, N, K

    def show_error(self, message: str, name: str | None = None) -> None:
        self.error.textContent = message
        self.error.removeAttribute("hidden")
        for key, control in self.inputs.items():
            if key == name:
                control.setAttribute("aria-invalid", "true")
            else:
                control.removeAttribute("aria-invalid")

    def clear_error(self) -> None:
        self.error.setAttribute("hidden", "")
        for control in self.inputs.values():
            control.removeAttribute("aria-invalid")

    def start_run(self) -> None:
        """Run pressed: read the sizes and send the run (then the puzzle's grade) to the runner."""
        if self.run_button.disabled:
            return  # a run is already under way
        pressed = window.performance.now()
        clear_spans()
        sizes = self.read_sizes()
        if sizes is None:
            return
        self.clear_error()
        self.link_note.setAttribute("hidden", "")
        self.sizes = sizes
        self.write_address()
        M, N, K = sizes
        puzzle = self.puzzle
        source = self.editor.text()
        request = RunRequest(source, M, N, K, puzzle.key if puzzle else None)
        self.set_running(True)
        self.status.textContent = f"Running your kernel at M×N×K = {size_text(sizes)}…"
        self.status.setAttribute("data-state", "running")
        self.status.removeAttribute("data-why")
        self.status.removeAttribute("data-ended")
        self.runner.request(
            Job(
                request,
                RUN_LIMIT_MS,
                lambda reply: self.ran(reply, request),
                lambda why, detail: self.stopped("run", why, detail),
                self.progressed,
                timed=True,
            )
        )
        span("run", "Run pressed", pressed)

    def set_running(self, running: bool) -> None:
        self.run_button.disabled = running
        self.stop_button.disabled = not running or not self.runner.in_worker

    def progressed(self, threads: int, steps: int) -> None:
        elapsed = (window.performance.now() - self.runner.sent_at) / 1000
        self.status.textContent = (
            f"Running your kernel at M×N×K = {size_text(self.sizes)}: {thousands(threads)} thread(s) done, "
            f"{thousands(steps)} steps, {seconds_text(elapsed)}…"
        )

    def ran(self, reply: dict, request: RunRequest) -> None:
        """The run's reply: its results drawn in this task, the grade asked for, the stepping drawn in parts."""
        started = window.performance.now()
        elapsed = started - self.runner.sent_at  # from when the worker had it
        if "error" in reply:
            self.set_running(False)
            self.show_failure("error", reply["error"]["line"], reply["error"]["message"], elapsed)
            return
        summary = reply["summary"]
        self.runner.remember(request)
        self.result = summary
        label = self.puzzle.expected_label if self.puzzle else "A @ B"
        self.results.show(summary, elapsed, label)  # asks the worker for the first interval
        self.ran_with = (request.source, (request.M, request.N, request.K), request.puzzle)
        self.check_stale()  # edited while it ran
        self.results.element.setAttribute("data-draw-ms", f"{window.performance.now() - started:.0f}")
        self.show_status("done", summary.ended, ending_words(summary.ended, summary.max_steps, elapsed / 1000) + ".")
        span("run", "results drawn", started)
        if self.puzzle is not None:
            self.card.pending()
        if summary.intervals:
            asyncio.ensure_future(self.draw_stepping(summary, request, label))
        else:
            self.grade(request)

    async def draw_stepping(self, summary, request: RunRequest, label: str) -> None:
        """The stepping section's grids and first interval, in parts (the page stays free between them), then
        the grade: while the worker grades it uses a core, and on a two-core machine the page's drawing would
        wait for it (tasks twice as long as their CPU time, measured with bench/playground.py)."""
        started = window.performance.now()
        if await self.results.stepping.load(summary, request.source, label):
            span("run", "grids drawn", started)
        self.grade(request)

    def grade(self, run: RunRequest) -> None:
        """After `run`: the worker grades its source for the run's puzzle (none: the run is over)."""
        if run.puzzle is None:
            self.set_running(False)
            return
        grade = GradeRequest(run.source, run.puzzle)
        self.runner.request(
            Job(grade, GRADE_LIMIT_MS, self.graded, lambda why, detail: self.stopped("grade", why, detail), timed=True)
        )

    def stopped(self, what: str, why: str, detail: str) -> None:
        """The run or the grade was stopped, overran its limit or crashed the worker: say so, keep what is shown."""
        self.set_running(False)
        limit = (RUN_LIMIT_MS if what == "run" else GRADE_LIMIT_MS) // 1000
        message = FAILURES[why].format(what=what, limit=limit, detail=detail)
        kept = " The results below are from your last run that finished." if self.result is not None else ""
        self.show_status("failed", FAILURE_ENDINGS[why], f"{FAILURE_ENDINGS[why]}: {message}{kept}")
        self.status.setAttribute("data-why", why)
        if what == "grade":
            self.card.checker_failed(message)

    def show_status(self, state: str, ended: str, text: str) -> None:
        """The status line after a request: `state` done or failed (data-state), `ended` SPEC §7's word."""
        self.status.textContent = text
        self.status.setAttribute("data-state", state)
        self.status.setAttribute("data-ended", ended)

    def show_failure(self, kind: str, line: int, message: str, elapsed: float) -> None:
        """The file could not run: one diagnostic, and no results to step through."""
        self.result = None
        self.show_status("failed", "refused", f"{ending_words('refused', 0)} ({seconds_text(elapsed / 1000)}).")
        self.status.setAttribute("data-why", "error")
        self.results.failed(kind, line, message, elapsed)
        self.ran_with = None

    def forget_results(self) -> None:
        """New code from a link: what is on screen belongs to other code."""
        self.result = None
        self.ran_with = None
        self.results.forget()
        self.status.textContent = "Nothing has run yet: press Run."
        self.status.setAttribute("data-state", "idle")
        self.status.removeAttribute("data-ended")

    def worker_status(self, state: str, detail: str) -> None:
        """Where runs happen, in one line (the limits with it)."""
        self.worker_line.setAttribute("data-state", state)
        self.worker_line.textContent = WORKER_STATES[state].format(
            run=RUN_LIMIT_MS // 1000, grade=GRADE_LIMIT_MS // 1000, detail=detail
        )
        if state == "main-thread":
            self.stop_button.disabled = True

    # --- grading -----------------------------------------------------------------------------------------
    def graded(self, reply: dict) -> None:
        started = window.performance.now()
        self.set_running(False)
        puzzle = self.puzzle
        if "checker_failed" in reply:
            self.card.checker_failed(reply["checker_failed"])
            return
        grade = reply["grade"]
        self.card.show_grade(grade)
        span("grade", "drawn", started)
        if puzzle is not None and grade.passed and grade.puzzle == puzzle.key:
            if quiz_on(self.address_params, document.documentElement.getAttribute("data-quiz")):
                shared_book().record(puzzle_key(puzzle.key), True, "solved")  # a solved puzzle counts in a course

    # --- keyboard ------------------------------------------------------------------------------------------
    def key(self, event) -> bool:
        """Stepping shortcuts after a run; never while typing in the editor."""
        if self.editor.contains(event.target) or self.result is None or not self.result.intervals:
            return False
        return self.results.stepping.player.key(event)
