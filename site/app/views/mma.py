"""#/mma: SGEMM on the tensor cores in TF32 (pysim/kernels/k12_mma.py), stepped like #/pipelined.

The grids and the monitor are the blocktiled views' (As and Bs drawn with every stage stacked, at the
physical place each word lies: padded rows or swizzled chunks). Beside them, all from pysim.lessons.mma:
the A, B and C tiles of one mma.sync.m16n8k8 with the lane and register that hold each element (the
followed lane's marked, the fragment the step uses outlined), the step's bank wavefronts in both layouts
and a strip of the first instruction's words per bank, the wavefronts of one tile by kind and layout,
the tensor-core FLOPs so far, C's error against float64 in TF32, 3xTF32 and float32, and the cp.async
pipeline's timeline (widgets/pipeline.py). Tables are built once per size; a step moves a few classes
and writes a few texts.
"""

from __future__ import annotations

from pysim.core.constants import NUM_BANKS
from pysim.kernels import KERNELS, k12_mma
from pysim.lessons import mma

from ..core import slots
from ..core.dom import h
from ..widgets.pipeline import PIPE_KEY, PipelineTimeline
from .blocktiled import BlocktiledView

FRAGMENT_KEY = (
    ("frag-lane", "held by the followed thread's lane"),
    ("frag-now", "the fragment this step loads, multiplies or stores"),
)
SCIENTIFIC = "{:.1e}"


def error_text(value: float) -> str:
    return "0 (exact)" if value == 0 else SCIENTIFIC.format(value)


class MmaView(BlocktiledView):
    kernel = KERNELS["mma"]
    legend_entries = (("vec4", "one lane's 128-bit copy: four floats, one outline"), *FRAGMENT_KEY, *PIPE_KEY)
    counter_names = (
        "global_loads",
        "global_sectors",
        "async_copy_bytes",
        "shared_loads",
        "shared_wavefronts",
        "bank_extra_cycles",
        "mma_instructions",
        "barriers",
        "global_stores",
    )
    xy_heading = "(lane,warp)"

    def thread_label(self, thread: int) -> str:
        lane, warp = self.kernel.thread_xy(self.params, thread)
        return f"lane {lane}, warp {warp}"

    def build_panels(self, stage) -> None:
        super().build_panels(stage)
        # The fragments and this step's banks in a column of the grids' own (css/mma.css places it beside As and
        # C, or under C on a phone), so the step's key panel shares the first screen with its source; the
        # tile-wide tables after the grids, before the key and the bookkeeping (which end the stage).
        key = stage.querySelector('[data-testid="legend"]')
        side = h("div", "mma-side", data_testid="mma-side")
        stage.querySelector(".memory").appendChild(side)

        def place(section) -> None:
            stage.insertBefore(section, key)

        self.fragment_tables = {tile.name: self.fragment_table(tile) for tile in mma.FRAGMENTS}
        caption = h(
            "p",
            "hint",
            f"One mma.sync.m16n8k8: each element of A (16×8), B (8×8) and C (16×8) with the lane that holds it "
            f"and its register, as the {mma.CITATION} gives them.",
        )
        self.fragment_marked: list = []
        self.fragment_shown = None
        tables = h("div", "fragment-tiles", children=[table for table, _ in self.fragment_tables.values()])
        heading = h("h2", "", "Fragments: the warp's 32 lanes hold the tiles")
        side.appendChild(h("section", "fragment-panel", data_testid="fragments", children=[heading, caption, tables]))
        self.bank_text = h("p", "", "", data_testid="bank-text", aria_live="polite")
        self.bank_cells = [h("td", "num", "") for _ in range(NUM_BANKS)]
        strip = h(
            "table",
            "data bank-strip",
            tabindex="0",
            data_testid="bank-strip",
            children=[
                h("caption", "", "Words asked of each bank (0–31) by the first instruction"),
                h("tbody", "", children=[h("tr", "", children=self.bank_cells)]),
            ],
        )
        self.tile_table = h("table", "data", tabindex="0", data_testid="tile-wavefronts")
        heading = h("h2", "", "Shared-memory banks: padded rows or the XOR swizzle")
        side.appendChild(
            h(
                "section",
                "bank-panel",
                data_testid="bank-wavefronts",
                data_level="shared",
                children=[heading, self.bank_text, h("div", "scroll-x", children=[strip]), self.tile_table],
            )
        )
        self.flops = h("p", "", "", data_testid="tensor-flops")
        self.error_table = h("table", "data", tabindex="0", data_testid="c-error")
        heading = h("h2", "", "Tensor cores: FLOPs, and C's error against float64")
        place(h("section", "tensor-panel", children=[heading, self.flops, self.error_table]))
        self.timeline = PipelineTimeline(k12_mma)
        place(self.timeline.element)

    def fragment_table(self, tile: mma.FragmentTile) -> tuple[object, list[list]]:
        """A tile's table: one cell per element, the lane's number and the register's name."""
        rows, cols = tile.shape
        table = h("table", "data fragment", data_testid=f"fragment-{tile.name}", data_level="register")
        table.appendChild(h("caption", "", f"{tile.name} ({rows}×{cols})"))
        body = h("tbody", "")
        cells = []
        for r in range(rows):
            row = []
            for c in range(cols):
                lane, register = tile.lanes[r][c], tile.registers[r][c]
                cell = h("td", "", children=[h("span", "lane", str(lane)), h("span", "reg", register)])
                cell.setAttribute("title", f"{tile.name}[{r}][{c}]: lane {lane}, {register}")
                row.append(cell)
            body.appendChild(h("tr", "", children=row))
            cells.append(row)
        table.appendChild(body)
        return table, cells

    def load_panels(self) -> None:
        super().load_panels()
        self.timeline.build(self.params)
        self.build_tile_table()
        self.build_error_table()

    def build_tile_table(self) -> None:
        """Wavefronts (conflict cycles) of one tile of the block, by access and layout: pysim's numbers."""
        self.tile_table.textContent = ""
        found = mma.tile_table(self.params)
        self.tile_table.appendChild(h("caption", "", "One tile, the whole block: wavefronts (conflict cycles)"))
        head = [h("th", "", "access", scope="col")]
        head += [h("th", "", name, scope="col") for name in mma.LAYOUTS.values()]
        self.tile_table.appendChild(h("thead", "", children=[h("tr", "", children=head)]))
        body = h("tbody", "")
        for kind, by_layout in found.items():
            row = [h("th", "", kind, scope="row")]
            for name, cost in by_layout.items():
                text = "refused" if cost is None else f"{cost[0]:,} ({cost[1]:,})"
                cell = h("td", "num", text, data_layout=name)
                if cost is not None:
                    cell.setAttribute("data-value", str(cost[0]))
                row.append(cell)
            body.appendChild(h("tr", "", children=row))
        self.tile_table.appendChild(body)

    def build_error_table(self) -> None:
        """max|C − C64| / max|C64| per arithmetic, the current split's row marked."""
        self.error_table.textContent = ""
        p, trace = self.params, self.trace
        self.error_table.appendChild(
            h("caption", "", f"max|C − C64| / max|C64| at {p.M}×{p.N}×{p.K} (C64: float64; pysim's TF32 rounding)")
        )
        head = [h("th", "", "arithmetic", scope="col"), h("th", "", "this page's A, B", scope="col")]
        head.append(h("th", "", f"uniform [−1, 1], seed {mma.ERROR_SEED}", scope="col"))
        self.error_table.appendChild(h("thead", "", children=[h("tr", "", children=head)]))
        body = h("tbody", "")
        for row in mma.errors(p, trace.A, trace.B):
            cells = [h("th", "", row.label, scope="row")]
            cells += [h("td", "num", error_text(value), data_value=repr(value)) for value in (row.page, row.random)]
            mark = "split-now" if row.split == p.split else ""
            body.appendChild(h("tr", mark, children=cells, data_split=str(row.split or "float32")))
        self.error_table.appendChild(body)

    def captions(self) -> dict[str, str]:
        return mma.captions(self.params)

    def explain(self) -> None:
        slots.fill(self.explained, mma.slot_values(self.params))

    def load_thread(self) -> None:
        super().load_thread()
        lane = self.kernel.thread_xy(self.params, self.thread)[0]
        for cell in self.fragment_marked:
            cell.removeAttribute("class")  # its only class (a fresh page draws these cells with none)
        self.fragment_marked = []
        for tile in mma.FRAGMENTS:
            _, cells = self.fragment_tables[tile.name]
            for r, c in tile.cells_of(lane):
                cells[r][c].classList.add("frag-lane")
                self.fragment_marked.append(cells[r][c])

    def render(self, step) -> None:
        super().render(step)
        p = self.params
        now = mma.fragment_now(step)
        if now != self.fragment_shown:
            for name, (table, _) in self.fragment_tables.items():
                table.classList.toggle("frag-now", name == now)
            self.fragment_shown = now
        found = mma.step_banks(p, step, self.thread)
        self.bank_text.textContent = mma.banks_text(p, found, self.kernel.thread_xy(p, self.thread)[1])
        words = found.words_per_bank if found is not None else (0,) * NUM_BANKS
        for cell, number in zip(self.bank_cells, words):
            text = str(number) if number else ""
            if cell.textContent != text:
                cell.textContent = text
                cell.className = f"num{' bank-busy' if number > 1 else ''}"
        self.flops.textContent = mma.flops_text(p, step.counters)
        self.flops.setAttribute("data-value", str(mma.tensor_flops(step.counters)))
        self.timeline.show(p, step)
