"""#/playground: write a Numba-CUDA kernel, run it on pysim.play, step through what it did, solve puzzles.

Data flows one way: the editor's text and the sizes go to `pysim.play.run` (and a
puzzle's `grade`); this module only draws the RunResult and the Grade. Nothing
runs until the student presses Run: an address (a shared link) only fills the
editor, the sizes and the puzzle. User text (code, messages that quote it) goes
into the page as textContent or a form value, never as markup.

The address: `#/playground?puzzle=tiled&M=32&N=32&K=32&code=<zlib+base64url>`
(`code` is left out while the editor holds the puzzle's starter unchanged).
"""

from __future__ import annotations

import gc

import numpy as np
from pyodide.ffi import create_proxy
from pyscript import document, window

from pysim.core import banks, sectors
from pysim.core.counters import COUNTER_LABELS, Counters
from pysim.core.warps import INACTIVE, by_warp
from pysim.hardware.params import ParamError, parse_int
from pysim.play import ProgramError, run
from pysim.play.analysis import thread_xy
from pysim.play.puzzles import PUZZLE_BY_KEY, PUZZLES, starter_for

from ..core.dom import fmt, h, on, thousands
from ..core.score import puzzle_key, quiz_on
from ..widgets.checkpoint import shared_book
from ..widgets.components import CodePanel, CounterBoard, VerifyBadge, add_marks, memory_panel
from ..widgets.editor import Editor
from ..widgets.grids import MatrixGrid
from ..widgets.player import Player
from . import codeurl

FREE_PLAY = ""  # the picker's value for "no puzzle"
FREE_PLAY_CODE = '''\
"""Free play: a complete SGEMM to change and run. Pick a puzzle above for a goal and a checker.

One thread per element of C; threadIdx.x walks the columns, so a warp reads 32
neighbours of B (coalesced) and one element of A (a broadcast).
"""

from numba import cuda, float32

BX = 32  # threads along x: one warp
BY = 4


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    M, K = A.shape
    N = B.shape[1]
    if row < M and col < N:
        total = float32(0.0)
        for k in range(K):
            total += A[row, k] * B[k, col]
        C[row, col] = total


def launch(M, N, K):
    return ((N + BX - 1) // BX, (M + BY - 1) // BY), (BX, BY)
'''
DEFAULT_SIZES = (32, 32, 32)
MAX_SIZE = 256  # per dimension; the step budget stops what is still too slow
SIZE_NAMES = ("M", "N", "K")
ADDRESS_DELAY_MS = 400  # typing settles this long before the address follows
PAINT_DELAY_MS = 30  # lets the browser paint "Running…" before Python holds the thread
MAX_THREAD_ROWS = 300  # statements listed for one thread in one interval
MAX_WARP_ROWS = 160  # warp instructions listed for one interval
COUNTER_NAMES = tuple(Counters.__dataclass_fields__)
ACCESS_MARKS = {
    ("global", "load"): "g-load",
    ("global", "store"): "c-store",
    ("shared", "store"): "s-store",
    ("shared", "load"): "s-read",
}
KIND_LABELS = {
    "error": "error",
    "step_budget": "step budget",
    "barrier_divergence": "barrier divergence",
    "race": "race",
    "out_of_bounds": "out of bounds",
}


def size_text(size: tuple[int, int, int]) -> str:
    return "×".join(str(v) for v in size)


def xy_text(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def shape_text(shape) -> str:
    return " × ".join(str(v) for v in shape)


def expected_shape(puzzle, M: int, N: int, K: int) -> tuple[int, ...]:
    """The shape of the answer C is compared with (a puzzle may compare C with A or Aᵀ)."""
    if puzzle is None or puzzle.expected is None:
        return (M, N)
    return tuple(np.shape(puzzle.expected(np.zeros((M, K), np.float32), np.zeros((K, N), np.float32))))


def access_text(record) -> str:
    """`load global A[3, 4] → 5`: one access of one thread, from pysim's record."""
    where = f"{record.array}[{', '.join(str(i) for i in record.index)}]"
    arrow = "→" if record.op == "load" else "←"
    return f"{record.op} {record.space} {where} {arrow} {fmt(record.value) or 'NaN'}"


class PlaygroundView:
    """Editor, puzzle card, Run; then counters, diagnostics, C against NumPy, grids and stepping."""

    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.address_params: dict[str, str] = {}
        self.puzzle = None
        self.sizes = DEFAULT_SIZES
        self.result = None
        self.source_run = ""
        self.thread = 0
        self.hints_shown = 0
        self.started = False
        self.address_timer = None
        self.address_proxy = create_proxy(lambda *args: self.write_address())
        self.run_proxy = create_proxy(lambda *args: self.run_now())
        self.grade_proxy = create_proxy(lambda *args: self.grade_now())
        self.shared_names: tuple[str, ...] = ()
        self.build(container)

    # --- building the page once ------------------------------------------------------------------
    def build(self, container) -> None:
        self.picker = h("select", "", id="play-puzzle", data_testid="puzzle")
        self.picker.appendChild(h("option", "", "Free play (no puzzle)", value=FREE_PLAY))
        for puzzle in PUZZLES:
            self.picker.appendChild(h("option", "", puzzle.title, value=puzzle.key))
        on(self.picker, "change", lambda event: self.pick(str(self.picker.value)))
        self.inputs = {}
        fields = []
        for name in SIZE_NAMES:
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
            on(control, "change", lambda event: self.schedule_address())
            self.inputs[name] = control
            fields.append(h("label", "field", children=[h("span", "", name), control]))
        self.run_button = h("button", "primary", "▶ Run", type="submit", data_testid="run")
        sizes = h("fieldset", "", children=[h("legend", "", "Sizes"), *fields, self.run_button])
        self.form = h(
            "form",
            "param-form play-form",
            novalidate="",
            children=[
                h("label", "field", children=[h("span", "", "Puzzle"), self.picker]),
                sizes,
            ],
        )
        on(self.form, "submit", self.submitted)
        self.error = h("p", "input-error", "", role="alert", data_testid="input-error", hidden="")
        self.link_note = h("p", "link-note", "", role="status", data_testid="link-note", hidden="")
        self.status = h(
            "p", "run-status", "Nothing has run yet: press Run.", aria_live="polite", data_testid="run-status"
        )

        self.editor = Editor(FREE_PLAY_CODE, self.edited, self.start_run)
        editor_panel = h(
            "section",
            "editor-panel",
            aria_label="Your kernel",
            children=[h("h2", "", "Your kernel"), self.editor.element, self.editor.note],
        )
        self.card = self.build_card()
        self.results = self.build_results()
        self.layout = h("div", "play-layout", children=[editor_panel, self.card])
        container.textContent = ""
        for part in (
            self.form,
            self.error,
            self.link_note,
            self.status,
            self.layout,
            self.results,
        ):
            container.appendChild(part)

    def build_card(self):
        self.card_title = h("h2", "", "")
        self.card_goal = h("p", "goal", "", data_testid="puzzle-goal")
        self.card_notes = h("p", "hint", "")
        self.card_key = h("p", "hint", "")
        self.budget_list = h("ul", "budgets", data_testid="puzzle-budgets")
        self.starter_button = h("button", "", "Load the starter code", type="button", data_testid="load-starter")
        on(self.starter_button, "click", lambda event: self.load_starter())
        self.hint_button = h("button", "", "Show a hint", type="button", data_testid="hint")
        on(self.hint_button, "click", lambda event: self.reveal_hint())
        self.hint_list = h("ol", "hints", data_testid="hints", aria_live="polite")
        self.grade_line = h("p", "grade", "Not checked yet: press Run.", data_testid="grade", data_value="none")
        head = h(
            "tr",
            "",
            children=[h("th", "", text, scope="col") for text in ("Check", "Size", "Measured", "Budget", "")],
        )
        self.checks_body = h("tbody", "")
        self.checks = h(
            "table",
            "checks",
            data_testid="checks",
            children=[h("caption", "", "Every check at every size"), h("thead", "", children=[head]), self.checks_body],
            hidden="",
        )
        return h(
            "section",
            "puzzle-card",
            data_testid="puzzle-card",
            aria_label="Puzzle",
            hidden="",
            children=[
                self.card_title,
                self.card_goal,
                h("h3", "", "To pass"),
                self.budget_list,
                self.card_notes,
                self.card_key,
                h("div", "card-buttons", children=[self.starter_button, self.hint_button]),
                self.hint_list,
                self.grade_line,
                self.checks,
            ],
        )

    def build_results(self):
        self.summary = h("p", "run-summary", "", data_testid="run-summary")
        self.verify = VerifyBadge()
        self.difference = h("p", "difference", "", data_testid="difference")
        self.counters = CounterBoard(COUNTER_NAMES)
        self.metrics = h("p", "hint", "", data_testid="metrics")
        self.diagnostics = h("ul", "diagnostics", data_testid="diagnostics")
        on(self.diagnostics, "click", self.diagnostic_clicked)
        self.no_diagnostics = h("p", "hint", "No diagnostics: no race, out-of-bounds access or divergence was seen.")
        self.player = Player(self.show_phase, self.next_block_phase)
        self.phase_focus = h("p", "focus", "", data_testid="phase-focus")
        self.phase_counters = h("p", "hint", "", data_testid="phase-counters")
        self.listing = CodePanel("Your kernel as it ran, the lines of this interval highlighted")
        on(self.listing.element, "click", self.listing_clicked)
        self.thread_select = h("select", "", id="play-thread", data_testid="thread")
        on(self.thread_select, "change", lambda event: self.follow(int(self.thread_select.value)))
        self.grid_a = MatrixGrid("A", "Matrix A")
        self.grid_b = MatrixGrid("B", "Matrix B")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c)
        self.grid_expected = MatrixGrid("expected", "NumPy's answer")
        self.shared_box = h("div", "shared-grids")
        self.shared_grids: dict[str, MatrixGrid] = {}
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element, self.grid_b.element]),
                ("shared", "Shared memory of this block", [self.shared_box]),
                (
                    "result",
                    "C as the threads stored it",
                    [
                        self.grid_c.element,
                        h(
                            "p",
                            "hint",
                            "Cells that differ from NumPy's answer are marked ✗. Click one to follow its thread.",
                        ),
                        self.grid_expected.element,
                    ],
                ),
            ]
        )
        self.thread_title = h("h3", "", "One thread")
        self.thread_body = h("tbody", "")
        thread_head = h(
            "tr", "", children=[h("th", "", text, scope="col") for text in ("#", "Line", "Statement", "Accesses")]
        )
        self.thread_table = h(
            "table",
            "monitor thread-steps",
            data_testid="thread-steps",
            tabindex="0",
            children=[h("thead", "", children=[thread_head]), self.thread_body],
        )
        self.thread_more = h("p", "hint", "")
        self.warp_body = h("tbody", "")
        warp_head = h(
            "tr",
            "",
            children=[
                h("th", "", text, scope="col")
                for text in ("Line", "Instruction", "Warp", "Active lanes", "Memory transactions", "Detail")
            ],
        )
        self.warp_table = h(
            "table",
            "monitor warp-instructions",
            data_testid="warp-instructions",
            tabindex="0",
            children=[
                h("caption", "", "Warp instructions of this interval"),
                h("thead", "", children=[warp_head]),
                self.warp_body,
            ],
        )
        self.warp_more = h("p", "hint", "")
        self.stepping = h(
            "section",
            "stepping",
            aria_label="Step through the run",
            children=[
                h("h3", "", "Barrier interval by barrier interval"),
                self.player.element,
                self.phase_focus,
                self.phase_counters,
                h(
                    "label",
                    "field follow",
                    children=[h("span", "", "Follow thread (tx, ty)"), self.thread_select],
                ),
                h(
                    "div",
                    "code-and-memory",
                    children=[h("section", "code-panel", children=[self.listing.element]), memory],
                ),
                h(
                    "div",
                    "details play-details",
                    children=[
                        h("section", "", children=[self.thread_title, self.thread_table, self.thread_more]),
                    ],
                ),
                self.warp_table,
                self.warp_more,
            ],
        )
        return h(
            "section",
            "results",
            data_testid="results",
            aria_label="Results",
            hidden="",
            children=[
                h("h2", "", "Results"),
                self.summary,
                self.verify.element,
                self.difference,
                self.counters.board,
                self.counters.note,
                self.metrics,
                h("h3", "", "Diagnostics"),
                self.no_diagnostics,
                self.diagnostics,
                self.stepping,
            ],
        )

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
        starter = self.starter()
        self.link_note.setAttribute("hidden", "")
        if codeurl.KEY in raw:
            try:
                code = codeurl.decode(raw[codeurl.KEY])
            except codeurl.CodeLinkError as error:
                problems.append(f"{error}. The editor holds the starter code instead.")
                self.editor.set_text(starter)
                self.forget_results()
            else:
                if code != self.editor.text():
                    self.editor.set_text(code)
                    self.forget_results()
                    self.link_note.textContent = (
                        "The link's code is in the editor. Nothing has run: press Run to run it."
                    )
                    self.link_note.removeAttribute("hidden")
        elif first or "puzzle" in raw:
            self.editor.set_text(starter)
        if problems:
            self.error.textContent = " ".join(problems)
            self.error.removeAttribute("hidden")
        else:
            self.error.setAttribute("hidden", "")
        self.write_address()

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
        self.hints_shown = 0
        self.hint_list.textContent = ""
        self.checks_body.textContent = ""
        self.checks.setAttribute("hidden", "")
        self.grade_line.textContent = "Not checked yet: press Run."
        self.grade_line.setAttribute("data-value", "none")
        self.grade_line.className = "grade"
        puzzle = self.puzzle
        self.layout.classList.toggle("with-card", puzzle is not None)
        if puzzle is None:
            self.card.setAttribute("hidden", "")
            return
        self.card.removeAttribute("hidden")
        self.card_title.textContent = puzzle.title
        self.card_goal.textContent = puzzle.goal
        self.budget_list.textContent = ""
        sizes = ", ".join(size_text(s) for s in puzzle.sizes)
        self.budget_list.appendChild(
            h("li", "", f"C equals NumPy's {puzzle.expected_label}, with no diagnostics, at M×N×K = {sizes}")
        )
        if puzzle.edge_sizes:
            edges = ", ".join(size_text(s) for s in puzzle.edge_sizes)
            self.budget_list.appendChild(h("li", "", f"also correct, with no diagnostics, at {edges}"))
        for budget in puzzle.budgets:
            self.budget_list.appendChild(h("li", "", budget.label))
        self.card_notes.textContent = " ".join(puzzle.notes)
        self.card_key.textContent = f"Grade it on the command line with --puzzle {puzzle.key}."
        self.hint_button.disabled = not puzzle.hints
        self.hint_button.textContent = f"Show a hint (0 of {len(puzzle.hints)})"

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

    def reveal_hint(self) -> None:
        puzzle = self.puzzle
        if puzzle is None or self.hints_shown >= len(puzzle.hints):
            return
        self.hint_list.appendChild(h("li", "", puzzle.hints[self.hints_shown]))
        self.hints_shown += 1
        self.hint_button.textContent = f"Show a hint ({self.hints_shown} of {len(puzzle.hints)})"
        self.hint_button.disabled = self.hints_shown >= len(puzzle.hints)

    # --- editing --------------------------------------------------------------------------------------
    def edited(self) -> None:
        self.schedule_address()

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
            self.results.setAttribute("data-draw-ms", f"{window.performance.now() - started - elapsed:.0f}")
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
            self.grade_line.textContent = f"Checking {puzzle.title} at every size…"
            self.grade_line.setAttribute("data-value", "pending")
            self.grade_line.className = "grade"
            window.setTimeout(self.grade_proxy, PAINT_DELAY_MS)

    def show_failure(self, kind: str, line: int, message: str, elapsed: float) -> None:
        """The file could not run: one diagnostic, and no results to step through."""
        self.result = None
        self.status.textContent = f"The kernel could not run ({elapsed / 1000:.2f} s)."
        self.status.setAttribute("data-state", "failed")
        self.results.removeAttribute("hidden")
        self.results.setAttribute("data-state", "failed")
        self.results.setAttribute("data-run-ms", f"{elapsed:.0f}")
        self.summary.textContent = "Nothing ran: fix the problem below and press Run again."
        self.verify.element.setAttribute("hidden", "")
        self.difference.textContent = ""
        self.counters.show(Counters())
        self.metrics.textContent = ""
        self.show_diagnostics([(kind, line, None, None, message, 1)])
        self.stepping.setAttribute("hidden", "")

    def forget_results(self) -> None:
        """New code from a link: what is on screen belongs to other code."""
        self.result = None
        self.results.setAttribute("hidden", "")
        self.results.setAttribute("data-state", "none")
        self.status.textContent = "Nothing has run yet: press Run."
        self.status.setAttribute("data-state", "idle")

    # --- results -------------------------------------------------------------------------------------
    def show_result(self, result, source: str, elapsed: float) -> None:
        launch = result.launch
        phases = result.phases
        self.status.textContent = f"Ran in {elapsed / 1000:.2f} s."
        self.status.setAttribute("data-state", "done")
        self.results.removeAttribute("hidden")
        self.results.setAttribute("data-state", "done")
        self.results.setAttribute("data-run-ms", f"{elapsed:.0f}")
        self.summary.textContent = (
            f"M×N×K = {size_text((result.M, result.N, result.K))}: a grid of {xy_text(launch.grid)} blocks of "
            f"{xy_text(launch.block)} threads; {thousands(len(phases))} barrier interval(s); "
            f"{thousands(result.steps)} steps (statements and accesses) in {elapsed / 1000:.2f} s"
            + ("" if result.completed else "; the run stopped early (see the diagnostics)")
            + "."
        )
        self.verify.element.removeAttribute("hidden")
        self.verify.show(result.mismatches, result.C.size, self.puzzle.expected_label if self.puzzle else "A @ B")
        self.show_difference(result)
        self.counters.show(result.counters)
        m = result.metrics
        self.metrics.textContent = (
            f"{thousands(m.global_load_requests)} global load instruction(s), at most {m.max_sectors_per_load} "
            f"sector(s) per warp load; {thousands(m.global_store_requests)} global store instruction(s), at most "
            f"{m.max_sectors_per_store} sector(s) per warp store; {thousands(m.shared_requests)} shared-memory "
            f"instruction(s), worst bank conflict {m.max_bank_degree}-way."
        )
        self.show_diagnostics([(d.kind, d.line, d.thread, d.block, d.message, d.count) for d in result.diagnostics])
        self.listing.load(source.split("\n"))
        self.source_lines = source.split("\n")
        self.thread_select.textContent = ""
        for t in range(launch.threads):
            self.thread_select.appendChild(h("option", "", xy_text(thread_xy(launch, t)), value=str(t)))
        self.thread = 0
        self.thread_select.value = "0"
        self.load_grids(result)
        if phases:
            self.stepping.removeAttribute("hidden")
            self.player.load(len(phases), 0)
        else:
            self.stepping.setAttribute("hidden", "")

    def show_difference(self, result) -> None:
        if result.c_matches:
            self.difference.textContent = (
                f"Largest difference from NumPy: 0 (all {thousands(result.C.size)} values are equal)."
            )
            return
        first = result.first_mismatch()
        row, col = first
        error = "∞ (NaN: never stored, or 0/0)" if result.max_error == float("inf") else fmt(result.max_error)
        self.difference.textContent = (
            f"{thousands(result.mismatches)} value(s) differ; the largest difference is {error}. First: "
            f"C[{row}, {col}] = {fmt(float(result.C[row, col])) or 'NaN'} where NumPy has "
            f"{fmt(float(result.expected[row, col]))}."
        )

    def show_diagnostics(self, found: list[tuple]) -> None:
        self.diagnostics.textContent = ""
        if found:
            self.no_diagnostics.setAttribute("hidden", "")
        else:
            self.no_diagnostics.removeAttribute("hidden")
        for kind, line, thread, block, message, count in found:
            where = f"line {line}" if line else "the file"
            who = f" · thread {xy_text(thread)} of block {xy_text(block)}" if thread is not None else ""
            times = f" · {thousands(count)}×" if count > 1 else ""
            button = h(
                "button",
                f"diagnostic kind-{kind}",
                type="button",
                data_testid="diagnostic",
                data_kind=kind,
                data_line=str(line),
                title="Jump to this line in the editor" if line else "",
                children=[
                    h("strong", "", f"{KIND_LABELS.get(kind, kind)} · {where}{who}{times}"),
                    h("span", "", message),
                ],
            )
            self.diagnostics.appendChild(h("li", "", children=[button]))

    def diagnostic_clicked(self, event) -> None:
        button = event.target.closest("[data-line]")
        if button and int(button.getAttribute("data-line")) > 0:
            self.editor.goto_line(int(button.getAttribute("data-line")))

    def load_grids(self, result) -> None:
        M, N, K = result.M, result.N, result.K
        self.grid_a.resize(M, K, f"A ({M} × {K})")
        self.grid_b.resize(K, N, f"B ({K} × {N})")
        self.grid_c.resize(M, N, f"C ({M} × {N}) as the threads stored it")
        rows, cols = result.expected.shape
        self.grid_expected.resize(rows, cols, f"NumPy's {self.puzzle.expected_label if self.puzzle else 'A @ B'}")
        self.grid_a.show(result.A, {})
        self.grid_b.show(result.B, {})
        self.grid_expected.show(result.expected, {})
        self.shared_box.textContent = ""
        self.shared_grids = {}
        for allocation in result.program.allocations:
            if allocation.space != "shared":
                continue
            shape = allocation.shape if len(allocation.shape) == 2 else (1, allocation.shape[0])
            grid = MatrixGrid(allocation.name, allocation.name)
            grid.resize(shape[0], shape[1], f"{allocation.name} [{shape_text(allocation.shape)}]")
            self.shared_grids[allocation.name] = grid
            self.shared_box.appendChild(grid.element)
        if not self.shared_grids:
            self.shared_box.appendChild(h("p", "hint", "This kernel declares no shared arrays."))
        # The cells where C differs from NumPy's answer (pysim's comparison, drawn as a mark).
        self.wrong = [(int(r), int(c)) for r, c in np.argwhere(~(result.C == result.expected))]

    # --- stepping ----------------------------------------------------------------------------------------
    def next_block_phase(self, index: int) -> int:
        phases = self.result.phases
        block = phases[index].block
        for later in range(index + 1, len(phases)):
            if phases[later].block != block:
                return later
        return len(phases) - 1

    def listing_clicked(self, event) -> None:
        line = event.target.closest(".line")
        if line:
            self.editor.goto_line(int(line.getAttribute("data-line")))

    def follow(self, thread: int) -> None:
        self.thread = thread
        self.show_phase(self.player.index)

    def clicked_c(self, row: int, col: int) -> None:
        """Follow the thread that stored C[row, col] (found in the recorded stores)."""
        result = self.result
        if result is None:
            return
        name = result.program.params[2]
        for phase in result.phases:
            for access in phase.step.accesses:
                if access.array != name or access.op != "store":
                    continue
                hits = np.argwhere((access.rows == row) & (access.cols == col))
                if len(hits):
                    self.thread = int(hits[0][1])
                    self.thread_select.value = str(self.thread)
                    self.player.go(phase.index)
                    return

    def memory_until(self, index: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Shared arrays of the current block and C, as the recorded stores left them after interval `index`."""
        result = self.result
        phases = result.phases
        block = phases[index].block
        shared = {
            name: np.full((grid.shape[0], grid.shape[1]), np.nan, dtype=np.float32)
            for name, grid in self.shared_grids.items()
        }
        c = np.full(result.C.shape, np.nan, dtype=np.float32)
        c_name = result.program.params[2]
        for phase in phases[: index + 1]:
            for access in phase.step.accesses:
                if access.op != "store":
                    continue
                if access.space == "shared" and phase.block == block and access.array in shared:
                    access.write_into(shared[access.array])
                elif access.space == "global" and access.array == c_name:
                    access.write_into(c)
        return shared, c

    def show_phase(self, index: int) -> None:
        result = self.result
        if result is None or not result.phases:
            return
        phase = result.phases[index]
        self.phase_counters.textContent = "This interval: " + (
            ", ".join(
                f"{thousands(getattr(phase.delta, name))} {COUNTER_LABELS[name]}"
                for name in COUNTER_NAMES
                if getattr(phase.delta, name)
            )
            or "no memory access counted"
        )
        lines = phase.lines()
        self.listing.highlight(tuple(sorted(line for line in lines if 0 < line <= len(self.listing.lines))))
        blocks = f"block {xy_text(phase.block)}, interval {phase.number + 1}"
        if phase.barrier_lines:
            end = f"the threads wait at cuda.syncthreads() on line {', '.join(str(n) for n in phase.barrier_lines)}"
        else:
            end = "the threads finished"
        self.phase_focus.textContent = (
            f"Interval {index + 1} of {len(result.phases)}: {blocks}. {len(phase.threads)} thread(s) ran line(s) "
            f"{', '.join(str(n) for n in sorted(lines)) or '–'}; then {end}."
        )
        marks = self.marks(phase)
        shared, c = self.memory_until(index)
        self.grid_a.show(None, marks.get("A", {}))
        self.grid_b.show(None, marks.get("B", {}))
        c_marks = dict(marks.get("C", {}))
        add_marks(c_marks, self.wrong, "c-wrong")
        self.grid_c.show(c, c_marks)
        for name, grid in self.shared_grids.items():
            grid.show(shared[name], marks.get(name, {}))
        self.show_thread(phase)
        self.show_warps(phase)

    def marks(self, phase) -> dict[str, dict]:
        """Cell marks per array: what this interval's accesses touched, and the followed thread's cells."""
        params = self.result.program.params
        rename = {params[0]: "A", params[1]: "B", params[2]: "C"}
        targets: dict[str, dict] = {}
        for access in phase.step.accesses:
            name = rename.get(access.array, access.array)
            cells = targets.setdefault(name, {})
            add_marks(cells, access.cells(), ACCESS_MARKS[(access.space, access.op)])
            if self.thread < access.rows.shape[1]:
                add_marks(cells, access.cells(self.thread), "followed")
        return targets

    def show_thread(self, phase) -> None:
        launch = self.result.launch
        xy = thread_xy(launch, self.thread)
        steps = phase.thread_steps(self.thread)
        self.thread_title.textContent = (
            f"Thread {xy_text(xy)} of block {xy_text(phase.block)} in this interval: {len(steps)} statement(s)"
        )
        self.thread_body.textContent = ""
        for number, step in enumerate(steps[:MAX_THREAD_ROWS], start=1):
            text = self.source_lines[step.line - 1].strip() if 0 < step.line <= len(self.source_lines) else ""
            accesses = h("td", "accesses")
            for record in step.accesses:
                accesses.appendChild(h("span", f"access {record.space}-{record.op}", access_text(record)))
            self.thread_body.appendChild(
                h(
                    "tr",
                    "",
                    children=[
                        h("td", "num", str(number)),
                        h("td", "num", str(step.line)),
                        h("td", "", children=[h("code", "", text)]),
                        accesses,
                    ],
                )
            )
        hidden = len(steps) - MAX_THREAD_ROWS
        self.thread_more.textContent = f"… and {thousands(hidden)} more statement(s)." if hidden > 0 else ""

    def show_warps(self, phase) -> None:
        """One row per warp instruction: its sectors (global) or bank conflict (shared), from pysim."""
        program = self.result.program
        self.warp_body.textContent = ""
        shown = total = 0
        for access in phase.step.accesses:
            lines = sorted({s.line for s in program.sites if s.array == access.array and s.op == access.op})
            words = access.words
            lanes = by_warp(words)  # (occurrences, warps, lanes)
            active = (lanes != INACTIVE).sum(axis=-1)
            if access.space == "global":
                counts = sectors.warp_sectors(words)
            else:
                counts = banks.degrees(words)
            for occurrence in range(lanes.shape[0]):
                for warp in range(lanes.shape[1]):
                    if not active[occurrence, warp]:
                        continue
                    total += 1
                    if shown >= MAX_WARP_ROWS:
                        continue
                    shown += 1
                    self.warp_body.appendChild(
                        self.warp_row(
                            access,
                            lines,
                            occurrence,
                            warp,
                            lanes[occurrence, warp],
                            int(active[occurrence, warp]),
                            int(counts[occurrence, warp]),
                        )
                    )
        if total == 0:
            self.warp_body.appendChild(
                h("tr", "", children=[h("td", "", "No global or shared access in this interval.", colspan="6")])
            )
        hidden = total - shown
        self.warp_more.textContent = f"… and {thousands(hidden)} more warp instruction(s)." if hidden > 0 else ""

    def warp_row(self, access, lines, occurrence: int, warp: int, words, active: int, count: int):
        where = ", ".join(str(n) for n in lines)
        what = f"{access.op} {access.space} {access.array} (#{occurrence + 1})"
        if access.space == "global":
            verdict = f"{count} sector(s) of 32 bytes"
            detail = "coalesced" if count <= 4 else "scattered: more sectors than a warp's 32 floats need"
            cls = "ok" if count <= 4 else "bad"
        else:
            report = banks.analyse(words)
            verdict = "no conflict" if report.degree <= 1 else f"{report.degree}-way bank conflict"
            busiest = max(range(len(report.words_per_bank)), key=lambda b: len(report.words_per_bank[b]))
            detail = (
                f"{report.banks_used} bank(s) used; bank {busiest} serves {len(report.words_per_bank[busiest])} "
                f"different word(s)"
                + (f"; {report.broadcast_words} word(s) broadcast" if report.broadcast_words else "")
            )
            cls = "ok" if report.degree <= 1 else "bad"
        return h(
            "tr",
            f"warp-row {cls}",
            children=[
                h("td", "num", where),
                h("td", "", what),
                h("td", "num", str(warp)),
                h("td", "num", str(active)),
                h("td", f"verdict {cls}", verdict),
                h("td", "", detail),
            ],
        )

    # --- grading -----------------------------------------------------------------------------------------
    def grade_now(self) -> None:
        puzzle = self.puzzle
        if puzzle is None:
            return
        try:
            grade = puzzle.grade(self.source_run)
        except Exception as error:  # noqa: BLE001 - the checker must not take the page down
            self.grade_line.textContent = f"The checker failed ({type(error).__name__}: {error})."
            self.grade_line.setAttribute("data-value", "fail")
            self.grade_line.className = "grade bad"
            return
        self.show_grade(grade)
        if grade.passed and quiz_on(self.address_params, document.documentElement.getAttribute("data-quiz")):
            shared_book().record(puzzle_key(puzzle.key), True, "solved")  # a solved puzzle counts in a course

    def show_grade(self, grade) -> None:
        passed = grade.passed
        self.grade_line.setAttribute("data-value", "pass" if passed else "fail")
        self.grade_line.className = "grade ok" if passed else "grade bad"
        if grade.error:
            self.grade_line.textContent = f"✗ Not yet: the file cannot run ({grade.error})."
        else:
            failed = sum(1 for check in grade.checks if not check.passed)
            self.grade_line.textContent = (
                f"✓ Passed: all {len(grade.checks)} checks hold."
                if passed
                else f"✗ Not yet: {failed} of {len(grade.checks)} checks fail."
            )
        self.checks_body.textContent = ""
        for check in grade.checks:
            measured = "–" if check.value is None else thousands(check.value)
            budget = "–" if check.limit is None else f"≤ {thousands(check.limit)}"
            mark = "✓" if check.passed else "✗"
            label = h("td", "", check.label)
            if check.detail:
                label.appendChild(h("span", "hint check-detail", check.detail))
            self.checks_body.appendChild(
                h(
                    "tr",
                    "ok" if check.passed else "bad",
                    data_testid="check",
                    data_passed="true" if check.passed else "false",
                    children=[
                        label,
                        h("td", "num", size_text(check.size)),
                        h("td", "num", measured, data_value="" if check.value is None else str(check.value)),
                        h("td", "num", budget),
                        h("td", "", mark),
                    ],
                )
            )
        self.checks.removeAttribute("hidden")

    # --- keyboard ------------------------------------------------------------------------------------------
    def key(self, event) -> bool:
        """Stepping shortcuts after a run; never while typing in the editor."""
        if self.editor.contains(event.target) or self.result is None or not self.result.phases:
            return False
        return self.player.key(event)
