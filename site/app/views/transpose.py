"""#/transpose: the shared-memory transpose (k03_tilelab_transpose), stepped, with the banks of the followed thread's warp.

`pad` applies as soon as it changes and keeps the step and the followed thread, so the
same instruction can be watched with and without its conflict.
"""

from __future__ import annotations

from pysim.core import lanes
from pysim.kernels import KERNELS, k03_tilelab_transpose

from ..core.dom import h
from ..widgets.components import ACCESS_MARKS, add_marks, code_section, folded, legend, memory_panel, monitor_table
from ..widgets.grids import MatrixGrid
from ..widgets.warp_pictures import WarpPicture
from . import transpose_explain
from .stepping import SteppingView

GRIDS = ("A", "tile", "C")
PARAM_KEYS = ("n", "T", "pad", "device")  # the address's names (TILE is `T` there, SPEC §5)
PHASES = {
    "setup": "setup",
    "load": "row-wise copy into the tile",
    "barrier": "barrier",
    "store": "column-wise read, row-wise store",
}


WHOLE_GRID_STEPS = 256  # cells above which a grid is a canvas here


class TransposeView(SteppingView):
    kernel = KERNELS["transpose"]
    counter_names = (
        "global_loads",
        "global_stores",
        "shared_stores",
        "shared_loads",
        "barriers",
        "global_sectors",
        "bank_extra_cycles",
    )

    @property
    def param_names(self) -> tuple[str, ...]:
        return PARAM_KEYS

    def apply(self, params) -> None:
        """A new pad (or device) keeps the step and the followed thread: the same instruction, other banks."""
        if (
            self.params is not None
            and not self.counts_only
            and (params.n, params.TILE) == (self.params.n, self.params.TILE)
        ):
            self.apply_at(params, self.thread, self.player.index)
            return
        super().apply(params)

    def step_marks(self, step, arrays: tuple[str, ...]) -> dict[str, dict]:
        """As the base class draws them, except that an access marks only the followed thread's warp:
        a block here is up to 1,024 threads, the lesson is one warp, and marking every thread would
        redraw thousands of cells per step. The block's regions (and the tile's padding) are the grids'
        base classes, set when the block changes: as marks, every step compared their 2,048 cells (issue 44)."""
        if self.base_block != step.block_number:
            self.base_block = step.block_number
            regions = self.kernel.regions(self.params, step)
            for name, grid in (("A", self.grid_a), ("C", self.grid_c)):
                grid.set_base({cell: "in-tile" for cell in regions[name]})
            self.grid_tile.set_base({cell: "pad-cell" for cell in self.padding})
        targets: dict[str, dict] = {name: {} for name in arrays}
        warp = lanes.warp_of(self.thread)
        for access in step.accesses:
            found_lanes = [lane for lane in lanes.lanes(access, warp) if lane.active]
            add_marks(
                targets[access.array], [lane.cell for lane in found_lanes], ACCESS_MARKS[(access.space, access.op)]
            )
            if access.zero_fill is not None:
                zero = [lane.cell for lane in found_lanes if access.zero_fill[0, lane.thread]]
                add_marks(targets[access.array], zero, "zero-fill")
        self.focus_marks(step, targets)
        return targets

    def build_panels(self, stage) -> None:
        # A step of a 32×32 block rewrites 1,024 cells at once (the tile fills, then C): canvases past 16×16.
        self.grid_a = MatrixGrid("A", "Matrix A", canvas_above=WHOLE_GRID_STEPS, level="global")
        self.grid_tile = MatrixGrid("tile", "tile", canvas_above=WHOLE_GRID_STEPS, level="shared")
        self.grid_c = MatrixGrid(
            "C", "Matrix C = Aᵀ", on_click=self.clicked_c, canvas_above=WHOLE_GRID_STEPS, level="output"
        )
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element]),
                ("shared", "Shared memory (on-chip)", [self.grid_tile.element]),
                (
                    "result",
                    "Global memory: C",
                    [self.grid_c.element, h("p", "hint", "Click a cell of C to follow the thread that stores it.")],
                ),
            ]
        )
        key = legend((("followed", "the followed thread's cell"), ("pad-cell", "padding (never used)")))
        self.phase = h("p", "phase", "", data_testid="phase")
        self.warp_title = h("h2", "", "The followed thread's warp")
        self.warp_note = h("p", "hint", "", data_testid="warp-note")
        self.banks = WarpPicture("banks", "Banks")
        self.sectors = WarpPicture("sectors", "Sectors")
        warp = h(
            "section",
            "warp-panel",
            data_testid="warp",
            children=[self.warp_title, self.warp_note, self.banks.element, self.sectors.element],
        )
        self.monitor_body = h("tbody", "")
        head = h("tr", "", children=[h("th", "", t, scope="col") for t in ("Thread (tx,ty)", "Action")])
        monitor = monitor_table("Block thread monitor (the followed thread's warp)", head, self.monitor_body)
        for part in (
            h("div", "code-and-memory", children=[code_section(self.code), memory]),
            key,
            h("section", "", children=[h("h2", "", "Current phase"), self.phase]),
            warp,
            folded("Thread monitor: the followed thread's warp", monitor),
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        p = self.params
        gx, gy = self.kernel.grid(p)
        stride = self.trace[0].shared["tile"].shape[1]
        self.grid_a.resize(p.n, p.n, f"Matrix A ({p.n} × {p.n}), {gx}×{gy} tiles", values=self.trace.A)
        self.grid_tile.resize(p.TILE, stride, f"tile [{p.TILE}][{stride}] (pad = {p.pad})")
        self.grid_c.resize(p.n, p.n, f"Matrix C = Aᵀ ({p.n} × {p.n})", self.trace.expected.max())
        self.padding = k03_tilelab_transpose.padding_cells(p)
        self.base_block = None  # the grids are resized: their base classes are gone
        self.explain()

    def explain(self) -> None:
        transpose_explain.show(self.explained, self.params)

    def monitor_columns(self) -> tuple[str, ...]:
        return ("",)

    def render(self, step) -> None:
        bx, by = step.block
        self.focus.textContent = f"Current focus: Block ({bx}, {by}) · {PHASES[step.phase]}"
        self.phase.textContent = self.words.narrate(step, self.params, self.thread)
        marks = self.step_marks(step, GRIDS)
        self.grid_a.show(None, marks["A"])
        self.grid_tile.show(step.shared["tile"], marks["tile"])
        self.grid_c.show(self.trace.c_after(step.index), marks["C"])
        self.render_warp(step)
        for thread in self.monitor_rows:
            self.update_monitor_row(thread, [self.words.describe(step, self.params, thread)])

    def render_warp(self, step) -> None:
        warp = lanes.warp_of(self.thread)
        self.warp_title.textContent = f"Warp {warp} (the followed thread's), lane by lane"
        shared = next((a for a in step.accesses if a.space == "shared"), None)
        global_ = next((a for a in step.accesses if a.space == "global"), None)
        if shared is None:
            self.warp_note.textContent = "This statement makes no memory access: step on to the copy or the read."
            self.banks.hide()
            self.sectors.hide()
            return
        self.warp_note.textContent = (
            "Each column is a bank; each box a distinct word it must serve, one per cycle (a stack is a conflict). "
            "Below, the 32-byte sectors of the global access."
        )
        wb = lanes.warp_banks(shared, warp)
        if shared.op == "store":
            self.banks.show_banks("Banks: writing tile[threadIdx.y][threadIdx.x] (a row)", wb)
        else:
            self.banks.show_banks("Banks: reading tile[threadIdx.x][threadIdx.y] (a column)", wb)
        ws = lanes.warp_sectors(global_, warp)
        title = "Sectors: loading a row of A" if global_.op == "load" else "Sectors: storing a row of C"
        self.sectors.show_sectors(title, ws)
