"""#/naive: the naive kernel (k01), stepped, with the sectors of the followed thread's warp.

`map` (col | row) says which index of C threadIdx.x walks; the warp pictures show, per
load instruction, the 32-byte sectors the warp touches and how many of their bytes it uses.
"""

from __future__ import annotations

from pysim.core import lanes
from pysim.hardware.params import NaiveParams
from pysim.kernels import KERNELS

from ..core.dom import h
from ..widgets.components import add_marks, code_section, folded, legend, memory_panel, monitor_table
from ..widgets.grids import MatrixGrid
from ..widgets.warp_pictures import WarpPicture
from . import naive_explain
from .stepping import SteppingView

GRIDS = ("A", "B", "C")
SIZE_KEYS = ("M", "N", "K", "T", "map")
START = next(iter(NaiveParams.PRESETS.values()))  # the first preset: a warp is one row of a 32×32 block


class NaiveView(SteppingView):
    kernel = KERNELS["naive"]
    counter_names = ("global_loads", "global_sectors", "global_stores", "fma")

    def activate(self, raw: dict[str, str]) -> None:
        """Sizes missing from a link come from the first preset (the coalescing lesson needs full warps)."""
        if self.params is None or set(raw) & set(SIZE_KEYS):
            raw = {**{name: str(value) for name, value in START.items()}, **raw}
        super().activate(raw)

    def apply(self, params) -> None:
        """Changing only the map (or device) keeps the step and the followed thread: compare the two maps."""
        if self.params is not None and not self.counts_only and _same_sizes(params, self.params):
            self.apply_at(params, self.thread, self.player.index)
            return
        super().apply(params)

    def build_panels(self, stage) -> None:
        self.grid_a = MatrixGrid("A", "Matrix A", level="global")
        self.grid_b = MatrixGrid("B", "Matrix B", level="global")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c, level="output")
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element, self.grid_b.element]),
                (
                    "result",
                    "Registers → C",
                    [self.grid_c.element, h("p", "hint", "Click a cell of C to follow its thread.")],
                ),
            ]
        )
        key = legend(
            (
                ("followed-line", "outlined: the followed thread's row of A, column of B and cell of C"),
                ("followed", "the values it uses now"),
            )
        )
        self.warp_title = h("h2", "", "The followed thread's warp")
        self.warp_note = h("p", "hint", "", data_testid="warp-note")
        self.pictures = [WarpPicture("sectors-A", "A"), WarpPicture("sectors-B", "B"), WarpPicture("sectors-C", "C")]
        warp = h(
            "section",
            "warp-panel",
            data_testid="sectors",
            children=[self.warp_title, self.warp_note, *(picture.element for picture in self.pictures)],
        )
        self.monitor_body = h("tbody", "")
        head = h(
            "tr",
            "",
            children=[h("th", "", t, scope="col") for t in ("Thread (tx,ty)", "Element of C", "Action", "sum")],
        )
        monitor = monitor_table("Block thread monitor", head, self.monitor_body)
        for part in (
            h("div", "code-and-memory", children=[code_section(self.code), memory]),
            key,
            warp,
            folded("Thread monitor", monitor),
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        p = self.params
        self.base_block = None  # the grids are resized: their base classes are gone
        gx, gy = self.kernel.grid(p)
        self.grid_a.resize(p.M, p.K, f"Matrix A ({p.M} × {p.K})", values=self.trace.A)
        self.grid_b.resize(p.K, p.N, f"Matrix B ({p.K} × {p.N})", values=self.trace.B)
        self.grid_c.resize(
            p.M, p.N, f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks of {p.T}×{p.T} threads", self.trace.expected.max()
        )
        self.explain()

    def explain(self) -> None:
        naive_explain.show(self.explained, self.params)

    def monitor_columns(self) -> tuple[str, ...]:
        return ("", "", "num")

    def region_marks(self, step, targets: dict[str, dict]) -> None:
        """The column of A and the row of B the block reads at this k, as marks; the block's part of C
        as C's base classes, set when the block changes: as a mark it made every step check the block's
        1,024 cells of C (at T=32), a third of a step's Python (issue 44)."""
        regions = self.kernel.regions(self.params, step)
        if step.block != self.base_block:
            self.base_block = step.block
            self.grid_c.set_base({cell: "in-tile" for cell in regions["C"]})
        for array in ("A", "B"):
            add_marks(targets[array], regions.get(array, []), "in-tile")

    def render(self, step) -> None:
        p = self.params
        bx, by = step.block
        k = f", k = {step.k}" if step.k is not None else ""
        self.focus.textContent = f"Current focus: Block ({bx}, {by}){k} · {step.phase} · map={p.map}"
        marks = self.step_marks(step, GRIDS)
        self.grid_a.show(None, marks["A"])
        self.grid_b.show(None, marks["B"])
        self.grid_c.show(self.trace.c_after(step.index), marks["C"])
        self.render_warp(step)
        self.render_owner_monitor(step, "sum")

    def render_warp(self, step) -> None:
        """Per global access of this statement, the followed thread's warp, lane by lane."""
        warp = lanes.warp_of(self.thread)
        self.warp_title.textContent = f"Warp {warp} (the followed thread's): sectors per instruction"
        shown = {access.array: access for access in step.accesses if access.space == "global"}
        self.warp_note.textContent = (
            "This statement makes no global access."
            if not shown
            else "Each box is a 32-byte sector the warp touches; "
            "a numbered slot is a word a lane asked for, a hatched one was fetched and not used."
        )
        for picture, array in zip(self.pictures, ("A", "B", "C")):
            access = shown.get(array)
            if access is None:
                picture.hide()
                continue
            ws = lanes.warp_sectors(access, warp)
            what = {"A": "A[row][k]", "B": "B[k][col]", "C": "C[row][col]"}[array]
            picture.show_sectors(f"{access.op.capitalize()} of {what}", ws)


def _same_sizes(a, b) -> bool:
    return (a.M, a.N, a.K, a.T) == (b.M, b.N, b.K, b.T)
