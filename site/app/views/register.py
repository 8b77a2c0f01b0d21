"""#/register: the 2D register-tiling visualizer (seed 001), drawn from pysim's k05 trace."""

from __future__ import annotations

from pysim.kernels import KERNELS

from ..core.dom import fmt, h
from ..widgets.components import code_section, folded, legend, memory_panel, monitor_table
from ..widgets.grids import MatrixGrid
from ..widgets.motion import Flights
from ..widgets.registertile import RegisterTileView
from ..widgets.sasspanel import SassPanel
from . import register_explain as explain_register
from .stepping import SteppingView

GRIDS = ("A", "B", "As", "Bs", "C")


class RegisterView(SteppingView):
    kernel = KERNELS["register"]
    operand_mark = "reg-line"
    counter_names = (
        "global_loads",
        "shared_loads",
        "register_reads",
        "fma",
        "shared_stores",
        "barriers",
        "global_sectors",
        "bank_extra_cycles",
    )

    def build_panels(self, stage) -> None:
        self.sass = SassPanel()
        self.grid_a = MatrixGrid("A", "Matrix A", level="global")
        self.grid_b = MatrixGrid("B", "Matrix B", level="global")
        self.grid_as = MatrixGrid("As", "As", level="shared")
        self.grid_bs = MatrixGrid("Bs", "Bs", level="shared")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c, level="output")
        hint = "Each thread owns a TM×TN patch (dashed and solid borders alternate). Click a cell to follow its thread."
        self.register_tile = RegisterTileView()
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element, self.grid_b.element]),
                ("shared", "Shared memory", [self.grid_as.element, self.grid_bs.element]),
                ("register", "Registers", [self.register_tile.element]),
                ("result", "Global matrix C", [self.grid_c.element, h("p", "hint", hint)]),
            ]
        )
        self.flights = Flights(memory)
        grids = {"A": self.grid_a, "B": self.grid_b, "As": self.grid_as, "Bs": self.grid_bs}
        self.flight_grids = grids | self.register_tile.grids
        key = legend((("reg-line", "the vector loaded into regM / regN"), ("followed", "the scalar pair in use now")))
        self.phase = h("p", "phase", "", data_testid="phase")
        self.monitor_head = h("tr", "")
        self.monitor_body = h("tbody", "")
        monitor = monitor_table("Thread monitor: outer-product registers", self.monitor_head, self.monitor_body)
        for part in (
            h(
                "div",
                "code-and-memory",
                children=[code_section(self.code), memory, self.sass.element],
            ),
            key,
            h("section", "", children=[h("h2", "", "Current phase"), self.phase]),
            folded("Thread monitor: each thread's registers", monitor),
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        self.sass.show(self.kernel.NAME, self.params)
        p = self.params
        gx, gy = self.kernel.grid(p)
        self.grid_a.resize(p.M, p.K, f"Matrix A ({p.M} × {p.K})", values=self.trace.A)
        self.grid_b.resize(p.K, p.N, f"Matrix B ({p.K} × {p.N})", values=self.trace.B)
        self.grid_as.resize(p.BM, p.BK, f"As [{p.BM}][{p.BK}] (column → regM)")
        self.grid_bs.resize(p.BK, p.BN, f"Bs [{p.BK}][{p.BN}] (row → regN)")
        caption = f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks; each thread computes one {p.TM}×{p.TN} patch"
        self.grid_c.resize(p.M, p.N, caption, self.trace.expected.max())
        patches = {}  # each thread's patch of C, alternating solid and dashed borders
        for block in self.trace.blocks:
            for thread in range(p.threads):
                patch = self.kernel.owned_cells(p, block, thread)
                tx, ty = self.kernel.thread_xy(p, thread)
                patches |= dict.fromkeys(patch, "patch-odd" if (tx + ty) % 2 else "patch-even")
                if patch:
                    self.grid_c.label_cell(*patch[0], f"t{thread}")
        self.grid_c.set_base(patches)
        self.monitor_head.textContent = ""
        headings = (
            ["TID", "(tx,ty)", "Action"] + [f"regM[{i}]" for i in range(p.TM)] + [f"regN[{j}]" for j in range(p.TN)]
        )
        headings += [f"Res[{i},{j}]" for i in range(p.TM) for j in range(p.TN)]
        self.monitor_numbers = len(headings) - 3  # the register columns after TID, (tx,ty) and Action
        for text in headings:
            self.monitor_head.appendChild(h("th", "", text, scope="col"))
        self.explain()

    def explain(self) -> None:
        explain_register.show(self.explained, self.params)

    def monitor_label(self, thread: int) -> str:
        return str(thread)  # the TID column; (tx,ty) has a column of its own

    def monitor_columns(self) -> tuple[str, ...]:
        return ("", "", *("num",) * self.monitor_numbers)  # (tx,ty), action, then the registers

    def render(self, step) -> None:
        p = self.params
        self.focus.textContent = f"Current focus: {self.words.position(step, p)}"
        self.phase.textContent = self.words.phase_detail(step, p)
        marks = self.step_marks(step, GRIDS)
        self.grid_a.show(None, marks["A"])
        self.grid_b.show(None, marks["B"])
        self.grid_as.show(step.shared["As"], marks["As"])
        self.grid_bs.show(step.shared["Bs"], marks["Bs"])
        self.grid_c.show(self.trace.c_after(step.index), marks["C"])
        self.render_monitor(step)

    def render_monitor(self, step) -> None:
        regs = step.registers
        for thread in self.monitor_rows:
            tx, ty = self.kernel.thread_xy(self.params, thread)
            texts = [f"({tx},{ty})", self.words.describe(step, self.params, thread)]
            texts += [fmt(v) for v in regs["regM"][thread]] + [fmt(v) for v in regs["regN"][thread]]
            texts += [fmt(v) for v in regs["threadResults"][thread].reshape(-1)]
            self.update_monitor_row(thread, texts)
