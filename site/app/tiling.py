"""#/tiling: the shared-memory tiling visualizer (seed 000), drawn from pysim's k02 trace."""

from __future__ import annotations

from pysim import formulas
from pysim.kernels import k02_smem_tiled

from . import typeset
from .components import ArrowLayer, MatrixGrid, add_marks, code_section, legend, memory_panel, monitor_table
from .dom import fmt, h, thousands
from .stepping import SteppingView


def region(rows: range, cols: range) -> list[tuple[int, int]]:
    return [(r, c) for r in rows for c in cols]


class TilingView(SteppingView):
    route = "/tiling"
    kernel = k02_smem_tiled
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
        self.grid_a = MatrixGrid("A", "Matrix A")
        self.grid_b = MatrixGrid("B", "Matrix B")
        self.grid_ta = MatrixGrid("tileA", "tileA")
        self.grid_tb = MatrixGrid("tileB", "tileB")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c)
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
        key = legend((("followed", "the followed thread's operands"),))
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
        self.math = h("section", "explain math", data_testid="why-tiling")
        self.banks = h("section", "explain banks", data_testid="why-no-padding")
        for part in (
            h(
                "div",
                "code-and-memory",
                children=[code_section(self.code), memory],
            ),
            key,
            h("div", "details", children=[h("section", "", children=[h("h2", "", "Current phase"), self.phase]), lens]),
            monitor,
            self.math,
            self.banks,
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        p = self.params
        gx, gy = self.kernel.grid(p)
        self.grid_a.resize(p.M, p.K, f"Matrix A ({p.M} × {p.K})")
        self.grid_b.resize(p.K, p.N, f"Matrix B ({p.K} × {p.N})")
        self.grid_ta.resize(p.T, p.T, f"tileA [{p.T}][{p.T}]")
        self.grid_tb.resize(p.T, p.T, f"tileB [{p.T}][{p.T}]")
        self.grid_c.resize(p.M, p.N, f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks")
        self.grid_a.show(self.trace.A, {})
        self.grid_b.show(self.trace.B, {})
        self.shown_c_upto = None
        self.render_math()
        self.render_banks()

    def load_thread(self) -> None:
        self.monitor_rows = {}
        self.monitor_body.textContent = ""
        for thread in self.monitor_threads():
            cells = [h("th", "", self.thread_label(thread), scope="row"), h("td", ""), h("td", ""), h("td", "num")]
            row = h("tr", "", children=cells)
            self.monitor_body.appendChild(row)
            self.monitor_rows[thread] = (row, cells, ["", "", ""])
        tx, ty = self.kernel.thread_xy(self.params, self.thread)
        self.lens_title.textContent = f"Selected thread lens: T({tx},{ty})"

    def clicked_c(self, row: int, col: int) -> None:
        T = self.params.T
        self.follow((row % T) * T + col % T, block=(col // T, row // T))

    def render(self, step) -> None:
        p, T = self.params, self.params.T
        bx, by = step.block
        tx, ty = self.kernel.thread_xy(p, self.thread)
        phase = {
            "setup": "setup",
            "load": "cooperative load",
            "barrier": "barrier",
            "compute": "compute",
            "store": "store",
        }[step.phase]
        tile = f", tile {step.tile + 1} of {p.tiles}" if step.tile is not None else ""
        self.focus.textContent = f"Current focus: Block ({bx}, {by}){tile} · {phase}"
        self.phase.textContent = self.kernel.phase_detail(step, p)

        block_rows, block_cols = range(by * T, min(by * T + T, p.M)), range(bx * T, min(bx * T + T, p.N))
        marks_a, marks_b, marks_ta, marks_tb, marks_c = {}, {}, {}, {}, {}
        if step.tile is not None:
            k_cols = range(step.tile * T, min(step.tile * T + T, p.K))
            add_marks(marks_a, region(block_rows, k_cols), "in-tile")
            add_marks(marks_b, region(k_cols, block_cols), "in-tile")
        add_marks(marks_c, region(block_rows, block_cols), "in-tile")
        targets = {"A": marks_a, "B": marks_b, "tileA": marks_ta, "tileB": marks_tb, "C": marks_c}
        self.mark_accesses(step, targets)
        for access in step.accesses:
            if access.space == "global":
                add_marks(targets[access.array], access.cells(self.thread), "followed")
        add_marks(marks_ta, [(ty, c) for c in range(T)], "followed-line")
        add_marks(marks_tb, [(r, tx) for r in range(T)], "followed-line")
        if step.k is not None:
            add_marks(marks_ta, [(ty, step.k)], "followed")
            add_marks(marks_tb, [(step.k, tx)], "followed")
        row, col = by * T + ty, bx * T + tx
        if row < p.M and col < p.N:
            add_marks(marks_c, [(row, col)], "followed-line")
        self.grid_a.show(None, marks_a)
        self.grid_b.show(None, marks_b)
        self.grid_ta.show(step.shared["tileA"], marks_ta)
        self.grid_tb.show(step.shared["tileB"], marks_tb)
        self.grid_c.show(self.trace.c_after(step.index), marks_c)
        self.render_arrows(step)
        self.render_monitor(step)
        self.render_lens(step)

    def render_arrows(self, step) -> None:
        """During a cooperative load, an arrow per thread from its global element to its tile cell."""
        if step.phase != "load":
            self.arrows.clear()
            return
        source, tile = step.accesses
        grids = {"A": self.grid_a, "B": self.grid_b, "tileA": self.grid_ta, "tileB": self.grid_tb}
        threads = self.monitor_threads()
        pairs = [
            (
                grids[source.array].cell(int(source.rows[0, t]), int(source.cols[0, t])),
                grids[tile.array].cell(int(tile.rows[0, t]), int(tile.cols[0, t])),
                t == self.thread,
            )
            for t in threads
            if source.rows[0, t] >= 0
        ]
        self.arrows.draw(pairs)

    def render_monitor(self, step) -> None:
        p = self.params
        for thread in self.monitor_rows:
            tx, ty = self.kernel.thread_xy(p, thread)
            target_row, target_col = step.block[1] * p.T + ty, step.block[0] * p.T + tx
            inside = target_row < p.M and target_col < p.N
            target = f"C[{target_row}][{target_col}]" if inside else "outside C"
            action = self.kernel.describe(step, p, thread)
            self.update_monitor_row(thread, [target, action, fmt(step.registers["partialSum"][thread])])

    def render_lens(self, step) -> None:
        lens = self.kernel.lens(step, self.params, self.thread)
        fill_list(self.lens_row, [("", fmt(value)) for value in lens.row])
        fill_list(self.lens_col, [("", fmt(value)) for value in lens.column])
        terms = []
        for term in lens.terms:
            state = "current" if term.current else ("done" if term.done else "todo")
            product = f" = {fmt(term.product)}" if term.done else " (not yet)"
            terms.append((state, f"k={term.k}: {fmt(term.a)}·{fmt(term.b)}{product}"))
        fill_list(self.lens_terms, terms)
        inside = lens.target[0] < self.params.M and lens.target[1] < self.params.N
        target = f"C[{lens.target[0]}][{lens.target[1]}]" if inside else "no element of C (outside)"
        self.lens_sum.textContent = f"partialSum = {fmt(lens.partial_sum)} → {target}"

    def render_math(self) -> None:
        p = self.params
        naive = formulas.naive_loads(p.M, p.N, p.K)
        ideal = formulas.ideal_tiled_loads(p.M, p.N, p.K, p.T)
        exact = formulas.tiled_loads(p.M, p.N, p.K, p.T)
        gx, gy = self.kernel.grid(p)
        self.math.textContent = ""
        self.math.appendChild(h("h2", "", "Why tiling works (the math)"))
        self.math.appendChild(
            h(
                "p",
                "",
                "Without shared memory each of the M·N threads reads a row of A and a column of B from global memory: 2K loads each.",
            )
        )
        self.math.appendChild(
            typeset.tex(
                rf"\text{{global loads}} = 2MNK = 2 \times {p.M} \times {p.N} \times {p.K} = {naive:,}".replace(
                    ",", "{,}"
                ),
                "math display",
            )
        )
        self.math.appendChild(
            h(
                "p",
                "",
                f"With shared memory a block loads each tile once and its threads reuse every value TILE = {p.T} times.",
            )
        )
        self.math.appendChild(
            typeset.tex(
                rf"\frac{{2MNK}}{{T}} = \frac{{{naive:,}}}{{{p.T}}} = {ideal:,.6g}".replace(",", "{,}"), "math display"
            )
        )
        exact_tex = (
            rf"MK\lceil N/T\rceil + KN\lceil M/T\rceil = {p.M}\cdot{p.K}\cdot{gx} + {p.K}\cdot{p.N}\cdot{gy} = {exact:,}"
        ).replace(",", "{,}")
        self.math.appendChild(
            h("p", "", "Exactly, counting the edge tiles that are loaded even where they stick out of the matrix:")
        )
        self.math.appendChild(typeset.tex(exact_tex, "math display"))
        verdict = (
            "equal: the sizes are multiples of TILE"
            if exact == ideal
            else f"{exact - ideal:,.0f} more than ideal, because of partial edge tiles"
        )
        self.math.appendChild(
            h(
                "p",
                "",
                f"Exact {thousands(exact)} vs ideal {ideal:,.6g}: {verdict}. Naive/tiled = {naive / exact:.2f}×.",
            )
        )

    def render_banks(self) -> None:
        p = self.params
        a_report, b_report = self.kernel.read_bank_reports(p)
        self.banks.textContent = ""
        self.banks.appendChild(h("h2", "", "Why no padding? (from the bank analysis)"))
        self.banks.appendChild(
            h(
                "p",
                "",
                "Shared memory has 32 banks of 4-byte words; threads of one warp conflict only when they ask one bank for different words in the same instruction. At k = 0, warp 0 reads:",
            )
        )
        for name, index, report in (("tileA", "[ty][0]", a_report), ("tileB", "[0][tx]", b_report)):
            degree = "no conflict" if report.degree <= 1 else f"a {report.degree}-way conflict"
            broadcast = (
                f", {report.broadcast_words} of them broadcast to several threads" if report.broadcast_words else ""
            )
            self.banks.appendChild(
                h(
                    "p",
                    "bank-line",
                    f"{name}{index}: {report.threads} threads ask for {sum(len(w) for w in report.words_per_bank)} distinct word(s) "
                    f"in {report.banks_used} bank(s){broadcast}: conflict degree {report.degree}, {degree}.",
                    data_testid=f"bank-{name}",
                    data_degree=str(report.degree),
                )
            )
        self.banks.appendChild(
            h(
                "p",
                "",
                "Each thread does walk down a column of tileB over the k loop, but those are separate instructions, so they cannot conflict. Padding matters when one warp reads down a column at once, as in the transpose (see the memory-hierarchy walkthrough, step 6).",
            )
        )


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
