"""Stepping through a run, barrier interval by barrier interval: the player, the kernel as it ran, the
grids (C as the threads stored it against NumPy's answer), one thread's statements and the warp
instructions of the interval. The run lives in the playground's worker: each interval (its counts,
memory and owners, pysim.play.session's IntervalView) is asked for when it is shown.

Drawing stays in tasks short enough for the page to keep painting (issue 22: no task over 50 ms):
grids above a few cells are canvases, tables and the thread picker are built detached and put in
with one insertion (the page's script loader, PyScript, inspects every element added to the document
one by one), and a run or an interval is drawn in parts with the page free between them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from pyscript import window

from pysim.core.counters import COUNTER_LABELS, Counters
from pysim.play.launch import thread_xy
from pysim.play.protocol import IntervalRequest, PictureRequest, Request, StorerRequest

from ...core.dom import AFTER_FRAME_MS, Listeners, h, set_number_markup, thousands
from ...widgets.cellmarkup import options_markup
from ...widgets.components import ACCESS_MARKS, CodePanel, add_marks, memory_panel
from ...widgets.grids import MatrixGrid
from ...widgets.player import Player
from ...widgets.warp_pictures import WarpPicture
from .runner import ASK_LIMIT_MS, Job, Runner, ignore_failure, span
from .texts import access_text, dtype_label, shape_text, xy_text
from .warprows import grouped_rows

COUNTER_NAMES = tuple(Counters.__dataclass_fields__)
# Larger grids are drawn on a canvas: every element added costs the page PyScript's document-wide observer
# (an XPath query and a selector query each) and then layout; measured with bench/playground.py, a 32×32×32
# run's four element grids took 200 ms of the observer in one task, and 240 ms of layout and paint in the next.
CANVAS_ABOVE_CELLS = 64
# A part of a drawing runs this long, then the page has the thread (so a part is this plus one piece at most:
# a grid's canvas painted, or a table row).
PART_MS = 8


class Parts:
    """Splits a drawing into tasks: `pause` between two pieces of it ends the task once it has run PART_MS,
    and the browser paints and handles input before the next part."""

    def __init__(self) -> None:
        self.began = window.performance.now()

    async def pause(self) -> None:
        if window.performance.now() - self.began >= PART_MS:
            await asyncio.sleep(0)
            self.began = window.performance.now()

    async def next_frame(self) -> None:
        """End the part and let the browser draw a frame before the next one."""
        await asyncio.sleep(AFTER_FRAME_MS / 1000)
        self.began = window.performance.now()


def thread_options(launch) -> str:
    """The thread picker's options as markup: one parse instead of a call per option."""
    return options_markup([(t, xy_text(thread_xy(launch, t))) for t in range(launch.threads)])


class RunStepping:
    """The "Step through the run" section; `load` takes a RunSummary, the player asks for intervals."""

    def __init__(self, goto_line: Callable[[int], None], runner: Runner) -> None:
        self.goto_line = goto_line
        self.runner = runner
        self.result = None
        self.view = None  # the IntervalView on screen (or being drawn)
        self.loaded = None  # the run whose grids are drawn: an interval of it can be drawn
        self.first_since: float | None = None  # while a run's first interval is not drawn: when it was asked for
        self.block = None  # the block shape the thread picker lists
        self.asking = False  # an interval is on its way from the worker
        self.thread = 0
        self.source_lines: list[str] = []
        self.listeners = Listeners()
        self.player = Player(self.show_interval, lambda index: self.result.next_block[index])
        self.interval_focus = h("p", "focus", "", data_testid="interval-focus")
        self.interval_counters = h("p", "hint", "", data_testid="interval-counters")
        self.listing = CodePanel("Your kernel as it ran, the lines of this interval highlighted")
        self.listeners.on(self.listing.element, "click", self.listing_clicked)
        self.thread_select = h("select", "", id="play-thread", data_testid="thread")
        follow = h("label", "field follow", children=[h("span", "", "Follow thread (tx, ty)"), self.thread_select])
        # On the label: the picker is replaced whenever the block's shape changes.
        self.listeners.on(follow, "change", lambda event: self.follow(int(self.thread_select.value)))
        self.grid_a = MatrixGrid("A", "Matrix A", canvas_above=CANVAS_ABOVE_CELLS, level="global")
        self.grid_b = MatrixGrid("B", "Matrix B", canvas_above=CANVAS_ABOVE_CELLS, level="global")
        self.grid_c = MatrixGrid(
            "C", "Matrix C", on_click=self.clicked_c, canvas_above=CANVAS_ABOVE_CELLS, level="output"
        )
        self.grid_expected = MatrixGrid("expected", "NumPy's answer", canvas_above=CANVAS_ABOVE_CELLS, level="output")
        self.shared_box = h("div", "shared-grids")
        self.shared_grids: dict[str, MatrixGrid] = {}
        self.dtypes: dict[
            str, str
        ] = {}  # each shared and constant array's dtype, marked beside its values (texts.dtype_label)
        self.wrong: list[tuple[int, int]] = []

        # When the section appears, its listing and grids show a frame after the player, and its tables a frame
        # after the grids: in one frame, the section's 275 elements took 29 ms of CPU (bench/playground.py).
        self.later = [
            h(
                "div",
                "code-and-memory",
                children=[h("section", "code-panel", children=[self.listing.element]), self.build_memory()],
            ),
            h("div", "details play-details", children=[h("section", "", children=self.build_thread_table())]),
            h("div", "", children=self.build_warp_table()),
        ]
        self.element = h(
            "section",
            "stepping",
            aria_label="Step through the run",
            hidden="",  # until `load` draws a run
            children=[
                h("h3", "", "Barrier interval by barrier interval"),
                self.player.element,
                self.interval_focus,
                self.interval_counters,
                follow,
                *self.later,
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
        self.listeners.on(table, "click", self.warp_clicked)  # on the table: each interval replaces the body
        self.warp_more = h("p", "hint", "")
        self.picture = WarpPicture("warp-picture", "")  # the pictures of #/naive and #/transpose
        # The picture is drawn in a row right under the instruction clicked, not below a table of 160 rows.
        cell = h("td", "", colspan="6", children=[self.picture.element])
        self.picture_row = h("tr", "warp-picture-row", children=[cell])
        return [table, self.warp_more]

    # --- a new run -----------------------------------------------------------------------------------
    def begin(self, result) -> None:
        """A run that has intervals: the player at its first interval, following thread 0. The worker is asked
        for that interval at once, so it works on it while `load` draws the grids here; it is drawn once they
        are (with the results on screen before any grid, issue 22)."""
        self.result = result
        self.view = None
        self.thread = 0
        self.asking = False  # an answer about the run before is dropped on arrival (`ask`)
        self.first_since = window.performance.now()
        self.player.load(result.intervals, 0)

    async def load(self, result, source: str, expected_label: str) -> bool:
        """Draw the listing, the thread picker and the grids of `result` (after `begin`), in parts, and its first
        interval if the worker has sent it meanwhile (else it is drawn when it comes); False when another run (or
        none) took its place meanwhile."""
        parts = Parts()  # the listing and the picker count toward the first part
        if self.element.hasAttribute("hidden"):
            for part in self.later:
                part.setAttribute("hidden", "")
            self.element.removeAttribute("hidden")
        appearing = self.later[-1].hasAttribute("hidden")  # (also when a run before this one stopped appearing)
        lines = source.split("\n")
        if lines != self.source_lines:
            self.source_lines = lines
            self.listing.load(lines)
        launch = result.launch
        if launch.block != self.block:
            self.block = launch.block
            picker = h("select", "", id="play-thread", data_testid="thread")
            set_number_markup(picker, thread_options(launch))
            self.thread_select.replaceWith(picker)
            self.thread_select = picker
        self.thread_select.value = str(self.thread)
        if appearing and not await self.reveal(self.later[:1], result, parts):
            return False
        M, N, K = result.M, result.N, result.K
        rows, cols = result.expected.shape
        for grid, shape, caption, values in (
            (self.grid_a, (M, K), f"A ({M} × {K})", result.A),
            (self.grid_b, (K, N), f"B ({K} × {N})", result.B),
            (self.grid_expected, (rows, cols), f"NumPy's {expected_label}", result.expected),
            (self.grid_c, (M, N), f"C ({M} × {N}) as the threads stored it", None),
        ):
            await parts.pause()
            if self.result is not result:
                return False
            grid.resize(*shape, caption, values=values)
        await parts.pause()
        if self.result is not result:
            return False
        self.load_shared_grids(result.shared)
        self.dtypes.update(result.constants)  # a constant array's values are marked with its dtype too
        if appearing and not await self.reveal(self.later[1:], result, parts):
            return False
        self.loaded = result
        if self.view is not None:  # the first interval came while the grids were drawn
            await self.draw(self.view, self.thread)
        return True

    async def reveal(self, shown: list, result, parts: Parts) -> bool:
        """After a frame, `shown` appear; False when another run (or none) took `result`'s place meanwhile."""
        await parts.next_frame()
        if self.result is not result:
            return False
        for part in shown:
            part.removeAttribute("hidden")
        return True

    def load_shared_grids(self, allocations) -> None:
        """One grid per shared array: a grid of the same name is reused, the others are closed (their
        listeners and proxies go with them), so Run after Run holds no more than one run needs."""
        old, self.shared_grids, self.dtypes = self.shared_grids, {}, {}
        self.shared_box.textContent = ""
        for allocation in allocations:
            grid = old.pop(allocation.name, None) or MatrixGrid(
                allocation.name, allocation.name, canvas_above=CANVAS_ABOVE_CELLS, level="shared"
            )
            rows, cols = allocation.grid_shape
            grid.resize(
                rows, cols, f"{allocation.name} [{shape_text(allocation.shape)}]{dtype_label(allocation.dtype)}"
            )
            self.dtypes[allocation.name] = allocation.dtype
            self.shared_grids[allocation.name] = grid
            self.shared_box.appendChild(grid.element)
        for grid in old.values():
            grid.close()
        if not self.shared_grids:
            self.shared_box.appendChild(h("p", "hint", "This kernel declares no shared arrays."))

    # --- asking the worker ---------------------------------------------------------------------------
    def ask(self, request: Request, answered: Callable[[dict], None], timed: bool = False) -> None:
        """One question about the run on screen; unanswered when that run is no longer in the worker."""
        result = self.result

        def reply(answer: dict) -> None:
            if self.result is result and "missing" not in answer:
                answered(answer)

        self.runner.request(Job(request, ASK_LIMIT_MS, reply, ignore_failure, timed=timed))

    def show_interval(self, index: int) -> None:
        """The player moved: ask for the interval (one at a time; the latest wanted wins)."""
        if self.result is None or self.asking:
            return
        self.asking = True
        self.ask(IntervalRequest(index, self.thread), self.arrived, self.first_since is not None)

    def arrived(self, answer: dict) -> None:
        self.asking = False
        view = answer["view"]
        if (view.index, view.thread) != (self.player.index, thread_xy(self.result.launch, self.thread)):
            self.show_interval(self.player.index)  # the student moved on meanwhile
            return
        self.view = view
        if self.loaded is self.result:
            asyncio.ensure_future(self.draw(view, self.thread))

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
        if self.result is not None:
            self.ask(StorerRequest(row, col), self.storer_found)

    def storer_found(self, answer: dict) -> None:
        if answer["storer"] is None:
            return
        index, self.thread = answer["storer"]
        self.thread_select.value = str(self.thread)
        self.player.go(index)

    # --- one interval -----------------------------------------------------------------------------------
    async def draw(self, view, thread: int) -> None:
        """Draw `view` in parts; a part finds another view wanted meanwhile and stops."""
        self.interval_counters.textContent = "This interval: " + (
            ", ".join(
                f"{thousands(getattr(view.delta, name))} {COUNTER_LABELS[name]}"
                for name in COUNTER_NAMES
                if getattr(view.delta, name)
            )
            or "no memory access counted"
        )
        lines = view.lines
        self.listing.highlight(tuple(line for line in lines if 0 < line <= len(self.listing.lines)))
        blocks = f"block {xy_text(view.block)}, interval {view.number + 1}"
        if view.barrier_lines:
            end = f"the threads wait at cuda.syncthreads() on line {', '.join(str(n) for n in view.barrier_lines)}"
        else:
            end = "the threads finished"
        self.interval_focus.textContent = (
            f"Interval {view.index + 1} of {self.result.intervals}: {blocks}. {view.thread_count} thread(s) ran "
            f"line(s) {', '.join(str(n) for n in lines) or '–'}; then {end}."
        )
        parts = Parts()
        for number, step in enumerate((self.show_memory, self.show_thread, self.show_warps)):
            if number:
                await parts.next_frame()  # each laid out in a frame of its own (two in one took 15 ms of layout)
            if self.view is not view or not await step(view, parts):
                return
        self.element.setAttribute("data-shown", f"{view.index}:{thread}")  # what is drawn: interval, thread
        if self.first_since is not None:
            span("interval", "first of the run drawn", self.first_since)
            self.first_since = None

    async def show_memory(self, view, parts: Parts) -> bool:
        """The grids, in parts; False when another view is wanted before they are all drawn."""
        marks = self.marks(view)
        c_marks = dict(marks.get("C", {}))
        add_marks(c_marks, self.result.wrong, "c-wrong")
        shown = [(self.grid_a, None, marks.get("A", {})), (self.grid_b, None, marks.get("B", {}))]
        shown.append((self.grid_c, view.c, c_marks))
        shown.extend((grid, view.shared[name], marks.get(name, {})) for name, grid in self.shared_grids.items())
        for grid, values, cells in shown:
            grid.show(values, cells)
            await parts.pause()
            if self.view is not view:
                return False
        return True

    def marks(self, view) -> dict[str, dict]:
        """Cell marks per grid: what this interval's accesses touched, and the followed thread's cells."""
        targets: dict[str, dict] = {}
        for access in view.marks:
            cells = targets.setdefault(access.grid, {})
            add_marks(cells, access.cells, ACCESS_MARKS[(access.space, access.op)])
            add_marks(cells, access.followed, "followed")
        return targets

    async def new_body(self, view, rows: Iterable, parts: Parts) -> object | None:
        """A detached <tbody> of `rows` (elements made lazily, in parts); None when another view is wanted
        before it is done."""
        body = h("tbody", "")
        for row in rows:
            body.appendChild(row)
            await parts.pause()
            if self.view is not view:
                return None
        return body

    async def show_thread(self, view, parts: Parts) -> bool:
        steps = enumerate(view.thread_steps, 1)
        body = await self.new_body(view, (self.thread_row(number, step) for number, step in steps), parts)
        if body is None:
            return False
        self.thread_body.replaceWith(body)  # one insertion: the page looks at one element, not every row
        self.thread_body = body
        self.thread_title.textContent = (
            f"Thread {xy_text(view.thread)} of block {xy_text(view.block)} in this interval: "
            f"{view.thread_step_count} statement(s)"
        )
        hidden = view.thread_step_count - len(view.thread_steps)
        self.thread_more.textContent = f"… and {thousands(hidden)} more statement(s)." if hidden > 0 else ""
        return True

    def thread_row(self, number: int, step):
        text = self.source_lines[step.line - 1].strip() if 0 < step.line <= len(self.source_lines) else ""
        accesses = h("td", "accesses")
        for record in step.accesses:
            shown = access_text(record, self.dtypes.get(record.array, "float32"))
            accesses.appendChild(h("span", f"access {record.space}-{record.op}", shown))
        return h(
            "tr",
            "",
            children=[
                h("td", "num", str(number)),
                h("td", "num", str(step.line)),
                h("td", "", children=[h("code", "", text)]),
                accesses,
            ],
        )

    async def show_warps(self, view, parts: Parts) -> bool:
        """One row per warp instruction (its sectors or its bank conflict, from pysim), the first drawn."""
        rows: Iterable = grouped_rows(view.warp_rows)
        if not view.warp_rows:
            rows = [h("tr", "", children=[h("td", "", "No global or shared access in this interval.", colspan="6")])]
        body = await self.new_body(view, rows, parts)
        if body is None:
            return False
        self.warp_body.replaceWith(body)
        self.warp_body = body
        hidden = view.warp_count - len(view.warp_rows)
        self.warp_more.textContent = f"… and {thousands(hidden)} more warp instruction(s)." if hidden > 0 else ""
        self.select_row(0)
        self.show_picture(0, view.picture)
        return True

    def select_row(self, number: int) -> None:
        """Highlight listed warp instruction `number` and open the picture's row under it."""
        for row in (
            self.warp_body.querySelector(".warp-row.selected"),
            self.warp_body.querySelector(f'[data-row="{number}"]'),
        ):
            if row is not None:
                row.classList.toggle("selected")
        if row is not None:
            row.insertAdjacentElement("afterend", self.picture_row)

    def warp_clicked(self, event) -> None:
        row = event.target.closest("[data-row]")
        view = self.view
        if row and view is not None:
            number = int(row.getAttribute("data-row"))
            self.select_row(number)
            request = PictureRequest(view.index, number)
            self.ask(request, lambda answer: self.view is view and self.show_picture(number, answer["picture"]))

    def show_picture(self, row: int, picture) -> None:
        """Draw listed warp instruction `row` lane by lane, as #/naive and #/transpose draw theirs."""
        view = self.view
        if picture is None or view is None or row >= len(view.warp_rows):
            self.picture.hide()
            return
        instruction = view.warp_rows[row]
        caption = (
            f"Warp {instruction.warp}: {instruction.op} {instruction.space} {instruction.array} "
            f"(#{instruction.occurrence + 1})"
        )
        if instruction.is_global:
            self.picture.show_sectors(caption, picture)
        else:
            self.picture.show_banks(caption, picture)
