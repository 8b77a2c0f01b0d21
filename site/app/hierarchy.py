"""#/hierarchy: the memory-hierarchy walkthrough (seed 002), steps 0-7, every number from pysim."""

from __future__ import annotations

from math import log10

from pyscript import window

from pysim.banks import ACCESS_KINDS
from pysim.params import HierarchyParams, ParamError, parse_int
from pysim.walkthrough import BANK_TILE, SWEEP_MAX_T, Walkthrough, bank_picture, check, quiz

from . import charts, typeset
from .dom import h, on, svg, thousands
from .form import ParamForm

STEPS = 8
TITLES = (
    "The words we are allowed to use",
    "The problem, drawn as arrows to the pantry",
    "The naive total, counted honestly",
    "The idea: fetch once, reuse many (tiling)",
    "Count the tiled walks, term by term",
    "The speedup, and where the T comes from",
    "Edge case: the shared counter has 32 lanes (bank conflicts)",
    "Degenerate cases: when tiling doesn't help",
)


def tex_number(value: float) -> str:
    return f"{value:,.0f}".replace(",", "{,}")


class HierarchyView:
    route = "/hierarchy"

    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.params: HierarchyParams | None = None
        self.step = 0
        self.pad = 0
        self.access = "column"
        self.form = ParamForm(HierarchyParams, self.apply, legend="Problem (N×N matrices, T×T tiles)")
        self.prev = h("button", "", "◀ Back", type="button", data_testid="prev", aria_keyshortcuts="ArrowLeft")
        self.next = h("button", "", "Next ▶", type="button", data_testid="step", aria_keyshortcuts="ArrowRight")
        self.position = h("span", "position", "")
        on(self.prev, "click", lambda e: self.go(self.step - 1))
        on(self.next, "click", lambda e: self.go(self.step + 1))
        self.sections = [
            h("section", "walk-step", data_testid=f"walk-step-{i}", aria_labelledby=f"walk-title-{i}")
            for i in range(STEPS)
        ]
        self.summary = h("section", "walk-step", data_testid="summary")
        self.quiz_box = h("section", "walk-step quiz", data_testid="quiz")
        container.textContent = ""
        container.appendChild(self.form.element)
        container.appendChild(
            h("nav", "steps-nav", aria_label="Walkthrough steps", children=[self.prev, self.next, self.position])
        )
        for part in (*self.sections, self.summary, self.quiz_box):
            container.appendChild(part)

    # --- state -------------------------------------------------------------
    def activate(self, raw: dict[str, str]) -> None:
        if self.params is not None and not set(raw) & {"N", "T", "device", "step", "pad", "access"}:
            self.write_address()
            return
        try:
            params = HierarchyParams.parse({k: raw[k] for k in ("N", "T", "device") if k in raw})
            step = parse_int("step", raw.get("step", "0"), 0, STEPS - 1)
            pad = parse_int("pad", raw.get("pad", "0"), 0, 2)
            access = raw.get("access", "column")
            if access not in ACCESS_KINDS:
                raise ParamError("access", f"access must be one of {', '.join(ACCESS_KINDS)}")
        except ParamError as error:
            self.form.show_error(error)
            if self.params is None:
                self.load(HierarchyParams())
            self.write_address()
            return
        self.form.clear_error()
        self.pad, self.access = pad, access
        self.load(params)
        self.go(step, scroll=False)

    def apply(self, params: HierarchyParams) -> None:
        self.form.clear_error()
        self.load(params)
        self.write_address()

    def load(self, params: HierarchyParams) -> None:
        self.params = params
        self.walk = Walkthrough(params)
        self.form.show(params)
        for i, build in enumerate(
            (self.step0, self.step1, self.step2, self.step3, self.step4, self.step5, self.step6, self.step7)
        ):
            section = self.sections[i]
            section.textContent = ""
            section.appendChild(h("h2", "", f"Step {i} — {TITLES[i]}", id=f"walk-title-{i}"))
            build(section)
        self.build_summary()
        self.build_quiz()
        self.go(self.step, scroll=False)

    def go(self, step: int, scroll: bool = True) -> None:
        self.step = max(0, min(step, STEPS - 1))
        for i, section in enumerate(self.sections):
            if i == self.step:
                section.setAttribute("aria-current", "step")
            else:
                section.removeAttribute("aria-current")
        self.prev.disabled = self.step == 0
        self.next.disabled = self.step == STEPS - 1
        self.position.textContent = f"step {self.step} of {STEPS - 1}"
        if scroll:  # scroll this document only: scrollIntoView would also scroll an embedding page
            window.scrollTo(0, self.sections[self.step].getBoundingClientRect().top + window.scrollY - 8)
        self.write_address()

    def write_address(self) -> None:
        values = self.params.as_strings() | {"step": str(self.step)}
        if self.pad or self.access != "column":
            values |= {"pad": str(self.pad), "access": self.access}
        self.navigate(self.route, values)

    def key(self, event) -> bool:
        if event.key == "ArrowRight":
            self.go(self.step + 1)
        elif event.key == "ArrowLeft":
            self.go(self.step - 1)
        elif event.key == "Home":
            self.go(0)
        elif event.key == "End":
            self.go(STEPS - 1)
        else:
            return False
        return True

    # --- helpers -----------------------------------------------------------
    @staticmethod
    def what_why_picture(section, what: str, why: str, picture: str, drawing=None) -> None:
        section.appendChild(
            h(
                "dl",
                "wwp",
                children=[
                    h("dt", "", "What"),
                    h("dd", "", what),
                    h("dt", "", "Why"),
                    h("dd", "", why),
                    h("dt", "", "Picture"),
                    h("dd", "", picture),
                ],
            )
        )
        if drawing is not None:
            section.appendChild(drawing)

    @classmethod
    def sentence(cls, before: str, value: int, testid: str, after: str):
        """A paragraph around one computed number that tests can read exactly (data-value)."""
        return h("p", "", children=[h("span", "", before), cls.number(value, testid), h("span", "", after)])

    @staticmethod
    def number(value: int, testid: str):
        return h("strong", "", thousands(value), data_testid=testid, data_value=str(value))

    # --- the steps ---------------------------------------------------------
    def step0(self, section) -> None:
        d = self.walk.device
        section.appendChild(
            h(
                "p",
                "",
                "A thread is one worker running the kernel; a warp is 32 threads that issue each instruction together; a cycle is one tick of the GPU clock, our unit of time.",
            )
        )
        levels = (
            ("Registers", d.latency_register),
            ("Shared memory", d.latency_shared),
            ("L2 cache", d.latency_l2),
            ("Global memory", d.latency_global),
        )
        table = h("table", "data", tabindex="0", data_testid="ladder-table")
        table.appendChild(
            h(
                "tr",
                "",
                children=[
                    h("th", "", t, scope="col")
                    for t in ("Storage", "Modelled latency (cycles)", "Source", "Other sources say")
                ],
            )
        )
        for name, figure in levels:
            link = h("a", "", "source", href=figure.source, rel="noopener noreferrer", target="_blank")
            table.appendChild(
                h(
                    "tr",
                    "",
                    children=[
                        h("td", "", name),
                        h("td", "", f"≈ {figure.value:g}"),
                        h("td", "", children=[link]),
                        h("td", "", figure.alternative or "—"),
                    ],
                )
            )
        section.appendChild(table)
        section.appendChild(
            h(
                "p",
                "hint",
                f"Modelled values for the {d.name} (change the device preset above); real latencies vary with clock, access pattern and load.",
            )
        )
        drawing = charts.picture(520, 230, "Distance ladder: the further the shelf, the longer the walk")
        for i, (name, figure) in enumerate(levels):
            length = 30 + 110 * log10(max(figure.value, 1))
            y = 200 - i * 52
            drawing.appendChild(svg("rect", "shelf", x="20", y=str(y - 18), width="150", height="30", rx="4"))
            drawing.appendChild(svg("text", text=name, x="28", y=str(y + 2)))
            drawing.appendChild(
                svg("line", "arrow-long", x1="175", y1=str(y - 3), x2=f"{175 + length:.0f}", y2=str(y - 3))
            )
            drawing.appendChild(svg("text", text=f"≈ {figure.value:g} cycles", x=f"{182 + length:.0f}", y=str(y + 2)))
        self.what_why_picture(
            section,
            "We named workers and shelves.",
            "Every later symbol is built only from these.",
            "The shelves stacked by distance; the arrow length grows with the log of the latency.",
            drawing,
        )

    def step1(self, section) -> None:
        w = self.walk
        section.appendChild(
            self.sentence(
                f"Multiply two {w.N:,}×{w.N:,} matrices, C = A × B. One thread computes one element of C, walking a row of A and a column of B: ",
                w.per_thread_loads,
                "per-thread-loads",
                " global loads (2N) for one thread.",
            )
        )
        shown = min(w.per_thread_loads, 32)
        drawing = charts.picture(
            520, 200, f"One thread's {w.per_thread_loads:,} arrows to global memory, {shown} drawn"
        )
        drawing.appendChild(svg("rect", "shelf", x="380", y="20", width="120", height="160", rx="6"))
        drawing.appendChild(svg("text", text="global memory", x="392", y="105"))
        drawing.appendChild(svg("circle", "point", cx="40", cy="100", r="10"))
        drawing.appendChild(svg("text", text="thread", x="18", y="130"))
        for i in range(shown):
            y = 24 + i * 152 / max(shown - 1, 1)
            drawing.appendChild(svg("line", "arrow-long", x1="52", y1="100", x2="378", y2=f"{y:.1f}"))
        drawing.appendChild(svg("text", text=f"{shown} of {w.per_thread_loads:,} arrows drawn", x="120", y="195"))
        self.what_why_picture(
            section,
            f"We counted {w.per_thread_loads:,} global reads per thread.",
            "This is the baseline walk count.",
            "One thread firing long arrows into the far pantry.",
            drawing,
        )

    def step2(self, section) -> None:
        w = self.walk
        section.appendChild(
            self.sentence(
                f"There is one thread per output cell: N² = {w.threads:,} threads, each making 2N loads. Total: ",
                w.naive_total,
                "naive-total",
                " global loads.",
            )
        )
        section.appendChild(
            typeset.tex(rf"N^2 \times 2N = 2N^3 = 2 \times {w.N}^3 = {tex_number(w.naive_total)}", "math display")
        )
        side = 8
        drawing = charts.picture(520, 200, "The same row of A is fetched again by every thread of that row of C")
        for c in range(side):
            drawing.appendChild(svg("rect", "row-hot", x=str(20 + c * 20), y="40", width="18", height="18"))
        drawing.appendChild(svg("text", text="row 0 of A", x="20", y="30"))
        for r in range(side):
            for c in range(side):
                cls = "row-hot" if r == 0 else "lane"
                drawing.appendChild(svg("rect", cls, x=str(300 + c * 20), y=str(30 + r * 20), width="18", height="18"))
        for c in range(side):
            drawing.appendChild(svg("line", "arrow-long", x1=f"{309 + c * 20}", y1="40", x2="180", y2="49"))
        drawing.appendChild(
            svg("text", text=f"every thread of row 0 of C fetches the same {w.N:,} values", x="20", y="190")
        )
        self.what_why_picture(
            section,
            "Multiplied per-thread walks by the number of threads.",
            "To see the true traffic, and the waste.",
            "The same row of A (coral) fetched by every thread of that row of C.",
            drawing,
        )

    def step3(self, section) -> None:
        w = self.walk
        section.appendChild(
            h(
                "p",
                "",
                f"Split the matrices into {w.T}×{w.T} tiles. The {w.T * w.T:,} threads of a block each copy one element of an A tile and one of a B tile into shared memory, wait at a barrier, then read their operands from the fast copy: each value fetched once is reused by T = {w.T} threads.",
            )
        )
        shown = min(w.T, 8)
        drawing = charts.picture(520, 200, "Long arrows into a shared tile, many short arrows out")
        drawing.appendChild(svg("rect", "shelf", x="10", y="20", width="90", height="160", rx="6"))
        drawing.appendChild(svg("text", text="global", x="30", y="105"))
        drawing.appendChild(svg("rect", "tile-box", x="220", y="60", width="80", height="80", rx="4"))
        drawing.appendChild(svg("text", text=f"{w.T}×{w.T} tile", x="226", y="104"))
        for i in range(shown):
            drawing.appendChild(svg("line", "arrow-long", x1="100", y1=f"{30 + i * 18}", x2="218", y2=f"{66 + i * 9}"))
            for j in range(3):
                drawing.appendChild(
                    svg(
                        "line",
                        "arrow-short",
                        x1="302",
                        y1=f"{66 + i * 9}",
                        x2=f"{360 + j * 40}",
                        y2=f"{30 + i * 18 + j * 4}",
                    )
                )
        self.what_why_picture(
            section,
            "Introduced a tile parked in shared memory.",
            "Shared memory is about ten times closer than global, and cooperative loading removes the duplicate walks of step 2.",
            "Long arrows in (one per element), many short arrows out (T uses each).",
            drawing,
        )

    def step4(self, section) -> None:
        w = self.walk
        section.appendChild(
            self.sentence("Tiles along a row or column: ⌈N/T⌉ = ", w.tiles_per_row, "tiles-per-row", ".")
        )
        section.appendChild(
            typeset.tex(
                rf"\frac{{2N^3}}{{T}} = \frac{{2 \cdot {w.N}^3}}{{{w.T}}} = {tex_number(w.ideal_tiled) if w.ideal_tiled == int(w.ideal_tiled) else f'{w.ideal_tiled:,.1f}'.replace(',', '{,}')}",
                "math display",
            )
        )
        section.appendChild(
            typeset.tex(
                rf"2N^2 \left\lceil \frac{{N}}{{T}} \right\rceil = 2 \cdot {w.N}^2 \cdot {w.tiles_per_row} = {tex_number(w.exact_tiled)}",
                "math display",
            )
        )
        if w.divides:
            text = f"T = {w.T} divides N = {w.N:,}, so the exact count equals the ideal 2N³/T: "
        else:
            text = (
                f"T = {w.T} does not divide N = {w.N:,}: the last tile of each row sticks out and is loaded with zeros beyond the edge, "
                f"so the exact count is {w.edge_excess:,.0f} more than the ideal {w.ideal_tiled:,.0f}: "
            )
        section.appendChild(self.sentence(text, w.exact_tiled, "tiled-total", " global loads."))
        self.what_why_picture(
            section,
            "Recounted the walks with sharing.",
            "To get the honest new number, edge tiles included.",
            "One loaded row of an A tile feeds T output cells: one walk, T uses.",
        )

    def step5(self, section) -> None:
        w = self.walk
        section.appendChild(
            h(
                "p",
                "",
                children=[
                    h("span", "", "Naive ÷ tiled = "),
                    h("strong", "", f"{w.speedup:.2f}×", data_testid="speedup", data_value=f"{w.speedup:.6f}"),
                    h(
                        "span",
                        "",
                        f". The clean law: reuse each fetched value T times and traffic drops by T = {w.T}. "
                        + (
                            "Here T divides N, so the factor is exactly T."
                            if w.divides
                            else f"Here the edge tiles soften it to {w.speedup:.2f}× — this is where the '~15×' of practice comes from (N = 1000, T = 16 gives 126,000,000 loads instead of 125,000,000)."
                        ),
                    ),
                ],
            )
        )
        drawing = charts.bar_chart(
            [("naive", w.naive_total, "bar-naive"), ("tiled", w.exact_tiled, "bar-tiled")],
            f"Global loads: naive vs tiled, {w.speedup:.2f}× fewer",
        )
        self.what_why_picture(
            section,
            "Divided the two counts.",
            "To isolate what causes the speedup: it is T, nothing else.",
            f"A bar chart: {w.naive_total:,} shrinking to {w.exact_tiled:,}, labelled with the factor {w.speedup:.2f}×.",
            drawing,
        )

    def step6(self, section) -> None:
        report = bank_picture(self.pad, self.access)
        pad_select = h("select", "", id="bank-pad", data_testid="input-pad")
        for pad in range(3):
            pad_select.appendChild(
                h(
                    "option",
                    "",
                    f"{BANK_TILE}×{BANK_TILE + pad}" + (" (no padding)" if pad == 0 else f" (pad {pad})"),
                    value=str(pad),
                )
            )
        pad_select.value = str(self.pad)
        access_select = h("select", "", id="bank-access", data_testid="input-access")
        for kind in ACCESS_KINDS:
            access_select.appendChild(
                h(
                    "option",
                    "",
                    {
                        "row": "a row: tile[0][lane]",
                        "column": "a column: tile[lane][0]",
                        "broadcast": "one word: tile[0][0]",
                    }[kind],
                    value=kind,
                )
            )
        access_select.value = self.access
        on(pad_select, "change", lambda e: self.set_banks(int(pad_select.value), self.access))
        on(access_select, "change", lambda e: self.set_banks(self.pad, access_select.value))
        section.appendChild(
            h(
                "p",
                "",
                "Shared memory is split into 32 banks (lanes), each serving one 4-byte word per cycle. Threads of a warp that ask one bank for different words are served one after another.",
            )
        )
        section.appendChild(
            h(
                "div",
                "toolbar",
                children=[
                    h("label", "field", children=[h("span", "", "Tile"), pad_select]),
                    h("label", "field", children=[h("span", "", "A warp reads"), access_select]),
                ],
            )
        )
        verdict = (
            "no conflict"
            if report.degree <= 1
            else f"a {report.degree}-way conflict: {report.degree} serialized cycles"
        )
        extra = (
            f", one word broadcast to {report.threads} threads"
            if report.broadcast_words and report.degree == 1 and self.access == "broadcast"
            else ""
        )
        section.appendChild(
            h(
                "p",
                "",
                f"pysim: {report.banks_used} bank(s) used, busiest bank serves {report.degree} word(s) — {verdict}{extra}.",
                data_testid="bank-degree",
                data_value=str(report.degree),
            )
        )
        drawing = charts.picture(520, 150, f"32 bank lanes; busiest lane serves {report.degree} words")
        width = 500 / 32
        for bank, words in enumerate(report.words_per_bank):
            cls = "lane" if not words else ("lane-jam" if len(words) > 1 else "lane-hit")
            height = 10 + 3.5 * len(words)
            drawing.appendChild(
                svg(
                    "rect",
                    cls,
                    x=f"{10 + bank * width:.1f}",
                    y=f"{120 - height:.1f}",
                    width=f"{width - 2:.1f}",
                    height=f"{height:.1f}",
                )
            )
            if words:
                drawing.appendChild(
                    svg("text", text=str(len(words)), x=f"{12 + bank * width:.1f}", y=f"{115 - height:.1f}")
                )
        drawing.appendChild(svg("text", text="bank 0", x="10", y="138"))
        drawing.appendChild(svg("text", text="bank 31", x="470", y="138"))
        self.what_why_picture(
            section,
            "Modelled shared memory as 32 lanes.",
            "The counter is only fast if the team does not crowd one lane.",
            "Bars per bank: the number on each is how many different words that bank must serve (hatched red: serialized).",
            drawing,
        )

    def set_banks(self, pad: int, access: str) -> None:
        self.pad, self.access = pad, access
        section = self.sections[6]
        section.textContent = ""
        section.appendChild(h("h2", "", f"Step 6 — {TITLES[6]}", id="walk-title-6"))
        self.step6(section)
        self.write_address()

    def step7(self, section) -> None:
        w = self.walk
        d = w.device
        t1 = Walkthrough(HierarchyParams(N=w.N, T=1, device=d.key))
        section.appendChild(
            h(
                "p",
                "",
                f"T = 1: every value is used once, so tiled = naive = {t1.exact_tiled:,} loads (speedup {t1.speedup:.0f}×), and each block still pays {t1.barriers_per_block:,} barriers.",
            )
        )
        points = [(float(p.T), p.speedup) for p in w.sweep]
        thread_wall = next((p.T for p in w.sweep if p.over_threads), None)
        smem_wall = next((p.T for p in w.sweep if p.over_shared), None)
        walls = []
        if thread_wall:
            walls.append((thread_wall - 0.5, float(SWEEP_MAX_T), f"> {d.thread_limit:,} threads"))
        if smem_wall:
            walls.append((smem_wall - 0.5, float(SWEEP_MAX_T), "> shared memory"))
        section.appendChild(
            charts.line_chart(
                points,
                "Speedup of tiling over naive against T, with the hardware walls",
                "T",
                "speedup",
                highlight=float(w.T) if w.T <= SWEEP_MAX_T else None,
                walls=walls,
            )
        )
        section.appendChild(
            h(
                "p",
                "",
                (
                    f"Walls for the {d.name}: T×T threads must fit in {d.thread_limit:,} per block (T ≤ {w.largest_tile}); "
                    f"two tiles take 8·T² bytes against {d.shared_limit_bytes:,} bytes of static shared memory per block."
                ),
            )
        )
        if w.wall:
            section.appendChild(
                h("p", "input-error", f"Your T = {w.T} is past the wall: {w.wall}.", data_testid="wall-message")
            )
        else:
            section.appendChild(
                h(
                    "p",
                    "",
                    f"Your T = {w.T} fits: {w.T * w.T:,} threads, {8 * w.T * w.T:,} bytes of shared memory.",
                    data_testid="wall-message",
                )
            )
        self.what_why_picture(
            section,
            "Swept the boundary values of T.",
            "Every case must be shown, including when the trick fails.",
            "The T-vs-speedup curve: flat at 1 for T = 1, rising, then a red 'won't fit' wall.",
        )

    def build_summary(self) -> None:
        w = self.walk
        self.summary.textContent = ""
        self.summary.appendChild(h("h2", "", "The one-picture summary"))
        self.summary.appendChild(
            h(
                "p",
                "",
                (
                    f"One thread's {w.per_thread_loads:,} far walks (step 1) × {w.threads:,} threads = {w.naive_total:,} walks (step 2, full of duplicates). "
                    f"Park a {w.T}×{w.T} tile in shared memory (step 3), reuse each fetched value {w.T} times (step 4), and the walks fall to "
                    f"{w.exact_tiled:,} — {w.speedup:.2f}× fewer (step 5) — provided the 32 lanes are not jammed (step 6) and the tile fits (step 7)."
                ),
            )
        )

    def build_quiz(self) -> None:
        self.quiz_box.textContent = ""
        self.quiz_box.appendChild(h("h2", "", "Reveal-check"))
        items = h("ol", "")
        for question in quiz(self.walk):
            answer = h(
                "input",
                "",
                type="text",
                inputmode="numeric",
                id=f"quiz-{question.key}",
                data_testid=f"quiz-{question.key}",
                autocomplete="off",
            )
            feedback = h("p", "feedback", "", aria_live="polite", data_testid=f"quiz-{question.key}-feedback")
            button = h("button", "", "Check", type="button", data_testid=f"quiz-{question.key}-check")
            on(button, "click", lambda e, q=question, a=answer, f=feedback: self.mark(q, a, f))
            items.appendChild(
                h(
                    "li",
                    "",
                    children=[
                        h("label", "", question.prompt, for_=f"quiz-{question.key}"),
                        h("div", "", children=[answer, button]),
                        feedback,
                    ],
                )
            )
        self.quiz_box.appendChild(items)

    @staticmethod
    def mark(question, answer, feedback) -> None:
        right, text = check(question, str(answer.value))
        feedback.textContent = text
        feedback.className = "feedback right" if right else "feedback wrong"
