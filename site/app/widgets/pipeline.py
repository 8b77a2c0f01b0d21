"""The cp.async pipeline's timeline (pysim.lessons.pipelined.timeline), drawn for #/pipelined and #/mma: one row
per stage, one column per round, each cell the tile the stage holds and whether its copy is being issued, in
flight or computed; the column of the current step and the stage it touches are marked. The table is built
once per size; a step moves two classes and one sentence."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from pysim.lessons import pipelined

from ..core.dom import h

STATE_CLASS = {"load": "pipe-load", "in flight": "pipe-flight", "compute": "pipe-compute", "": "pipe-empty"}
PIPE_KEY = (
    ("pipe-load", "a tile's copies are issued (cp.async, no thread waits)"),
    ("pipe-flight", "copies still travelling while another tile is computed"),
    ("pipe-compute", "the tile computed this round, landed in its stage"),
)


class PipelineTimeline:
    """The timeline's section: `element`; `build(p)` for new sizes, `show(p, step)` for a step. `listing`: the
    kernel module whose statements the steps name (k11_pipelined or k12_mma); `lesson`: the module whose
    `timeline`, `column_of`, `stage_now` and `now_text` say where a step sits (pysim.lessons.pipelined, or
    pysim.lessons.wgmma for the producer/consumer pipeline of #/wgmma)."""

    def __init__(self, listing: ModuleType, lesson: ModuleType = pipelined) -> None:
        self.listing = listing
        self.lesson = lesson
        self.table = h("table", "data pipeline", tabindex="0", data_testid="pipeline-timeline")
        self.now = h("p", "pipe-now", "", data_testid="pipeline-now", aria_live="polite")
        heading = h("h2", "", "The pipeline: which tile each stage holds, round by round")
        self.element = h("section", "pipeline-panel", children=[heading, self.table, self.now])
        self.cells: list[list] = []
        self.marked: list = []

    def build(self, p: Any) -> None:
        """One header row of rounds, one row per stage; cells carry their state as a class and in words."""
        self.table.textContent = ""
        columns = self.lesson.timeline(p)
        caption = h("caption", "", "Each stage's buffer per round: load (copy issued), in flight, compute")
        head = h("tr", "", children=[h("th", "", "stage", scope="col")])
        for column in columns:
            head.appendChild(h("th", "", column.label, scope="col"))
        self.table.appendChild(caption)
        self.table.appendChild(h("thead", "", children=[head]))
        body = h("tbody", "")
        self.cells = []
        for stage in range(p.stages):
            row = h("tr", "", children=[h("th", "", f"stage {stage}", scope="row")])
            cells = []
            for column in columns:
                slot = column.slots[stage]
                cell = h("td", STATE_CLASS[slot.state], slot.text, data_state=slot.state or "empty")
                row.appendChild(cell)
                cells.append(cell)
            body.appendChild(row)
            self.cells.append(cells)
        self.table.appendChild(body)
        self.marked = []

    def show(self, p: Any, step) -> None:
        for cell in self.marked:
            cell.classList.remove("pipe-now")
            cell.classList.remove("pipe-touched")
        self.marked = []
        column = self.lesson.column_of(p, step, self.listing)
        stage = self.lesson.stage_now(p, step, self.listing)
        if column is not None:
            for row, cells in enumerate(self.cells):
                cells[column].classList.add("pipe-now")
                self.marked.append(cells[column])
                if row == stage:
                    cells[column].classList.add("pipe-touched")
        self.now.textContent = self.lesson.now_text(p, step, self.listing)
