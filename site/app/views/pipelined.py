"""#/pipelined: warptiling fed by cp.async (pysim/kernels/k11_pipelined.py), stepped like #/warptile.

The grids, the warp marks and the monitor are #/warptile's (As and Bs are drawn with all their stages
stacked, the warp marks in the stage computed now: k11.warp_regions). Beside them, the pipeline's
timeline (pysim.lessons.pipelined.timeline): one row per stage, one column per round, each cell the
tile the stage holds and whether its copy is being issued, in flight or computed; the column of the
current step and the stage it touches are marked. The table is built once per size; a step moves
two classes and one sentence.
"""

from __future__ import annotations

from pysim.kernels import KERNELS, k11_pipelined
from pysim.lessons import pipelined

from ..core import slots
from ..core.dom import h
from .blocktiled import KEY, WARP_KEY, WarptileView

STATE_CLASS = {"load": "pipe-load", "in flight": "pipe-flight", "compute": "pipe-compute", "": "pipe-empty"}
PIPE_KEY = (
    ("pipe-load", "a tile's copies are issued (cp.async, no thread waits)"),
    ("pipe-flight", "copies still travelling while another tile is computed"),
    ("pipe-compute", "the tile computed this round, landed in its stage"),
)


class PipelinedView(WarptileView):
    kernel = KERNELS["pipelined"]
    legend_entries = KEY + WARP_KEY + PIPE_KEY
    counter_names = (*WarptileView.counter_names, "async_copy_bytes")
    warp_regions = staticmethod(k11_pipelined.warp_regions)

    def build_panels(self, stage) -> None:
        super().build_panels(stage)
        self.pipe_table = h("table", "data pipeline", tabindex="0", data_testid="pipeline-timeline")
        self.pipe_now = h("p", "pipe-now", "", data_testid="pipeline-now", aria_live="polite")
        heading = h("h2", "", "The pipeline: which tile each stage holds, round by round")
        stage.appendChild(h("section", "pipeline-panel", children=[heading, self.pipe_table, self.pipe_now]))

    def load_panels(self) -> None:
        super().load_panels()
        self.build_timeline()

    def captions(self) -> dict[str, str]:
        p, found = self.params, super().captions()
        found["As"] = (
            f"As [{p.stages}·{p.BK}][{p.BM}]: {p.stages} stages, A transposed by 4-byte copies (row dotIdx → regM)"
        )
        found["Bs"] = f"Bs [{p.stages}·{p.BK}][{p.BN}]: {p.stages} stages (row dotIdx → regN)"
        return found

    def explain(self) -> None:
        slots.fill(self.explained, pipelined.slot_values(self.params))

    def build_timeline(self) -> None:
        """One header row of rounds, one row per stage; cells carry their state as a class and in words."""
        self.pipe_table.textContent = ""
        columns = pipelined.timeline(self.params)
        caption = h("caption", "", "Each stage's buffer per round: load (copy issued), in flight, compute")
        head = h("tr", "", children=[h("th", "", "stage", scope="col")])
        for column in columns:
            head.appendChild(h("th", "", column.label, scope="col"))
        self.pipe_table.appendChild(caption)
        self.pipe_table.appendChild(h("thead", "", children=[head]))
        body = h("tbody", "")
        self.pipe_cells: list[list] = []
        for stage in range(self.params.stages):
            row = h("tr", "", children=[h("th", "", f"stage {stage}", scope="row")])
            cells = []
            for column in columns:
                slot = column.slots[stage]
                cell = h("td", STATE_CLASS[slot.state], slot.text, data_state=slot.state or "empty")
                row.appendChild(cell)
                cells.append(cell)
            body.appendChild(row)
            self.pipe_cells.append(cells)
        self.pipe_table.appendChild(body)
        self.pipe_marked: list = []

    def render(self, step) -> None:
        super().render(step)
        p = self.params
        for cell in self.pipe_marked:
            cell.classList.remove("pipe-now")
            cell.classList.remove("pipe-touched")
        self.pipe_marked = []
        column, stage = pipelined.column_of(p, step), pipelined.stage_now(p, step)
        if column is not None:
            for row, cells in enumerate(self.pipe_cells):
                cells[column].classList.add("pipe-now")
                self.pipe_marked.append(cells[column])
                if row == stage:
                    cells[column].classList.add("pipe-touched")
        self.pipe_now.textContent = pipelined.now_text(p, step)
