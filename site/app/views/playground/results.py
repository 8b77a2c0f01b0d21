"""What a run produced: the summary, C against NumPy, the counters and metrics, the diagnostics by line,
and (when the run has intervals) the stepping section; drawn from pysim.play.session's RunSummary."""

from __future__ import annotations

from collections.abc import Callable

from pyscript import window

from pysim.core.counters import COUNTER_LABELS, Counters
from pysim.play.endings import ending_words

from ...core.dom import AFTER_FRAME_MS, Listeners, fmt, h, thousands
from ...widgets.components import CounterBoard, VerifyBadge
from .runner import Runner
from .stepping import COUNTER_NAMES, RunStepping
from .texts import KIND_LABELS, seconds_text, size_text, xy_text

# The counters the run summary names beside Run (all of them are in the results below it).
MAIN_COUNTERS = ("global_loads", "global_stores", "global_sectors", "bank_extra_cycles", "fma")


class Results:
    """The results section; `show` draws a RunSummary, `failed` a file that could not run."""

    def __init__(self, goto_line: Callable[[int], None], runner: Runner) -> None:
        self.goto_line = goto_line
        self.listeners = Listeners()
        self.launch_text = h("p", "hint", "", data_testid="run-launch")
        self.stale_note = h("p", "stale-note", "", role="status", data_testid="stale-note", hidden="")
        self.verify = VerifyBadge()
        self.difference = h("p", "difference", "", data_testid="difference")
        # What a run came to, in a box the page puts right under Run (page.py), so it is on the screen where
        # Run was pressed: how it ended, C's check, the main counters. The rest of the results stay below.
        self.ending = h("p", "run-ending", "", data_testid="run-ending")
        self.main_counts = h("p", "main-counts", "", data_testid="main-counts")
        self.summary = h(
            "div",
            "run-summary",
            data_testid="run-summary",
            aria_label="What the last run came to",
            role="region",
            hidden="",
            children=[self.ending, self.verify.element, self.difference, self.main_counts],
        )
        self.counters = CounterBoard(COUNTER_NAMES)
        self.show_next_proxy = self.listeners.proxy(lambda *args: self.show_next())
        self.metrics = h("p", "hint", "", data_testid="metrics")
        self.diagnostics = h("ul", "diagnostics", data_testid="diagnostics")
        self.listeners.on(self.diagnostics, "click", self.diagnostic_clicked)
        self.no_diagnostics = h("p", "hint", "No diagnostics: no race, out-of-bounds access or divergence was seen.")
        self.stepping = RunStepping(goto_line, runner)
        # A section that appears shows its parts a frame apart, each frame short on a two-core machine
        # (bench/playground.py --trace): shown at once, the nine counters (each a <details>) were 12 of the
        # 28 ms of CPU that the first frame took.
        self.later = [
            h("div", "", children=[self.counters.board, self.counters.note]),
            h(
                "div",
                "",
                children=[self.metrics, h("h3", "", "Diagnostics"), self.no_diagnostics, self.diagnostics],
            ),
        ]
        self.waiting: list = []  # the parts of `later` not shown yet
        self.element = h(
            "section",
            "results",
            data_testid="results",
            aria_label="Results",
            hidden="",
            children=[
                h("h2", "", "Results"),
                self.stale_note,
                self.launch_text,
                *self.later,
                self.stepping.element,
            ],
        )

    def mark_stale(self, changed: list[str]) -> None:
        """`changed`: what differs from the run shown ("the code", "the sizes", "the puzzle"); none: current."""
        if not changed:
            self.stale_note.setAttribute("hidden", "")
            self.element.removeAttribute("data-stale")
            return
        what = changed[0] if len(changed) == 1 else ", ".join(changed[:-1]) + " and " + changed[-1]
        self.stale_note.textContent = (
            f"Out of date: {what} changed since this run. Press Run to see the results of what is on screen now."
        )
        self.stale_note.removeAttribute("hidden")
        self.element.setAttribute("data-stale", "true")

    def reveal(self, state: str, elapsed: float) -> None:
        self.mark_stale([])
        self.summary.removeAttribute("hidden")
        if self.element.hasAttribute("hidden") and not self.waiting:
            self.waiting = list(self.later)
            for part in self.waiting:
                part.setAttribute("hidden", "")
            window.setTimeout(self.show_next_proxy, AFTER_FRAME_MS)
        self.element.removeAttribute("hidden")
        self.element.setAttribute("data-state", state)
        self.element.setAttribute("data-run-ms", f"{elapsed:.0f}")

    def show_next(self) -> None:
        self.waiting.pop(0).removeAttribute("hidden")
        if self.waiting:
            window.setTimeout(self.show_next_proxy, AFTER_FRAME_MS)

    def forget(self) -> None:
        """What is on screen belongs to other code."""
        self.element.setAttribute("hidden", "")
        self.summary.setAttribute("hidden", "")
        self.element.setAttribute("data-state", "none")
        self.stepping.result = None

    def failed(self, kind: str, line: int, message: str, elapsed: float) -> None:
        """The file could not run: one diagnostic, and no results to step through."""
        self.reveal("failed", elapsed)
        self.show_ending(
            "refused", ending_words("refused", 0) + ". Fix the problem in the diagnostics and press Run again."
        )
        self.launch_text.textContent = "Nothing ran."
        self.verify.element.setAttribute("hidden", "")
        self.difference.textContent = ""
        self.main_counts.textContent = ""
        self.counters.show(Counters())
        self.metrics.textContent = ""
        self.show_diagnostics([(kind, line, None, None, message, 1)])
        self.stepping.result = None
        self.stepping.element.setAttribute("hidden", "")

    def show(self, result, elapsed: float, expected_label: str) -> None:
        """Draw `result` (pysim.play.session's RunSummary) in one short task, and start the stepping section
        at its first interval; `stepping.load` draws its grids after."""
        launch = result.launch
        intervals = result.intervals
        self.reveal("done", elapsed)
        self.element.setAttribute("data-sim-ms", f"{result.run_ms:.0f}")
        self.show_ending(result.ended, ending_words(result.ended, result.max_steps, result.run_ms / 1000) + ".")
        self.launch_text.textContent = (
            f"M×N×K = {size_text((result.M, result.N, result.K))}: a grid of {xy_text(launch.grid)} blocks of "
            f"{xy_text(launch.block)} threads; {thousands(intervals)} barrier interval(s); "
            f"{thousands(result.steps)} steps (statements and accesses) simulated in "
            f"{seconds_text(result.run_ms / 1000)}"
            + ("" if result.completed else "; the run stopped early (see the diagnostics)")
            + "."
        )
        self.verify.element.removeAttribute("hidden")
        self.verify.show(result.mismatches, result.size, expected_label)
        self.show_difference(result)
        self.counters.show(result.counters)
        self.main_counts.textContent = " · ".join(
            f"{COUNTER_LABELS[name]} {thousands(getattr(result.counters, name))}" for name in MAIN_COUNTERS
        )
        m = result.metrics
        self.metrics.textContent = (
            f"{thousands(m.global_load_requests)} global load instruction(s), at most {m.max_sectors_per_load} "
            f"sector(s) per warp load; {thousands(m.global_store_requests)} global store instruction(s), at most "
            f"{m.max_sectors_per_store} sector(s) per warp store; {thousands(m.shared_requests)} shared-memory "
            f"instruction(s), worst bank conflict {m.max_bank_degree}-way; {thousands(m.memory_lanes)} active lanes "
            f"in {thousands(m.memory_requests)} memory instruction(s) of 32 lanes"
            + (
                f"; {thousands(m.atomic_requests)} atomic instruction(s), serialised into "
                f"{thousands(m.atomic_wavefronts)} pass(es): lanes on one word take turns"
                if m.atomic_requests
                else ""
            )
            + (
                f"; {thousands(m.local_loads + m.local_stores)} local-memory access(es): a local array does not "
                "fit in the registers"
                if m.local_loads + m.local_stores
                else ""
            )
            + (
                f"; {thousands(m.constant_loads)} constant-memory read(s) in {thousands(m.constant_requests)} "
                f"instruction(s), served in {thousands(m.constant_passes)} pass(es): one per distinct address"
                if m.constant_requests
                else ""
            )
            + "."
        )
        self.show_diagnostics([(d.kind, d.line, d.thread, d.block, d.message, d.count) for d in result.diagnostics])
        if intervals:
            self.stepping.begin(result)  # the section appears when `load` draws it, a frame later
        else:
            self.stepping.result = result
            self.stepping.element.setAttribute("hidden", "")

    def show_ending(self, ended: str, text: str) -> None:
        self.ending.textContent = text
        self.ending.setAttribute("data-ended", ended)
        self.summary.setAttribute("data-ended", ended)

    def show_difference(self, result) -> None:
        if result.c_matches:
            self.difference.textContent = (
                f"Largest difference from NumPy: 0 (all {thousands(result.size)} values are equal)."
            )
            return
        row, col = result.first_mismatch
        stored, expected = result.first_values
        error = "∞ (NaN: never stored, or 0/0)" if result.max_error == float("inf") else fmt(result.max_error)
        self.difference.textContent = (
            f"{thousands(result.mismatches)} value(s) differ; the largest difference is {error}. First: "
            f"C[{row}, {col}] = {fmt(stored) or 'NaN'} where NumPy has {fmt(expected)}."
        )

    def show_diagnostics(self, found: list[tuple]) -> None:
        self.diagnostics.textContent = ""
        if found:
            self.no_diagnostics.setAttribute("hidden", "")
        else:
            self.no_diagnostics.removeAttribute("hidden")
        for kind, line, thread, block, message, count in found:
            self.diagnostics.appendChild(
                h("li", "", children=[diagnostic_button(kind, line, thread, block, message, count)])
            )

    def diagnostic_clicked(self, event) -> None:
        button = event.target.closest("[data-line]")
        if button and int(button.getAttribute("data-line")) > 0:
            self.goto_line(int(button.getAttribute("data-line")))


def diagnostic_button(kind: str, line: int, thread, block, message: str, count: int):
    """One diagnostic: what, where, which thread, how often; a click jumps to its line in the editor."""
    where = f"line {line}" if line else "the file"
    who = f" · thread {xy_text(thread)} of block {xy_text(block)}" if thread is not None else ""
    times = f" · {thousands(count)}×" if count > 1 else ""
    return h(
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
