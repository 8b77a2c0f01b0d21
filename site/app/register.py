"""#/register: the 2D register-tiling visualizer (seed 001), drawn from pysim's k03 trace."""

from __future__ import annotations

from pysim import formulas
from pysim.kernels import k01_naive, k02_smem_tiled, k03_register_tiled
from pysim.params import NaiveParams, ParamError, SmemParams

from . import charts
from .components import MatrixGrid, add_marks, code_section, legend, memory_panel, monitor_table
from .dom import fmt, h, thousands
from .stepping import SteppingView
from .tiling import region

COMPARED = ("global_loads", "shared_loads", "register_reads", "fma", "global_sectors", "bank_extra_cycles")


class RegisterView(SteppingView):
    route = "/register"
    kernel = k03_register_tiled
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
        self.grid_a = MatrixGrid("A", "Matrix A")
        self.grid_b = MatrixGrid("B", "Matrix B")
        self.grid_as = MatrixGrid("As", "As")
        self.grid_bs = MatrixGrid("Bs", "Bs")
        self.grid_c = MatrixGrid("C", "Matrix C", on_click=self.clicked_c)
        hint = "Each thread owns a TM×TN patch (dashed and solid borders alternate). Click a cell to follow its thread."
        memory = memory_panel(
            [
                ("global", "Global memory", [self.grid_a.element, self.grid_b.element]),
                ("shared", "Shared memory", [self.grid_as.element, self.grid_bs.element]),
                ("result", "Global matrix C", [self.grid_c.element, h("p", "hint", hint)]),
            ]
        )
        key = legend((("reg-line", "the vector loaded into regM / regN"), ("followed", "the scalar pair in use now")))
        self.phase = h("p", "phase", "", data_testid="phase")
        self.monitor_head = h("tr", "")
        self.monitor_body = h("tbody", "")
        monitor = monitor_table("Thread monitor: outer-product registers", self.monitor_head, self.monitor_body)
        self.intensity = h("section", "explain", data_testid="intensity")
        self.compare = h("section", "explain", data_testid="compare")
        for part in (
            h(
                "div",
                "code-and-memory",
                children=[code_section(self.code), memory],
            ),
            key,
            h("section", "", children=[h("h2", "", "Current phase"), self.phase]),
            monitor,
            self.intensity,
            self.compare,
        ):
            stage.appendChild(part)

    def load_panels(self) -> None:
        p = self.params
        gx, gy = self.kernel.grid(p)
        self.grid_a.resize(p.M, p.K, f"Matrix A ({p.M} × {p.K})")
        self.grid_b.resize(p.K, p.N, f"Matrix B ({p.K} × {p.N})")
        self.grid_as.resize(p.BM, p.BK, f"As [{p.BM}][{p.BK}] (column → regM)")
        self.grid_bs.resize(p.BK, p.BN, f"Bs [{p.BK}][{p.BN}] (row → regN)")
        self.grid_c.resize(
            p.M, p.N, f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks; each thread computes a {p.TM}×{p.TN} patch"
        )
        self.grid_a.show(self.trace.A, {})
        self.grid_b.show(self.trace.B, {})
        self.patches = {}
        for r in range(p.M):
            for c in range(p.N):
                tx, ty = (c % p.BN) // p.TN, (r % p.BM) // p.TM
                self.patches[(r, c)] = "patch-odd" if (tx + ty) % 2 else "patch-even"
                if r % p.TM == 0 and c % p.TN == 0:
                    self.grid_c.label_cell(r, c, f"t{ty * (p.BN // p.TN) + tx}")
        self.monitor_head.textContent = ""
        headings = (
            ["TID", "(tx,ty)", "Action"] + [f"regM[{i}]" for i in range(p.TM)] + [f"regN[{j}]" for j in range(p.TN)]
        )
        headings += [f"Res[{i},{j}]" for i in range(p.TM) for j in range(p.TN)]
        for text in headings:
            self.monitor_head.appendChild(h("th", "", text, scope="col"))
        self.render_intensity()
        self.render_compare()

    def load_thread(self) -> None:
        self.monitor_rows = {}
        self.monitor_body.textContent = ""
        width = 2 + self.params.TM + self.params.TN + self.params.TM * self.params.TN
        for thread in self.monitor_threads():
            tx, ty = self.kernel.thread_xy(self.params, thread)
            cells = [h("th", "", str(thread), scope="row")] + [h("td", "" if i < 2 else "num") for i in range(width)]
            cells[1].textContent = f"({tx},{ty})"
            row = h("tr", "", children=cells)
            self.monitor_body.appendChild(row)
            self.monitor_rows[thread] = (row, cells, [""] * width)

    def clicked_c(self, row: int, col: int) -> None:
        p = self.params
        tx, ty = (col % p.BN) // p.TN, (row % p.BM) // p.TM
        self.follow(ty * (p.BN // p.TN) + tx, block=(col // p.BN, row // p.BM))

    def render(self, step) -> None:
        p = self.params
        bx, by = step.block
        tx, ty = self.kernel.thread_xy(p, self.thread)
        where = f"Current focus: Block ({bx}, {by})"
        if step.tile is not None:
            where += f", bkIdx = {step.tile * p.BK}"
        if step.k is not None:
            where += f", dotIdx = {step.k}"
        if step.pair is not None:
            where += f", FMA ({step.pair[0]},{step.pair[1]})"
        self.focus.textContent = where
        self.phase.textContent = self.kernel.phase_detail(step, p)

        block_rows = range(by * p.BM, min(by * p.BM + p.BM, p.M))
        block_cols = range(bx * p.BN, min(bx * p.BN + p.BN, p.N))
        marks_a, marks_b, marks_as, marks_bs = {}, {}, {}, {}
        marks_c = dict(self.patches)
        if step.tile is not None:
            k_range = range(step.tile * p.BK, min(step.tile * p.BK + p.BK, p.K))
            add_marks(marks_a, region(block_rows, k_range), "in-tile")
            add_marks(marks_b, region(k_range, block_cols), "in-tile")
        add_marks(marks_c, region(block_rows, block_cols), "in-tile")
        targets = {"A": marks_a, "B": marks_b, "As": marks_as, "Bs": marks_bs, "C": marks_c}
        self.mark_accesses(step, targets)
        if step.k is not None:
            add_marks(marks_as, [(ty * p.TM + i, step.k) for i in range(p.TM)], "reg-line")
            add_marks(marks_bs, [(step.k, tx * p.TN + j) for j in range(p.TN)], "reg-line")
        patch_rows = [by * p.BM + ty * p.TM + i for i in range(p.TM)]
        patch_cols = [bx * p.BN + tx * p.TN + j for j in range(p.TN)]
        add_marks(marks_c, [(r, c) for r in patch_rows for c in patch_cols if r < p.M and c < p.N], "followed-line")
        if step.pair is not None:
            i, j = step.pair
            add_marks(marks_as, [(ty * p.TM + i, step.k)], "followed")
            add_marks(marks_bs, [(step.k, tx * p.TN + j)], "followed")
            if patch_rows[i] < p.M and patch_cols[j] < p.N:
                add_marks(marks_c, [(patch_rows[i], patch_cols[j])], "followed")
        self.grid_a.show(None, marks_a)
        self.grid_b.show(None, marks_b)
        self.grid_as.show(step.shared["As"], marks_as)
        self.grid_bs.show(step.shared["Bs"], marks_bs)
        self.grid_c.show(self.trace.c_after(step.index), marks_c)
        self.render_monitor(step)

    def render_monitor(self, step) -> None:
        regs = step.registers
        for thread in self.monitor_rows:
            tx, ty = self.kernel.thread_xy(self.params, thread)
            texts = [f"({tx},{ty})", self.kernel.describe(step, self.params, thread)]
            texts += [fmt(v) for v in regs["regM"][thread]] + [fmt(v) for v in regs["regN"][thread]]
            texts += [fmt(v) for v in regs["threadResults"][thread].reshape(-1)]
            self.update_monitor_row(thread, texts)

    def render_intensity(self) -> None:
        p = self.params
        mine = formulas.Intensity(p.TM, p.TN)
        totals = self.kernel.counters(p)
        self.intensity.textContent = ""
        self.intensity.appendChild(h("h2", "", "Why 2D register tiling dominates: arithmetic intensity"))
        self.intensity.appendChild(
            h(
                "p",
                "",
                (
                    f"Per dotIdx each thread reads TM + TN = {p.TM} + {p.TN} = {mine.shared_reads} values from shared memory "
                    f"and performs TM·TN = {p.TM}·{p.TN} = {mine.fmas} FMAs from registers: {mine.fma_per_read:.2f} FMAs per shared read."
                ),
                data_testid="intensity-current",
            )
        )
        table = h("table", "data", tabindex="0", data_testid="intensity-table")
        table.appendChild(
            h(
                "tr",
                "",
                children=[
                    h("th", "", t, scope="col") for t in ("Per-thread tile", "Shared reads", "FMAs", "FMAs per read")
                ],
            )
        )
        for label, TM, TN in (
            ("1D strip 4×1", 4, 1),
            ("2D 4×4", 4, 4),
            ("2D 8×8", 8, 8),
            (f"yours {p.TM}×{p.TN}", p.TM, p.TN),
        ):
            each = formulas.Intensity(TM, TN)
            table.appendChild(
                h(
                    "tr",
                    "",
                    children=[
                        h("td", "", label),
                        h("td", "", str(each.shared_reads)),
                        h("td", "", str(each.fmas)),
                        h("td", "", f"{each.fma_per_read:.2f}"),
                    ],
                )
            )
        self.intensity.appendChild(table)
        flops = formulas.flops_per_global_byte(totals.fma, totals.global_loads)
        self.intensity.appendChild(
            h(
                "p",
                "",
                (
                    f"Global memory: the whole run makes {thousands(totals.fma)} FMAs from {thousands(totals.global_loads)} global loads, "
                    f"{flops:.2f} FLOPs per byte fetched (2 FLOPs per FMA, 4 bytes per float)."
                ),
                data_testid="intensity-global",
            )
        )
        points = [(float(t), formulas.Intensity(t, t).fma_per_read) for t in (1, 2, 4, 8, 16)]
        self.intensity.appendChild(
            charts.line_chart(
                points,
                "FMAs per shared read against TM = TN",
                "TM = TN",
                "FMAs per shared read",
                highlight=float(p.TM) if p.TM == p.TN else None,
            )
        )
        m_report, n_report = self.kernel.read_bank_reports(p)
        self.intensity.appendChild(
            h(
                "p",
                "",
                (
                    f"Banks: warp 0's regM read As[ty·{p.TM}][0] has conflict degree {m_report.degree}; its regN read Bs[0][tx·{p.TN}] has degree "
                    f"{n_report.degree}. Threads of one warp with different ty read one column of As, {p.TM * p.BK} words apart"
                    + (
                        " — the same bank, so those reads are serialised (production kernels transpose As to avoid this)."
                        if m_report.degree > 1
                        else "."
                    )
                ),
                data_testid="register-banks",
                data_degree=str(m_report.degree),
            )
        )

    def render_compare(self) -> None:
        p = self.params
        rows = [
            ("Naive (one thread per C element)", k01_naive.counters(NaiveParams(M=p.M, N=p.N, K=p.K, T=min(p.BM, 32))))
        ]
        try:
            rows.append(
                (
                    f"Shared-memory tiled, T = BM = {p.BM}",
                    k02_smem_tiled.counters(SmemParams(M=p.M, N=p.N, K=p.K, T=p.BM, device=p.device)),
                )
            )
        except ParamError as error:
            rows.append((f"Shared-memory tiled, T = BM = {p.BM}: {error.message}", None))
        rows.append((f"2D register tiled (TM={p.TM}, TN={p.TN})", self.kernel.counters(p)))
        self.compare.textContent = ""
        self.compare.appendChild(h("h2", "", f"What each step buys, for M={p.M}, N={p.N}, K={p.K}"))
        table = h("table", "data", tabindex="0", data_testid="compare-table")
        table.appendChild(
            h(
                "tr",
                "",
                children=[h("th", "", "Kernel", scope="col")]
                + [h("th", "", name.replace("_", " "), scope="col") for name in COMPARED],
            )
        )
        for label, counters in rows:
            cells = [h("th", "", label, scope="row")]
            for name in COMPARED:
                value = getattr(counters, name) if counters else None
                cells.append(
                    h(
                        "td",
                        "",
                        thousands(value) if value is not None else "—",
                        data_value=str(value) if value is not None else "",
                    )
                )
            table.appendChild(h("tr", "", children=cells))
        self.compare.appendChild(table)
