"""#/tiling: the shared-memory tiling visualizer (seed 000), drawn from pysim's k03 trace."""

from __future__ import annotations

from pyodide.ffi import create_proxy
from pyscript import window

from pysim.kernels import KERNELS

from ..core.dom import fmt, h, on
from ..widgets.components import ArrowLayer, code_section, folded, legend, memory_panel, monitor_table
from ..widgets.grids import MatrixGrid
from ..widgets.motion import Flights
from ..widgets.sasspanel import SassPanel
from . import tiling_explain as explain_tiling
from .stepping import SteppingView

GRIDS = ("A", "B", "tileA", "tileB", "C")
NARROW_PX = 700


class TilingView(SteppingView):
    kernel = KERNELS["smem"]
    counter_names = (
        "global_loads",
        "shared_loads",
        "shared_stores",
        "fma",
        "barriers",
        "global_sectors",
        "bank_extra_cycles",
    )

    def build_panels(self, stage) -> None:
        self.sass = SassPanel()
        self.grid_a = MatrixGrid("A", "Matrix A", level="global")
        self.grid_b = MatrixGrid("B", "Matrix B", level="global")
        self.grid_ta = MatrixGrid("tileA", "tileA", level="shared")
        self.grid_tb = MatrixGrid("tileB", "tileB", level="shared")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c, level="output")
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element, self.grid_b.element]),
                ("shared", "Shared memory (on-chip)", [self.grid_ta.element, self.grid_tb.element]),
                (
                    "result",
                    "Registers → C",
                    [self.grid_c.element, h("p", "hint", "Click a cell of C to follow its thread.")],
                ),
            ]
        )
        self.arrows = ArrowLayer(memory)
        self.flights = Flights(memory)
        self.flight_grids = {"A": self.grid_a, "B": self.grid_b, "tileA": self.grid_ta, "tileB": self.grid_tb}
        # A wide grid scrolls sideways inside its figure: the arrows follow its cells.
        for grid in (self.grid_a, self.grid_b, self.grid_ta, self.grid_tb):
            on(grid.element, "scroll", lambda event: self.request_arrows())
        on(window, "resize", lambda event: self.request_arrows())
        # Arrows need cell positions, which need layout: draw them once per frame, not once per step.
        self.arrow_frame = None
        self.arrow_proxy = create_proxy(self.draw_arrows)
        key = legend(
            (
                ("followed-line", "outlined: the followed thread's row of tileA, column of tileB and cell of C"),
                ("followed", "the values it uses now"),
            )
        )
        self.phase = h("p", "phase", "", data_testid="phase")
        self.monitor_body = h("tbody", "")
        head = h(
            "tr",
            "",
            children=[h("th", "", t, scope="col") for t in ("Thread (tx,ty)", "Global target", "Action", "partialSum")],
        )
        monitor = monitor_table("Block thread monitor", head, self.monitor_body)
        self.lens_title = h("h3", "", "Selected thread lens")
        self.lens_row = h("ol", "vector", data_testid="lens-row", aria_label="tileA row")
        self.lens_col = h("ol", "vector", data_testid="lens-col", aria_label="tileB column")
        self.lens_terms = h("ol", "timeline", data_testid="lens-timeline", aria_label="Dot product timeline")
        self.lens_sum = h("p", "lens-sum", "", data_testid="lens-sum")
        lens = h(
            "section",
            "lens",
            data_testid="lens",
            children=[
                self.lens_title,
                h("h4", "", "tileA row"),
                self.lens_row,
                h("h4", "", "tileB column"),
                self.lens_col,
                h("h4", "", "Dot product timeline"),
                self.lens_terms,
                self.lens_sum,
            ],
        )
        for part in (
            h(
                "div",
                "code-and-memory",
                children=[code_section(self.code), memory, self.sass.element],
            ),
            key,
            folded(
                "This step's bookkeeping: the phase, the followed thread's lens, the thread monitor",
                h(
                    "div",
                    "details",
                    children=[h("section", "", children=[h("h2", "", "Current phase"), self.phase]), lens],
                ),
                monitor,
            ),
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        self.sass.show(self.kernel.NAME, self.params)
        p = self.params
        gx, gy = self.kernel.grid(p)
        self.grid_a.resize(p.M, p.K, f"Matrix A ({p.M} × {p.K})", values=self.trace.A)
        self.grid_b.resize(p.K, p.N, f"Matrix B ({p.K} × {p.N})", values=self.trace.B)
        self.grid_ta.resize(p.T, p.T, f"tileA [{p.T}][{p.T}]")
        self.grid_tb.resize(p.T, p.T, f"tileB [{p.T}][{p.T}]")
        self.grid_c.resize(p.M, p.N, f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks", self.trace.expected.max())
        self.explain()

    def explain(self) -> None:
        explain_tiling.show(self.explained, self.params)

    def monitor_columns(self) -> tuple[str, ...]:
        return ("", "", "num")  # global target, action, partialSum

    def load_thread(self) -> None:
        super().load_thread()
        tx, ty = self.kernel.thread_xy(self.params, self.thread)
        self.lens_title.textContent = f"Selected thread lens: T({tx},{ty})"

    def render(self, step) -> None:
        p = self.params
        bx, by = step.block
        phase = {
            "setup": "setup",
            "load": "cooperative load",
            "barrier": "barrier",
            "compute": "compute",
            "store": "store",
        }[step.phase]
        tile = f", tile {step.tile + 1} of {p.tiles}" if step.tile is not None else ""
        self.focus.textContent = f"Current focus: Block ({bx}, {by}){tile} · {phase}"
        self.phase.textContent = self.words.phase_detail(step, p)
        marks = self.step_marks(step, GRIDS)
        self.grid_a.show(None, marks["A"])
        self.grid_b.show(None, marks["B"])
        self.grid_ta.show(step.shared["tileA"], marks["tileA"])
        self.grid_tb.show(step.shared["tileB"], marks["tileB"])
        self.grid_c.show(self.trace.c_after(step.index), marks["C"])
        self.request_arrows()
        self.render_owner_monitor(step, "partialSum")
        self.render_lens(step)

    def request_arrows(self) -> None:
        if self.arrow_frame is None:
            self.arrow_frame = window.requestAnimationFrame(self.arrow_proxy)

    def draw_arrows(self, timestamp=None) -> None:
        self.arrow_frame = None
        if self.trace is not None and not self.counts_only:
            self.render_arrows(self.trace[self.player.index])

    def render_arrows(self, step) -> None:
        """During a cooperative load, an arrow per thread from its global element to its tile cell."""
        if step.phase != "load":
            self.arrows.clear()
            return
        source, tile = step.accesses
        grids = {"A": self.grid_a, "B": self.grid_b, "tileA": self.grid_ta, "tileB": self.grid_tb}
        # On a narrow screen the grids stack, and many arrows would cross them: draw only the followed thread's.
        threads = self.monitor_threads() if window.innerWidth >= NARROW_PX else [self.thread]
        pairs = [
            (
                grids[source.array].cell_rect(int(source.rows[0, t]), int(source.cols[0, t])),
                grids[tile.array].cell_rect(int(tile.rows[0, t]), int(tile.cols[0, t])),
                t == self.thread,
            )
            for t in threads
            if source.rows[0, t] >= 0
        ]
        self.arrows.draw(pairs)

    def render_lens(self, step) -> None:
        lens = self.words.lens(step, self.params, self.thread)
        fill_list(self.lens_row, [("", fmt(value)) for value in lens.row])
        fill_list(self.lens_col, [("", fmt(value)) for value in lens.column])
        terms = []
        for term in lens.terms:
            state = "current" if term.current else ("done" if term.done else "todo")
            product = f" = {fmt(term.product)}" if term.done else " (not yet)"
            terms.append((state, f"k={term.k}: {fmt(term.a)}·{fmt(term.b)}{product}"))
        if not lens.terms and step.tile is not None:
            terms.append(("todo", "this tile is being loaded: its terms follow the barrier"))
        fill_list(self.lens_terms, terms)
        target = f"C[{lens.target[0]}][{lens.target[1]}]" if lens.target else "no element of C (outside)"
        if lens.final:
            stored = f"stored to {target}" if lens.target else "not stored (outside C)"
            text = f"final partialSum = {fmt(lens.partial_sum)}, {stored}"
        else:
            text = (
                f"partialSum = {fmt(lens.carried)} carried from earlier tiles + {fmt(lens.done_sum)} from this tile's "
                f"terms = {fmt(lens.partial_sum)} → {target}"
            )
        self.lens_sum.textContent = text


def fill_list(element, items: list[tuple[str, str]]) -> None:
    """Make a list show (class, text) items, reusing its <li> elements and writing only changes."""
    children = element.children
    while children.length > len(items):
        element.removeChild(element.lastChild)
    for i, (cls, text) in enumerate(items):
        if i < children.length:
            item = children.item(i)
            if item.textContent != text:
                item.textContent = text
            if item.className != cls:
                item.className = cls
        else:
            element.appendChild(h("li", cls, text))
