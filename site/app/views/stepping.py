"""What the two stepping views share: parameters from form or URL, the trace,
the followed thread, counts-only mode, the player and the address bar.

A subclass adds its panels (`build_panels`, `load_panels`) and draws a step
(`render`). Data flows one way: parameters -> pysim trace -> render(step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from types import ModuleType

from pyodide.ffi import to_js
from pyscript import window

from pysim.core.trace import Trace
from pysim.hardware.params import ParamError, Params, parse_int
from pysim.lessons.motion import RegisterTile
from pysim.lessons.narration import narration

from ..core.dom import Listeners, fmt, h
from ..core.urlstate import pick
from ..widgets.checkpoint import Checkpoints
from ..widgets.components import ACCESS_MARKS, CodePanel, CounterBoard, VerifyBadge, add_marks
from ..widgets.device_panel import DevicePanel
from ..widgets.form import ParamForm
from ..widgets.guide import GuidePanel
from ..widgets.motion import Flights
from ..widgets.player import Player
from ..widgets.prose import Prose
from ..widgets.registertile import RegisterTileView
from .motionhooks import MotionHooks

Navigate = Callable[[dict[str, str]], None]  # write the view's state into the address
MONITOR_ALL_UP_TO = 32  # larger blocks list only the followed thread's warp (one row per lane)
CHECK_SLICE_MS = 25  # the C check simulates blocks in slices this long, so the page stays responsive


class SteppingView(MotionHooks):
    kernel = None
    OWNED_KEYS = ("guide",)  # written by the view (guide=0 while exploring freely), not kept by the shell
    counter_names: tuple[str, ...] = ()
    operand_mark = "followed-line"  # how the followed thread's operands are marked in shared memory

    def __init__(self, container, navigate: Navigate) -> None:
        self.navigate = navigate
        self.params: Params | None = None
        self.trace: Trace | None = None
        self.thread = 0
        self.counts_only = False
        self.pending_counts: Params | None = None  # sizes too large to animate, offered as counts (the button)
        self.listeners = Listeners()  # the view's own listeners and its C-check timer proxy
        self.form = ParamForm(self.kernel.PARAMS, self.apply, collapsed=True)
        self.thread_select = h("select", "", id=f"{self.kernel.NAME}-thread", data_testid="thread")
        self.listeners.on(self.thread_select, "change", lambda e: self.follow(int(self.thread_select.value)))
        follow = h("label", "field follow", children=[h("span", "", "Follow thread"), self.thread_select])
        self.counters = CounterBoard(self.counter_names)
        self.player = Player(self.show_step, lambda i: self.trace.next_block_step(i))
        # Prediction questions (quiz=1, course packages); one answered or skipped may let the prose back.
        self.checkpoints = Checkpoints(self.kernel, self.player, lambda: self.place_prose())
        self.code = CodePanel("CUDA kernel, executing line highlighted")
        self.verify = VerifyBadge()
        self.focus = h("p", "focus", "", data_testid="focus")
        self.narration = h("p", "narration", "", aria_live="polite", data_testid="narration")
        # Where the step is (block, tile, bkIdx, dotIdx...): bookkeeping, behind "details" (issue 38 item 6).
        self.where = h("p", "", "")
        where = h("details", "narration-details", data_testid="narration-details")
        for part in (h("summary", "", "details"), self.where):
            where.appendChild(part)
        self.counts_button = h(
            "button", "counts-only", "Show counts only", type="button", data_testid="counts-only", hidden=""
        )
        self.listeners.on(self.counts_button, "click", lambda e: self.enter_counts_only())
        self.counts_note = h("p", "counts-note", "", hidden="", data_testid="counts-note")
        self.stage = h("div", "stage")
        self.guide = GuidePanel(self, self.kernel.NAME)  # the guided lesson: asks at its moments, gates the player
        self.device_panel = DevicePanel()
        self.check_proxy = self.listeners.proxy(self.check_c)
        self.check_timer = None
        self.listing_proxy = self.listeners.proxy(self.follow_listing)
        self.listing_frame = None
        container.textContent = ""
        # The dashboard (counters, step controls, where we are) stays in view while the grids scroll.
        dashboard = h(
            "div",
            "dashboard",
            data_testid="dashboard",
            children=[
                self.guide.element,  # first: an open question is what the student reads before the counters
                self.counters.scope,
                self.counters.board,
                self.player.element,
                self.checkpoints.element,
                self.focus,
                self.narration,  # in the sticky bar: what this step did stays beside the button that did it
            ],
        )
        # Picture first (css/picture.css): on a wide screen the step controls and the listing make a
        # column beside the stage, whose pictures start right under the form; on a narrow one the
        # column's parts flow around the stage's, the pictures right after the step controls.
        self.side = h("div", "side", children=[dashboard, self.counters.note, self.counts_note, where])
        toolbar = h("div", "toolbar", children=[self.form.element, follow, self.counts_button, self.guide.on_button])
        for part in (
            h("div", "stepping-layout", children=[toolbar, self.side, self.stage]),
            self.device_panel.element,
        ):
            container.appendChild(part)
        # Values in flight and the drawn register tile, where a view's panels have them (build_panels).
        self.flights: Flights | None = None
        self.flight_grids: dict = {}
        self.register_tile: RegisterTileView | None = None
        self.tile_now: RegisterTile | None = None
        self.motion_frame = None
        self.motion_proxy = self.listeners.proxy(self.draw_motion)
        self.build_panels(self.stage)
        self.prose = Prose(container.closest("section"))  # out of the page while questions are open (place_prose)
        self.explained = self.prose.box  # where the views fill it (None: a route without prose)
        self.stage.appendChild(self.verify.element)
        self.code_panel = self.code.element.parentElement  # the subclass put it beside its memory panel
        self.side.appendChild(self.code_panel)

    # Subclasses fill these in.
    def build_panels(self, stage) -> None:
        raise NotImplementedError

    def load_panels(self) -> None:
        raise NotImplementedError

    def render(self, step) -> None:
        raise NotImplementedError

    def explain(self) -> None:
        """Fill the route's prose (site/partials/) for the sizes on screen; a view without prose has nothing to fill."""

    def place_prose(self) -> None:
        """The prose in the page, or out of it while a question is still to be answered (counts only asks none)."""
        asks = not self.counts_only
        self.prose.place(asks and self.guide.unanswered, asks and self.checkpoints.unanswered)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in fields(self.kernel.PARAMS))

    @property
    def words(self) -> ModuleType:
        """What the page says about this kernel's steps (pysim/lessons/narration)."""
        return narration(self.kernel.NAME)

    def thread_label(self, thread: int) -> str:
        tx, ty = self.kernel.thread_xy(self.params, thread)
        return f"T({tx},{ty})"

    def activate(self, raw: dict[str, str]) -> None:
        """Enter the view from an address: restore exactly the state it describes, drawing its step once.

        The sizes, thread and step are read first (new sizes get their trace, not drawn); then the view
        loads them and draws that step. New sizes are reached from their step 0, so a link past an open
        checkpoint stops at it."""
        self.checkpoints.enable(raw, self.params, self.trace)
        self.guide.enable(raw)
        if self.params is not None and not set(raw) & {*self.param_names, "thread", "step", "mode"}:
            self.write_address()  # a bare link to the view: keep what the reader was doing
            return
        try:
            params = self.kernel.PARAMS.parse(pick(raw, self.param_names))
        except ParamError as error:
            self.reject(error)
            return
        too_large = params.too_large_to_animate()
        if too_large:
            # Their counts when the link asks for them, and on a first visit, where there is no state to
            # keep (the defaults would answer with another problem); else the state stays, counts offered.
            if raw.get("mode") == "counts" or self.params is None:
                self.form.clear_error()
                self.enter_counts_only(params)
            else:
                self.offer_counts(params)
                self.reject(too_large)
            return
        new = params != self.params or self.counts_only
        trace = Trace(self.kernel, params) if new else self.trace
        try:
            thread = self.parse_thread(params, raw.get("thread"), 0 if new else self.thread)
            index = parse_int("step", raw.get("step", "0"), 0, len(trace) - 1)
        except ParamError as error:
            if new:  # the sizes are good: shown from their start, under the error
                self.load(params, 0, 0, trace)
            self.reject(error)
            return
        self.form.clear_error()
        if new:
            self.load(params, thread, index, trace, reached_from=0)
            return
        self.form.show(params)
        if thread != self.thread:
            self.thread = thread
            self.thread_select.value = str(thread)
            self.load_thread()
        self.player.go(index)

    def reject(self, error: ParamError) -> None:
        """Bad address: say why, keep (or, on first visit, start from) a valid state, and show it."""
        self.form.show_error(error)
        if self.params is None:
            self.load(self.kernel.PARAMS(), 0, 0)
        self.write_address()

    def parse_thread(self, params: Params, text: str | None, default: int) -> int:
        """The thread an address names ("tx,ty") in a block of `params`; `default` when it names none."""
        if text is None:
            return default
        tx_text, _, ty_text = text.partition(",")
        rows = self.block_rows(params)
        columns = self.kernel.threads(params) // rows
        tx = parse_int("thread", tx_text, 0, columns - 1)
        ty = parse_int("thread", ty_text or "0", 0, rows - 1)
        return ty * columns + tx

    def block_rows(self, params: Params) -> int:
        """Rows of threads in a block (threads = rows × columns)."""
        last = self.kernel.threads(params) - 1
        return self.kernel.thread_xy(params, last)[1] + 1

    def apply(self, params: Params) -> None:
        """Apply from the form: new sizes start at step 0, following thread 0."""
        self.apply_at(params, 0, 0)

    def apply_at(self, params: Params, thread: int, index: int) -> None:
        """Apply from the form at this thread and step; sizes too large to animate are refused, counts offered."""
        self.form.clear_error()
        too_large = params.too_large_to_animate()
        if too_large:
            self.offer_counts(params)
            self.form.show_error(too_large)
            return
        self.load(params, thread, index)

    def offer_counts(self, params: Params) -> None:
        """Sizes too large to animate: the state shown stays, and the counts button offers their totals."""
        self.pending_counts = params
        self.counts_button.removeAttribute("hidden")

    def load(
        self, params: Params, thread: int, index: int, trace: Trace | None = None, reached_from: int | None = None
    ) -> None:
        """Show `params` (sizes that animate; `trace`: theirs, if already built) at `thread` and step `index`,
        drawn once. `reached_from`: the step the reader comes from, for the checkpoints in between."""
        self.pending_counts = None
        self.counts_button.setAttribute("hidden", "")
        self.counts_only = False
        self.counts_note.setAttribute("hidden", "")
        self.stage.removeAttribute("hidden")
        self.code_panel.removeAttribute("hidden")
        self.player.element.removeAttribute("hidden")
        self.params = params
        self.trace = Trace(self.kernel, params) if trace is None else trace
        self.thread = thread
        self.form.show(params)
        self.thread_select.textContent = ""
        for t in range(self.kernel.threads(params)):
            self.thread_select.appendChild(h("option", "", self.thread_label(t), value=str(t)))
        self.thread_select.value = str(thread)
        self.code.load(self.kernel.source(params))
        self.device_panel.show_run(self.kernel, params)
        self.start_c_check()
        self.load_panels()
        self.load_thread()
        if self.register_tile is not None:
            self.load_register_tile()
        self.guide.load(params, index)
        self.checkpoints.load(params, self.trace, reached_from)
        self.player.load(len(self.trace), index)

    def enter_counts_only(self, params: Params | None = None) -> None:
        """Too large to animate: show the exact totals from pysim's closed forms (of `params`, else of the
        sizes the counts button offers)."""
        params = params or self.pending_counts
        self.pending_counts = None
        self.player.pause()
        self.params = params
        self.counts_only = True
        self.form.show(params)
        self.form.clear_error()
        self.counts_button.setAttribute("hidden", "")
        self.guide.load(None, 0)
        self.counters.show(self.kernel.counters(params))
        self.device_panel.show_run(self.kernel, params)
        self.explain()  # no panels load at these sizes, but the prose speaks of the sizes on screen too
        self.place_prose()  # no guide asks here
        self.stage.setAttribute("hidden", "")
        self.code_panel.setAttribute("hidden", "")
        self.player.element.setAttribute("hidden", "")
        self.focus.textContent = ""
        self.narration.textContent = self.where.textContent = ""
        self.counts_note.textContent = (
            f"Counts only: {params.too_large_to_animate().message.split(';')[0]}. "
            "The counters show the totals of the whole run, from pysim's closed forms."
        )
        self.counts_note.removeAttribute("hidden")
        self.write_address()

    def start_c_check(self) -> None:
        """Check C in the background: run every block's threads, then compare what they stored with NumPy."""
        if self.check_timer is not None:
            window.clearTimeout(self.check_timer)
        self.verify.pending(0, len(self.trace.blocks))
        self.check_timer = window.setTimeout(self.check_proxy, 0)

    def check_c(self) -> None:
        self.check_timer = None
        trace = self.trace
        deadline = window.performance.now() + CHECK_SLICE_MS
        number = trace.next_unsimulated()
        while number is not None and window.performance.now() < deadline:
            trace.simulate(number)
            number = trace.next_unsimulated()
        if number is None:
            self.verify.show(trace.mismatches(), trace.expected.size, self.kernel.expected_label)
        else:
            self.verify.pending(trace.blocks_simulated, len(trace.blocks))
            self.check_timer = window.setTimeout(self.check_proxy, 0)

    def clicked_c(self, row: int, col: int) -> None:
        """Follow the thread that computes C[row][col] (the kernel says which); not while the click answers a guide's
        cells question (the question's thread stays followed, its block on screen)."""
        if self.guide.picking:
            return
        block, thread = self.kernel.owner(self.params, row, col)
        self.follow(thread, block=block)

    def follow_quietly(self, thread: int) -> None:
        """Follow `thread` from the step about to be drawn (a guided question names it)."""
        if thread != self.thread:
            self.thread = thread
            self.thread_select.value = str(thread)
            self.load_thread()

    def follow(self, thread: int, block: tuple[int, int] | None = None) -> None:
        """Follow `thread`; with `block`, also jump to that block's first step if it is not the current one."""
        self.thread = thread
        self.thread_select.value = str(thread)
        self.load_thread()
        if block is not None and block != self.trace[self.player.index].block:
            self.player.go(self.trace.first_step(self.trace.blocks.index(block)))
        else:
            self.show_step(self.player.index)

    def step_marks(self, step, arrays: tuple[str, ...]) -> dict[str, dict]:
        """Cell marks of every grid, all from pysim: the block's regions, every access of the step
        (by kind, plus zero-fills), and the followed thread's cells (what it owns, reads, uses now)."""
        targets: dict[str, dict] = {name: {} for name in arrays}
        self.region_marks(step, targets)
        for access in step.accesses:
            add_marks(targets[access.array], access.cells(), ACCESS_MARKS[(access.space, access.op)])
            add_marks(targets[access.array], access.zero_cells(), "zero-fill")
            if access.space == "global" and access.op == "load":
                add_marks(targets[access.array], access.cells(self.thread), "followed")
        self.focus_marks(step, targets)
        return targets

    def region_marks(self, step, targets: dict[str, dict]) -> None:
        """The block's regions ("in-tile"; a view may hold them in its grids' base classes instead)."""
        for array, cells in self.kernel.regions(self.params, step).items():
            add_marks(targets[array], cells, "in-tile")

    def focus_marks(self, step, targets: dict[str, dict]) -> None:
        """The followed thread's cells, as the kernel maps them: what it owns, reads, and uses now."""
        focus = self.kernel.focus(self.params, step, self.thread)
        add_marks(targets["C"], focus.owned, "followed-line")
        for array, cells in focus.operands.items():
            add_marks(targets[array], cells, self.operand_mark)
        for array, cells in focus.current.items():
            add_marks(targets[array], cells, "followed")
        self.guide.add_marks(targets)

    def render_owner_monitor(self, step, accumulator: str) -> None:
        """Monitor rows of the one-element-per-thread kernels: the thread's element of C, its action and
        its `accumulator` register."""
        p = self.params
        for thread in self.monitor_rows:
            owned = self.kernel.focus(p, step, thread).owned
            target = f"C[{owned[0][0]}][{owned[0][1]}]" if owned else "outside C"
            action = self.words.describe(step, p, thread)
            self.update_monitor_row(thread, [target, action, fmt(step.registers[accumulator][thread])])

    def update_monitor_row(self, thread: int, texts: list[str], start: int = 0) -> None:
        """Note the changed cells of one monitor row, from data cell `start` on (written by
        flush_monitor), and mark the followed thread's row."""
        row, first, shown = self.monitor_rows[thread]
        for i, text in enumerate(texts, start):
            if shown[i] != text:
                self.monitor_writes[first + i] = text
                shown[i] = text
        followed = "followed" if thread == self.thread else ""
        if shown[-1] != followed:  # the row's class, kept here: reading it from the page costs a call
            row.className = followed
            shown[-1] = followed

    def flush_monitor(self) -> None:
        """Write the step's changed monitor cells in one call into the page (site/gridpaint.js): a
        block's registers change at every step, and one call per cell would cost more than the step."""
        if self.monitor_writes:
            cells = list(self.monitor_writes)
            window.tilelabUpdate(self.monitor_cells, to_js(cells), to_js([self.monitor_writes[i] for i in cells]))
            self.monitor_writes = {}

    def monitor_label(self, thread: int) -> str:
        """A monitor row's heading."""
        return self.thread_label(thread)

    def monitor_columns(self) -> tuple[str, ...]:
        """The class of each data cell of a monitor row ("num" aligns numbers)."""
        raise NotImplementedError

    def load_thread(self) -> None:
        """The followed thread changed: rebuild the monitor rows (its warp, for big blocks)."""
        self.monitor_rows = {}  # thread -> (row, its first data cell in monitor_cells, texts shown + class)
        self.monitor_writes: dict[int, str] = {}  # monitor_cells index -> text, until flush_monitor
        self.monitor_body.textContent = ""
        data_cells = []
        for thread in self.monitor_threads():
            cells = [h("td", cls) for cls in self.monitor_columns()]
            row = h("tr", "", children=[h("th", "", self.monitor_label(thread), scope="row"), *cells])
            self.monitor_body.appendChild(row)
            self.monitor_rows[thread] = (row, len(data_cells), [""] * (len(cells) + 1))
            data_cells += cells
        self.monitor_cells = to_js(data_cells)

    def show_step(self, index: int) -> None:
        target = self.guide.stop_at(self.checkpoints.stop_at(index))
        if target != index:  # an open checkpoint or guided question lies between: ask it before stepping on
            self.player.go(target)
            return
        self.guide.arrive(index)
        step = self.trace[index]
        self.counters.show(step.counters, self.guide.hidden())
        self.counters.say_scope(f"Counts so far: every thread, steps 0 to {index}")
        moved = step.lines != self.code.current
        self.code.highlight(step.lines)
        where, said, action = self.words.narrate(step, self.params, self.thread).partition(": ")
        where, action = (where, action) if said else ("", where)
        self.narration.textContent = self.guide.narrate(index, action[:1].upper() + action[1:])
        self.where.textContent = where
        self.render(step)
        self.show_register_tile(step)
        self.flush_monitor()
        if self.flights is not None and self.motion_frame is None:
            self.motion_frame = window.requestAnimationFrame(self.motion_proxy)  # positions need the step's layout
        self.verify.step(self.trace.filling(index), index == len(self.trace) - 1)
        self.checkpoints.show(index)
        self.place_prose()
        self.write_address()
        if moved and self.listing_frame is None:
            # In the next frame, which lays the page out anyway (with every change of the step): read now,
            # the layout would be forced inside this task, which at start-up is the view's long build
            # (Lighthouse's Speed Index counts a late long task that lays out).
            self.listing_frame = window.requestAnimationFrame(self.listing_proxy)

    def follow_listing(self, timestamp=None) -> None:
        """Scroll the listing's own box (never the page, which may be a course page's frame) so that
        the executing line is in view; a listing that fits its box is left alone."""
        self.listing_frame = None
        if not self.code.current:
            return
        listing = self.code.element
        line = self.code.lines[self.code.current[0] - 1]
        top = line.offsetTop  # .code is positioned (css/tilelab.css), so this is within the listing
        if top < listing.scrollTop or top + line.offsetHeight > listing.scrollTop + listing.clientHeight:
            listing.scrollTop = max(0, top - listing.clientHeight // 3)

    def write_address(self) -> None:
        if self.params is None:
            return
        values = self.params.as_strings()
        if not self.guide.active:  # exploring freely: a reload or a shared link keeps the free view
            values["guide"] = "0"
        if self.counts_only:
            values["mode"] = "counts"
        else:
            tx, ty = self.kernel.thread_xy(self.params, self.thread)
            values["thread"] = f"{tx},{ty}"
            values["step"] = str(self.player.index)
        self.navigate(values)

    def key(self, event) -> bool:
        if self.counts_only or self.trace is None:
            return False
        return self.player.key(event)

    def monitor_threads(self) -> list[int]:
        """Threads listed in the monitor: all, or the followed thread's warp for big blocks."""
        total = self.kernel.threads(self.params)
        if total <= MONITOR_ALL_UP_TO:
            return list(range(total))
        first = self.thread // 32 * 32
        return list(range(first, min(first + 32, total)))
