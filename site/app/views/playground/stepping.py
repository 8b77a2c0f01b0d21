"""Stepping through a run, barrier interval by barrier interval: the player, the kernel as it ran, the
grids (C as the threads stored it against NumPy's answer), one thread's statements and the warp
instructions of the interval, each drawn from pysim's RunResult (counts, memory, owners all come from it)."""

from __future__ import annotations

from collections.abc import Callable

from pysim.core.counters import COUNTER_LABELS, Counters
from pysim.play.analysis import thread_xy

from ...core.dom import Listeners, h, thousands
from ...widgets.components import ACCESS_MARKS, CodePanel, add_marks, memory_panel
from ...widgets.grids import MatrixGrid
from ...widgets.player import Player
from ...widgets.warp_pictures import WarpPicture
from .texts import access_text, shape_text, xy_text

MAX_THREAD_ROWS = 300  # statements listed for one thread in one interval
MAX_WARP_ROWS = 160  # warp instructions listed for one interval
COUNTER_NAMES = tuple(Counters.__dataclass_fields__)


class RunStepping:
    """The "Step through the run" section; `load` takes a RunResult, the player asks for intervals."""

    def __init__(self, goto_line: Callable[[int], None]) -> None:
        self.goto_line = goto_line
        self.result = None
        self.thread = 0
        self.source_lines: list[str] = []
        self.listeners = Listeners()
        self.player = Player(self.show_interval, lambda index: self.result.next_block_interval(index))
        self.interval_focus = h("p", "focus", "", data_testid="interval-focus")
        self.interval_counters = h("p", "hint", "", data_testid="interval-counters")
        self.listing = CodePanel("Your kernel as it ran, the lines of this interval highlighted")
        self.listeners.on(self.listing.element, "click", self.listing_clicked)
        self.thread_select = h("select", "", id="play-thread", data_testid="thread")
        self.listeners.on(self.thread_select, "change", lambda event: self.follow(int(self.thread_select.value)))
        self.grid_a = MatrixGrid("A", "Matrix A")
        self.grid_b = MatrixGrid("B", "Matrix B")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c)
        self.grid_expected = MatrixGrid("expected", "NumPy's answer")
        self.shared_box = h("div", "shared-grids")
        self.shared_grids: dict[str, MatrixGrid] = {}
        self.wrong: list[tuple[int, int]] = []
        self.instructions: list = []  # the warp instructions listed for this interval
        self.element = h(
            "section",
            "stepping",
            aria_label="Step through the run",
            children=[
                h("h3", "", "Barrier interval by barrier interval"),
                self.player.element,
                self.interval_focus,
                self.interval_counters,
                h("label", "field follow", children=[h("span", "", "Follow thread (tx, ty)"), self.thread_select]),
                h(
                    "div",
                    "code-and-memory",
                    children=[h("section", "code-panel", children=[self.listing.element]), self.build_memory()],
                ),
                h("div", "details play-details", children=[h("section", "", children=self.build_thread_table())]),
                *self.build_warp_table(),
            ],
        )

    def build_memory(self):
        return memory_panel(
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

    def build_thread_table(self) -> list:
        self.thread_title = h("h3", "", "One thread")
        self.thread_body = h("tbody", "")
        head = h("tr", "", children=[h("th", "", text, scope="col") for text in ("#", "Line", "Statement", "Accesses")])
        table = h(
            "table",
            "monitor thread-steps",
            data_testid="thread-steps",
            tabindex="0",
            children=[h("thead", "", children=[head]), self.thread_body],
        )
        self.thread_more = h("p", "hint", "")
        return [self.thread_title, table, self.thread_more]

    def build_warp_table(self) -> list:
        self.warp_body = h("tbody", "")
        self.listeners.on(self.warp_body, "click", self.warp_clicked)
        columns = ("Line", "Instruction", "Warp", "Active lanes", "Memory transactions", "Detail")
        head = h("tr", "", children=[h("th", "", text, scope="col") for text in columns])
        table = h(
            "table",
            "monitor warp-instructions",
            data_testid="warp-instructions",
            tabindex="0",
            children=[
                h("caption", "", "Warp instructions of this interval (click one to see its lanes)"),
                h("thead", "", children=[head]),
                self.warp_body,
            ],
        )
        self.warp_more = h("p", "hint", "")
        self.picture = WarpPicture("warp-picture", "")  # the pictures of #/naive and #/transpose
        return [table, self.warp_more, self.picture.element]

    # --- a new run -----------------------------------------------------------------------------------
    def load(self, result, source: str, expected_label: str) -> None:
        """Show a run that has intervals, from its first interval, following thread 0."""
        self.result = result
        self.source_lines = source.split("\n")
        self.listing.load(self.source_lines)
        launch = result.launch
        self.thread_select.textContent = ""
        for t in range(launch.threads):
            self.thread_select.appendChild(h("option", "", xy_text(thread_xy(launch, t)), value=str(t)))
        self.thread = 0
        self.thread_select.value = "0"
        self.load_grids(result, expected_label)
        self.player.load(len(result.intervals), 0)

    def load_grids(self, result, expected_label: str) -> None:
        M, N, K = result.M, result.N, result.K
        self.grid_a.resize(M, K, f"A ({M} × {K})")
        self.grid_b.resize(K, N, f"B ({K} × {N})")
        self.grid_c.resize(M, N, f"C ({M} × {N}) as the threads stored it")
        rows, cols = result.expected.shape
        self.grid_expected.resize(rows, cols, f"NumPy's {expected_label}")
        self.grid_a.show(result.A, {})
        self.grid_b.show(result.B, {})
        self.grid_expected.show(result.expected, {})
        self.load_shared_grids(result.shared_allocations)
        self.wrong = result.mismatched_cells()  # pysim's comparison, drawn as a mark

    def load_shared_grids(self, allocations) -> None:
        """One grid per shared array: a grid of the same name is reused, the others are closed (their
        listeners and proxies go with them), so Run after Run holds no more than one run needs."""
        old, self.shared_grids = self.shared_grids, {}
        self.shared_box.textContent = ""
        for allocation in allocations:
            grid = old.pop(allocation.name, None) or MatrixGrid(allocation.name, allocation.name)
            rows, cols = allocation.grid_shape
            grid.resize(rows, cols, f"{allocation.name} [{shape_text(allocation.shape)}]")
            self.shared_grids[allocation.name] = grid
            self.shared_box.appendChild(grid.element)
        for grid in old.values():
            grid.close()
        if not self.shared_grids:
            self.shared_box.appendChild(h("p", "hint", "This kernel declares no shared arrays."))

    # --- following --------------------------------------------------------------------------------------
    def listing_clicked(self, event) -> None:
        line = event.target.closest(".line")
        if line:
            self.goto_line(int(line.getAttribute("data-line")))

    def follow(self, thread: int) -> None:
        self.thread = thread
        self.show_interval(self.player.index)

    def clicked_c(self, row: int, col: int) -> None:
        """Follow the thread that stored C[row, col] (pysim finds it in the recorded stores)."""
        found = self.result.storer_of(row, col) if self.result is not None else None
        if found is None:
            return
        index, self.thread = found
        self.thread_select.value = str(self.thread)
        self.player.go(index)

    # --- one interval -----------------------------------------------------------------------------------
    def show_interval(self, index: int) -> None:
        result = self.result
        if result is None or not result.intervals:
            return
        interval = result.intervals[index]
        self.interval_counters.textContent = "This interval: " + (
            ", ".join(
                f"{thousands(getattr(interval.delta, name))} {COUNTER_LABELS[name]}"
                for name in COUNTER_NAMES
                if getattr(interval.delta, name)
            )
            or "no memory access counted"
        )
        lines = interval.lines()
        self.listing.highlight(tuple(sorted(line for line in lines if 0 < line <= len(self.listing.lines))))
        blocks = f"block {xy_text(interval.block)}, interval {interval.number + 1}"
        if interval.barrier_lines:
            end = f"the threads wait at cuda.syncthreads() on line {', '.join(str(n) for n in interval.barrier_lines)}"
        else:
            end = "the threads finished"
        self.interval_focus.textContent = (
            f"Interval {index + 1} of {len(result.intervals)}: {blocks}. {len(interval.threads)} thread(s) ran line(s) "
            f"{', '.join(str(n) for n in sorted(lines)) or '–'}; then {end}."
        )
        self.show_memory(index, interval)
        self.show_thread(interval)
        self.show_warps(index)

    def show_memory(self, index: int, interval) -> None:
        marks = self.marks(interval)
        shared, c = self.result.memory_after(index)
        self.grid_a.show(None, marks.get("A", {}))
        self.grid_b.show(None, marks.get("B", {}))
        c_marks = dict(marks.get("C", {}))
        add_marks(c_marks, self.wrong, "c-wrong")
        self.grid_c.show(c, c_marks)
        for name, grid in self.shared_grids.items():
            grid.show(shared[name], marks.get(name, {}))

    def marks(self, interval) -> dict[str, dict]:
        """Cell marks per grid: what this interval's accesses touched, and the followed thread's cells."""
        targets: dict[str, dict] = {}
        for access in interval.step.accesses:
            cells = targets.setdefault(self.result.role_of(access.array), {})
            add_marks(cells, access.cells(), ACCESS_MARKS[(access.space, access.op)])
            if self.thread < access.rows.shape[1]:
                add_marks(cells, access.cells(self.thread), "followed")
        return targets

    def show_thread(self, interval) -> None:
        xy = thread_xy(self.result.launch, self.thread)
        steps = interval.thread_steps(self.thread)
        self.thread_title.textContent = (
            f"Thread {xy_text(xy)} of block {xy_text(interval.block)} in this interval: {len(steps)} statement(s)"
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

    def show_warps(self, index: int) -> None:
        """One row per warp instruction (its sectors or its bank conflict, from pysim), the first drawn."""
        self.warp_body.textContent = ""
        self.instructions = []
        total = 0
        for instruction in self.result.warp_instructions(index):
            total += 1
            if len(self.instructions) < MAX_WARP_ROWS:
                self.warp_body.appendChild(self.warp_row(instruction, len(self.instructions)))
                self.instructions.append(instruction)
        if total == 0:
            self.warp_body.appendChild(
                h("tr", "", children=[h("td", "", "No global or shared access in this interval.", colspan="6")])
            )
        hidden = total - len(self.instructions)
        self.warp_more.textContent = f"… and {thousands(hidden)} more warp instruction(s)." if hidden > 0 else ""
        self.show_picture(0)

    def warp_row(self, instruction, row: int):
        access = instruction.access
        what = f"{access.op} {access.space} {access.array} (#{instruction.occurrence + 1})"
        if instruction.is_global:
            verdict = f"{instruction.count} sector(s) of 32 bytes"
            ok = instruction.coalesced
            detail = "coalesced" if ok else "scattered: more sectors than a warp's 32 floats need"
        else:
            wb = instruction.banks()
            ok = instruction.conflict_free
            verdict = "no conflict" if ok else f"{wb.degree}-way bank conflict"
            busiest = wb.busiest_bank
            detail = (
                f"{wb.report.banks_used} bank(s) used; bank {busiest} serves "
                f"{len(wb.report.words_per_bank[busiest])} different word(s)"
                + (f"; {wb.report.broadcast_words} word(s) broadcast" if wb.report.broadcast_words else "")
            )
        cls = "ok" if ok else "bad"
        return h(
            "tr",
            f"warp-row {cls}",
            data_row=str(row),
            children=[
                h("td", "num", ", ".join(str(n) for n in instruction.lines)),
                h("td", "", what),
                h("td", "num", str(instruction.warp)),
                h("td", "num", str(instruction.active)),
                h("td", f"verdict {cls}", verdict),
                h("td", "", detail),
            ],
        )

    def warp_clicked(self, event) -> None:
        row = event.target.closest("[data-row]")
        if row:
            self.show_picture(int(row.getAttribute("data-row")))

    def show_picture(self, row: int) -> None:
        """Draw listed warp instruction `row` lane by lane, as #/naive and #/transpose draw theirs."""
        if row >= len(self.instructions):
            self.picture.hide()
            return
        instruction = self.instructions[row]
        access = instruction.access
        caption = f"Warp {instruction.warp}: {access.op} {access.space} {access.array} (#{instruction.occurrence + 1})"
        if instruction.is_global:
            self.picture.show_sectors(caption, instruction.sectors())
        else:
            self.picture.show_banks(caption, instruction.banks())
