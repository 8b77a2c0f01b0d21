"""#/playground's page: the editor, the sizes, the puzzle picker, Run, and the address.

Data flows one way: the editor's text and the sizes go to `pysim.play.run` (and a
puzzle's `grade`); the card, the results and the stepping only draw the RunResult
and the Grade. Nothing runs until the student presses Run: an address (a shared
link) only fills the editor, the sizes and the puzzle. User text (code, messages
that quote it) goes into the page as textContent or a form value, never as markup.

The address: `#/playground?puzzle=tiled&M=32&N=32&K=32&code=<zlib+base64url>`
(`code` is left out while the editor holds the puzzle's starter unchanged).
"""

from __future__ import annotations

import gc

from pyscript import document, window

from pysim.hardware.params import ParamError, parse_int
from pysim.play import ProgramError, run
from pysim.play.puzzles import FREE_PLAY_FILE, PUZZLE_BY_KEY, PUZZLES, starter_for, starter_text

from ...core.dom import Listeners, h
from ...core.score import puzzle_key, quiz_on
from ...widgets.checkpoint import shared_book
from ...widgets.editor import Editor
from .. import codeurl
from .card import PuzzleCard
from .results import Results
from .texts import shape_text, size_text

FREE_PLAY = ""  # the picker's value for "no puzzle"
FREE_PLAY_CODE = starter_text(FREE_PLAY_FILE)
DEFAULT_SIZES = (32, 32, 32)
MAX_SIZE = 256  # per dimension; the step budget stops what is still too slow
SIZE_NAMES = ("M", "N", "K")
ADDRESS_DELAY_MS = 400  # typing settles this long before the address follows
PAINT_DELAY_MS = 30  # lets the browser paint "Running…" before Python holds the thread


class PlaygroundView:
    """Editor, puzzle card, Run; then counters, diagnostics, C against NumPy, grids and stepping."""

    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.address_params: dict[str, str] = {}
        self.puzzle = None
        self.sizes = DEFAULT_SIZES
        self.result = None
        self.source_run = ""
        self.started = False
        self.address_timer = None
        self.listeners = Listeners()  # the page's listeners and its three timer proxies, made once
        self.address_proxy = self.listeners.proxy(lambda *args: self.write_address())
        self.run_proxy = self.listeners.proxy(lambda *args: self.run_now())
        self.grade_proxy = self.listeners.proxy(lambda *args: self.grade_now())
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
        self.run_button = h("button", "primary", "▶ Run", type="submit", data_testid="run")
        sizes = h("fieldset", "", children=[h("legend", "", "Sizes"), *fields, self.run_button])
        self.form = h(
            "form",
            "param-form play-form",
            novalidate="",
            children=[h("label", "field", children=[h("span", "", "Puzzle"), self.picker]), sizes],
        )
        self.listeners.on(self.form, "submit", self.submitted)
        self.error = h("p", "input-error", "", role="alert", data_testid="input-error", hidden="")
        self.link_note = h("p", "link-note", "", role="status", data_testid="link-note", hidden="")
        self.status = h(
            "p", "run-status", "Nothing has run yet: press Run.", aria_live="polite", data_testid="run-status"
        )
        self.editor = Editor(FREE_PLAY_CODE, self.schedule_address, self.start_run)
        editor_panel = h(
            "section",
            "editor-panel",
            aria_label="Your kernel",
            children=[h("h2", "", "Your kernel"), self.editor.element, self.editor.note],
        )
        self.card = PuzzleCard(self.load_starter)
        self.results = Results(self.editor.goto_line)
        self.layout = h("div", "play-layout", children=[editor_panel, self.card.element])
        container.textContent = ""
        for part in (self.form, self.error, self.link_note, self.status, self.layout, self.results.element):
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
        self.write_address()

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
        shape = self.puzzle.expected_shape(M, N, K) if self.puzzle is not None else (M, N)
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
        """Run pressed: read the sizes, say "Running…", and run once the browser has painted that."""
        if self.run_button.disabled:
            return  # a run is already under way
        sizes = self.read_sizes()
        if sizes is None:
            return
        self.clear_error()
        self.link_note.setAttribute("hidden", "")
        self.sizes = sizes
        self.run_button.disabled = True
        self.status.textContent = f"Running your kernel at M×N×K = {size_text(sizes)}…"
        self.status.setAttribute("data-state", "running")
        self.write_address()
        window.setTimeout(self.run_proxy, PAINT_DELAY_MS)

    def run_now(self) -> None:
        source = self.editor.text()
        M, N, K = self.sizes
        puzzle = self.puzzle
        self.source_run = source
        started = window.performance.now()
        try:
            # The run allocates ~10^5 small tracked objects that die young; a full collection over the
            # whole heap (NumPy, the app) mid-run frees nothing and costs time, so none runs meanwhile.
            gc.disable()
            try:
                result = run(source, M, N, K, expected=puzzle.expected if puzzle else None)
            finally:
                gc.enable()
            self.result = result
            elapsed = window.performance.now() - started
            self.show_result(result, source, elapsed)
            self.results.element.setAttribute("data-draw-ms", f"{window.performance.now() - started - elapsed:.0f}")
        except ProgramError as error:
            elapsed = window.performance.now() - started
            self.show_failure("error", error.line, error.message, elapsed)
        except Exception as error:  # noqa: BLE001 - a bug in the simulator must not take the page down
            elapsed = window.performance.now() - started
            self.show_failure(
                "error", 0, f"the simulator failed on this kernel ({type(error).__name__}: {error})", elapsed
            )
        finally:
            self.run_button.disabled = False
        if puzzle is not None:
            self.card.pending()
            window.setTimeout(self.grade_proxy, PAINT_DELAY_MS)

    def show_result(self, result, source: str, elapsed: float) -> None:
        self.status.textContent = f"Ran in {elapsed / 1000:.2f} s."
        self.status.setAttribute("data-state", "done")
        self.results.show(result, source, elapsed, self.puzzle.expected_label if self.puzzle else "A @ B")

    def show_failure(self, kind: str, line: int, message: str, elapsed: float) -> None:
        """The file could not run: one diagnostic, and no results to step through."""
        self.result = None
        self.status.textContent = f"The kernel could not run ({elapsed / 1000:.2f} s)."
        self.status.setAttribute("data-state", "failed")
        self.results.failed(kind, line, message, elapsed)

    def forget_results(self) -> None:
        """New code from a link: what is on screen belongs to other code."""
        self.result = None
        self.results.forget()
        self.status.textContent = "Nothing has run yet: press Run."
        self.status.setAttribute("data-state", "idle")

    # --- grading -----------------------------------------------------------------------------------------
    def grade_now(self) -> None:
        puzzle = self.puzzle
        if puzzle is None:
            return
        try:
            grade = puzzle.grade(self.source_run)
        except Exception as error:  # noqa: BLE001 - the checker must not take the page down
            self.card.checker_failed(error)
            return
        self.card.show_grade(grade)
        if grade.passed and quiz_on(self.address_params, document.documentElement.getAttribute("data-quiz")):
            shared_book().record(puzzle_key(puzzle.key), True, "solved")  # a solved puzzle counts in a course

    # --- keyboard ------------------------------------------------------------------------------------------
    def key(self, event) -> bool:
        """Stepping shortcuts after a run; never while typing in the editor."""
        if self.editor.contains(event.target) or self.result is None or not self.result.intervals:
            return False
        return self.results.stepping.player.key(event)
