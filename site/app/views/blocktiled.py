"""#/blocktile1d, #/vectorized, #/warptile: siboehm's kernels 4, 6 and 10, stepped like #/register.

One view class: the three routes differ in data (kernel, registers, captions, explanation), not
in kind. Every mark comes from pysim: the block's regions, each access by kind, the followed
thread's cells (k04, k06 and k10 `focus`), the four-cell groups of every 128-bit access
(pysim.lessons.blocktiled.vector_groups, outlined with `edges`) and, in #/warptile, the followed
thread's warp tile and subtiles (k10.warp_regions).

A step costs what it changes: the marks that hold for many steps (the block's tile, the thread
patches of C, the followed thread's warp) are the grids' base classes, rebuilt only when the block,
the bkIdx slice or the warp changes; the monitor formats only the register values that changed.
"""

from __future__ import annotations

import numpy as np
from pyscript import window

from pysim.kernels import KERNELS, k10_warptile
from pysim.lessons import blocktiled

from ..core.dom import AFTER_FRAME_MS, fmt, h
from ..widgets.components import add_marks, code_section, folded, legend, memory_panel, monitor_table
from ..widgets.grids import MatrixGrid
from ..widgets.motion import Flights
from ..widgets.registertile import RegisterTileView
from ..widgets.sasspanel import SassPanel
from . import blocktiled_explain
from .register import RegisterView
from .stepping import SteppingView

GRIDS = ("A", "B", "As", "Bs", "C")
MONITOR_VALUES = 8  # the monitor lists the first values of each register array (Res: the first row)
SHORT_NAMES = {"threadResults": "Res"}
KEY = (
    ("vec4", "one lane's 128-bit access: four floats, one outline"),
    ("reg-line", "the values copied into registers this dotIdx"),
    ("followed", "in use now by the followed thread"),
)


def outlined(groups, kind: str) -> dict[tuple[int, int], str]:
    """Classes that draw one outline around each group: `<kind>-t`, `-b`, `-l`, `-r` on its outer sides."""
    return {
        cell: " ".join(f"{kind}-{side}" for side in sides.split()) for cell, sides in blocktiled.edges(groups).items()
    }


class BlocktiledView(SteppingView):
    operand_mark = "reg-line"
    legend_entries = KEY
    counter_names = (*RegisterView.counter_names, "shared_wavefronts")  # #/register's, and the wavefronts

    @property
    def start(self) -> dict[str, str]:
        """The first preset (teaching sizes): what a link without sizes opens at."""
        return {name: str(value) for name, value in next(iter(self.kernel.PARAMS.PRESETS.values())).items()}

    def activate(self, raw: dict[str, str]) -> None:
        """Sizes missing from a link come from the teaching preset (the kernel's defaults are siboehm's, large)."""
        if self.params is None or set(raw) & set(self.param_names):
            raw = {**self.start, **raw}
        super().activate(raw)

    def load_thread(self) -> None:
        super().load_thread()
        self.base_drawn = None  # what the grids' base classes were built for (base_key)
        self.monitor_shown = np.full((len(self.monitor_rows), self.monitor_numbers), np.nan)  # blank cells
        self.monitor_behind = None  # the step the monitor is still to show (while off screen)

    def reject(self, error) -> None:
        if self.params is None:
            self.load(self.kernel.PARAMS.parse(self.start), 0, 0)
        super().reject(error)

    def build_panels(self, stage) -> None:
        self.sass = SassPanel()
        stage.classList.add("blocktiled")  # scopes the outline and pattern marks (css/views.css)
        self.grids = {
            "A": MatrixGrid("A", "Matrix A", level="global"),
            "B": MatrixGrid("B", "Matrix B", level="global"),
            "As": MatrixGrid("As", "As", level="shared"),
            "Bs": MatrixGrid("Bs", "Bs", level="shared"),
            "C": MatrixGrid("C", "Matrix C", on_click=self.clicked_c, level="output"),
        }
        g = self.grids
        hint = "Each thread's results have one border style (dashed and solid alternate). Click a cell to follow its thread."
        self.register_tile = RegisterTileView()
        memory = memory_panel(
            [
                ("global", "Global memory", [g["A"].element, g["B"].element]),
                ("shared", "Shared memory", [g["As"].element, g["Bs"].element]),
                ("register", "Registers", [self.register_tile.element]),
                ("result", "Global matrix C", [g["C"].element, h("p", "hint", hint)]),
            ]
        )
        self.flights = Flights(memory)
        self.flight_grids = {name: g[name] for name in ("A", "B", "As", "Bs")} | self.register_tile.grids
        self.phase = h("p", "phase", "", data_testid="phase")
        self.monitor_head = h("tr", "")
        self.monitor_body = h("tbody", "")
        monitor = monitor_table(
            "Thread monitor: registers (the first values of each)", self.monitor_head, self.monitor_body
        )
        # Far off screen the browser skips the monitor's rendering (css/views.css, content-visibility)
        # and says so; its values are then written just after the step's frame, not before it.
        self.monitor_skipped = False
        self.listeners.on(monitor, "contentvisibilityautostatechange", self.monitor_skip_changed)
        self.monitor_proxy = self.listeners.proxy(self.catch_up_monitor)
        self.monitor_timer = None
        for part in (
            h("div", "code-and-memory", children=[code_section(self.code), memory, *self.compiler_panel()]),
            legend(self.legend_entries),
            folded(
                "This step's bookkeeping: the phase and the thread monitor",
                h("section", "", children=[h("h2", "", "Current phase"), self.phase]),
                monitor,
            ),
        ):
            stage.appendChild(part)

    def compiler_panel(self) -> list:
        """The compiler panel, on #/blocktile1d only: nvcc's SASS is precomputed for its presets (issue 40)."""
        return [self.sass.element] if self.kernel.NAME == "blocktile1d" else []

    def load_panels(self) -> None:
        if self.kernel.NAME == "blocktile1d":
            self.sass.show(self.kernel.NAME, self.params)
        trace = self.trace
        captions = self.captions()
        first = trace[0]
        shapes = {"A": trace.A.shape, "B": trace.B.shape, "C": trace.expected.shape}
        shapes |= {name: first.shared[name].shape for name in ("As", "Bs")}
        values = {"A": trace.A, "B": trace.B}
        # Only C holds sums; the operands' grids keep narrow cells (widened for C's digits, they pushed As, Bs
        # and C below the first screen).
        operand = max(trace.A.max(), trace.B.max())
        for name, grid in self.grids.items():
            grid.resize(
                *shapes[name], captions[name], trace.expected.max() if name == "C" else operand, values.get(name)
            )
        self.patch_classes = self.patches()
        self.monitor_head.textContent = ""
        self.monitor_values = {}  # register name -> how many of its values the monitor lists
        headings = ["TID", self.xy_heading, "Action"]
        for name, values in first.registers.items():
            indices = list(np.ndindex(values.shape[1:]))[:MONITOR_VALUES]
            self.monitor_values[name] = len(indices)
            short = SHORT_NAMES.get(name, name)
            headings += [f"{short}[{','.join(map(str, i))}]" if i else short for i in indices]
        self.monitor_numbers = len(headings) - 3
        for text in headings:
            self.monitor_head.appendChild(h("th", "", text, scope="col"))
        self.explain()

    def captions(self) -> dict[str, str]:
        """Each grid's caption for the sizes on screen."""
        return blocktiled.panel_captions(self.kernel.NAME, self.params)

    def explain(self) -> None:
        """Fill the route's explanation (site/partials/<kernel>-explain.html) for the sizes on screen."""
        blocktiled_explain.show(self.explained, self.kernel.NAME, self.params)

    xy_heading = "(tx,ty)"

    def patches(self) -> dict[tuple[int, int], str]:
        """Each thread's cells of C, solid and dashed borders alternating thread by thread; a corner label."""
        found = {}
        for block in self.trace.blocks:
            for thread in range(self.kernel.threads(self.params)):
                cells = self.kernel.owned_cells(self.params, block, thread)
                found |= dict.fromkeys(
                    cells, ("patch-even", "patch-odd")[sum(self.kernel.thread_xy(self.params, thread)) % 2]
                )
                if cells:
                    self.grids["C"].label_cell(*cells[0], f"t{thread}")
        return found

    def monitor_label(self, thread: int) -> str:
        return str(thread)

    def monitor_columns(self) -> tuple[str, ...]:
        return ("", "", *("num",) * self.monitor_numbers)

    def render(self, step) -> None:
        p = self.params
        self.focus.textContent = f"Current focus: {self.words.position(step, p)}"
        self.phase.textContent = self.words.phase_detail(step, p)
        key = self.base_key(step)
        if key != self.base_drawn:
            self.base_drawn = key
            self.draw_base(step)
        marks = self.step_marks(step, GRIDS)
        for array, groups in blocktiled.vector_groups(step).items():
            add_marks(marks[array], [cell for group in groups for cell in group], "vec4")
            for cell, cls in outlined(groups, "vec").items():
                add_marks(marks[array], (cell,), cls)
        regions = self.regions(step)
        values = {**step.shared, "C": self.trace.c_after(step.index)}  # A and B never change
        for name, grid in self.grids.items():
            grid.show(values.get(name), marks[name], regions.get(name))
        if not self.monitor_skipped:
            self.render_monitor(step)
            return
        self.monitor_behind = step
        if self.monitor_timer is None:
            self.monitor_timer = window.setTimeout(self.monitor_proxy, AFTER_FRAME_MS)

    def monitor_skip_changed(self, event) -> None:
        self.monitor_skipped = bool(event.skipped)

    def catch_up_monitor(self) -> None:
        self.monitor_timer = None
        if self.monitor_behind is not None:
            step, self.monitor_behind = self.monitor_behind, None
            self.render_monitor(step)
            self.flush_monitor()

    def base_key(self, step) -> tuple:
        """What the base classes depend on: the block and its bkIdx slice (the kernels' regions are
        pysim.kernels.plumbing.tile_regions, which depend on nothing else)."""
        return step.block, step.tile

    def region_marks(self, step, targets: dict[str, dict]) -> None:
        """None per step: the block's regions are in the grids' base (draw_base)."""

    def draw_base(self, step) -> None:
        """The base classes of every grid: the block's regions ("in-tile"), C's thread patches and a
        route's own (more_base). A grid restyles only the cells whose classes change."""
        bases: dict[str, dict] = {name: {} for name in GRIDS}
        bases["C"] |= self.patch_classes
        for array, cells in self.kernel.regions(self.params, step).items():
            rows, cols = self.grids[array].shape
            if len(cells) < rows * cols:  # a tile that is the whole matrix would mark every cell (issue 39)
                add_marks(bases[array], cells, "in-tile")
        self.more_base(step, bases)
        for name, base in bases.items():
            self.grids[name].set_base(base)

    def more_base(self, step, bases: dict[str, dict]) -> None:
        """A route's own base classes (the warp tiles of #/warptile)."""

    def regions(self, step) -> dict[str, dict[str, tuple]]:
        """A route's own rectangles drawn over a grid's cells, per grid: {class: cells}."""
        return {}

    def render_monitor(self, step) -> None:
        p, words, threads = self.params, self.words, list(self.monitor_rows)
        for thread in threads:
            tx, ty = self.kernel.thread_xy(p, thread)
            self.update_monitor_row(thread, [f"({tx},{ty})", words.describe(step, p, thread)])
        # The listed values of every register array for the listed threads, (rows, numbers); only
        # those that differ from the values on screen are formatted (a step changes a few of them).
        numbers = np.concatenate(
            [
                np.reshape(step.registers[name], (len(step.registers[name]), -1))[threads, :count]
                for name, count in self.monitor_values.items()
            ],
            axis=1,
        )
        shown = self.monitor_shown
        changed = np.nonzero(~((numbers == shown) | (np.isnan(numbers) & np.isnan(shown))))
        self.monitor_shown = numbers
        for row, column, value in zip(*(part.tolist() for part in changed), numbers[changed].tolist()):
            self.update_monitor_row(threads[row], [fmt(value)], 2 + column)  # after (x,y) and Action


class Blocktile1DView(BlocktiledView):
    kernel = KERNELS["blocktile1d"]
    legend_entries = (
        ("reg-line", "the As values this dotIdx multiplies with tmpB"),
        ("followed", "in use now: tmpB and its As value"),
    )


class VectorizedView(BlocktiledView):
    kernel = KERNELS["vectorized"]


WARP_KEY = (
    ("warp-tile", "the followed thread's warp tile (dashed box)"),
    ("sub-now", "the subtile computed now (striped box; dotted outlines split the subtiles)"),
)


class WarptileView(BlocktiledView):
    kernel = KERNELS["warptile"]
    legend_entries = KEY + WARP_KEY
    xy_heading = "(lane,warp)"
    warp_regions = staticmethod(k10_warptile.warp_regions)  # the followed thread's warp, per grid

    def thread_label(self, thread: int) -> str:
        lane, warp = self.kernel.thread_xy(self.params, thread)
        return f"lane {lane}, warp {warp}"

    def base_key(self, step) -> tuple:
        return *super().base_key(step), self.kernel.thread_xy(self.params, self.thread)[1]  # and the warp

    def more_base(self, step, bases: dict[str, dict]) -> None:
        """The followed thread's subtiles: dotted outlines on their edge cells only; the warp tile and
        the subtile computed now are regions (one box each, `regions`), so no cell is flagged for them."""
        for array, parts in self.warp_regions(self.params, step, self.thread).items():
            for cell, cls in outlined(parts["subtiles"], "sub").items():
                add_marks(bases[array], (cell,), cls)

    def regions(self, step) -> dict[str, dict[str, tuple]]:
        """The followed thread's warp tile (a dashed box) and the subtile computed now (a striped box), per grid."""
        regions = self.warp_regions(self.params, step, self.thread)
        return {array: {"warp-tile": parts["warp"], "sub-now": parts["now"]} for array, parts in regions.items()}
