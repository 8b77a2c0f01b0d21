"""#/hierarchy: the memory-hierarchy walkthrough (seed 002), steps 0-7.

The prose is static HTML (site/partials/hierarchy.html) with number slots; this module fills
them from pysim's Walkthrough, shows the sentences that apply (`data-when`), draws the SVG
pictures, and wires the controls once."""

from __future__ import annotations

from pyodide.ffi import create_proxy
from pyscript import window

from pysim.core import words as wording
from pysim.core.banks import ACCESS_KINDS
from pysim.core.constants import NUM_BANKS
from pysim.hardware.params import HierarchyParams, ParamError, parse_int
from pysim.lessons.walkthrough import SWEEP_MAX_T, Walkthrough, bank_picture, check, quiz, quiz_example

from ..core import slots
from ..core.dom import h, on, svg
from ..core.score import walkthrough_key
from ..core.tries import Reply, after_try, feedback_class, shown
from ..widgets import charts
from ..widgets.chartmath import text_width
from ..widgets.checkpoint import shared_book
from ..widgets.form import ParamForm

STEPS = 8
ASSUMED_TEXT = "none: a modelled assumption"  # the Source cell of a latency no published statement gives
WIDTH = 560  # every picture's viewBox width (the partial reserves the same boxes)
LEVELS = (
    ("Registers", "latency_register", "register"),
    ("Shared memory", "latency_shared", "shared"),
    ("L2 cache", "latency_l2", "l2"),
    ("Global memory", "latency_global", "global"),
)


# --- pure helpers: numbers to slot text --------------------------------------
def count(value: float) -> int | str:
    """A load count that may be fractional (2N³/T): an int when whole, else two decimals."""
    return int(value) if value == int(value) else f"{value:,.2f}"


def slot_values(w: Walkthrough) -> dict[str, object]:
    d = w.device
    example = quiz_example(w.params)
    values: dict[str, object] = {
        "N": w.N,
        "T": w.T,
        "threads": w.threads,
        "threads-text": wording.count(w.threads, "thread"),
        "per-thread-loads": w.per_thread_loads,
        "naive-total": w.naive_total,
        "tiles-per-row": w.tiles_per_row,
        "slice-loads": w.slice_loads,
        "slice-values": wording.count(w.slice_loads, "value"),
        "tiled-total": w.exact_tiled,
        "ideal": count(w.ideal_tiled),
        "full-blocks": w.full_blocks,
        "edge-width": w.edge_width,
        "edge-times": wording.count(w.edge_width, "time"),
        "edge-excess": count(w.edge_excess),
        "floor-loads": w.floor_loads,
        "reuse": w.reuse,
        "reuse-threads": wording.count(w.reuse, "thread"),
        "reuse-times": wording.count(w.reuse, "time"),
        "reuse-cells": wording.count(w.reuse, "output cell"),
        "reuse-uses": wording.count(w.reuse, "use"),
        "reduction": f"{w.reduction:.2f}",
        "bound-text": w.timing.bound,
        "estimate-text": w.timing.estimate,
        "no-time": w.timing.reason,
        "no-reuse": w.no_reuse_text,
        "device-name": d.name,
        "latency-ratio": f"{w.latency_ratio:.0f}",
        "l2-size": f"{d.l2_size.value:g} MB",
        "block-threads": w.block_threads,
        "block-threads-text": wording.count(w.block_threads, "thread"),
        "shared-bytes": w.shared_bytes,
        "thread-limit": d.thread_limit,
        "shared-limit": d.shared_limit_bytes,
        "largest-tile": w.largest_tile,
        "largest-bytes": Walkthrough(HierarchyParams(N=w.N, T=w.largest_tile, device=d.key)).shared_bytes,
        "t1-barriers": Walkthrough(HierarchyParams(N=w.N, T=1, device=d.key)).barriers_per_block,
        "bank-before": bank_picture(0, "column").degree,
        "bank-after": bank_picture(1, "column").degree,
        "quiz-N": example.N,
        "quiz-T": example.T,
        "quiz-naive": example.naive_total,
        "quiz-tiles": example.tiles_per_row,
        "quiz-tiled": example.exact_tiled,
    }
    for _, field, short in LEVELS:
        figure = getattr(d, field)
        values[f"lat-{short}"] = f"{figure.value:g}"
        values[f"alt-{short}"] = figure.alternative or "—"
    return values


def latency_sources(w: Walkthrough) -> list[tuple[str, str | None, str]]:
    """(field, link or None, link text) for the ladder table's Source column: a modelled assumption has no link."""
    rows = []
    for _, field, _ in LEVELS:
        figure = getattr(w.device, field)
        rows.append((field, None, ASSUMED_TEXT) if figure.assumed else (field, figure.source, "source"))
    return rows


def cases(w: Walkthrough) -> dict[str, bool]:
    """Which alternative sentences (data-when) apply."""
    chosen = w.fit
    return {
        "divides": w.divides and not w.capped,
        "edge": not w.divides and not w.capped,
        "capped": w.capped,
        "timed": w.timing.timed,
        "traffic": bool(w.no_reuse_text),
        "untimed": not w.timing.timed,
        "fits": chosen.wall is None,
        "wall": chosen.wall is not None,
        "over-threads": chosen.over_threads,
        "over-shared": chosen.over_shared,
    }


# --- pictures: pure functions from numbers to SVG ----------------------------
def arrow(x1: float, y1: float, x2: float, y2: float, kind: str = "long"):
    return svg("line", f"arrow-{kind}", x1=f"{x1:.1f}", y1=f"{y1:.1f}", x2=f"{x2:.1f}", y2=f"{y2:.1f}")


def text(value: str, x: float, y: float, anchor: str = "start", cls: str = ""):
    return charts.label(value, x, y, 4, WIDTH - 4, anchor, cls)


def cell(x: float, y: float, size: float, cls: str):
    return svg("rect", cls, x=f"{x:.1f}", y=f"{y:.1f}", width=f"{size - 2:.1f}", height=f"{size - 2:.1f}")


def ladder_picture(w: Walkthrough):
    """Step 0: one bar per storage place, length proportional to the latency the model uses (linear scale)."""
    d = w.device
    drawing = charts.picture(WIDTH, 210, f"Distance ladder for the {d.name}, drawn to scale")
    figures = [(name, getattr(d, field).value) for name, field, _ in LEVELS]
    longest = max(v for _, v in figures)
    x0 = 120
    room = WIDTH - x0 - text_width(f"≈ {longest:g} cycles") - 16
    drawing.appendChild(text("distance from the thread (latency in the model, to scale) →", x0, 16, cls="caption"))
    for i, (name, value) in enumerate(figures):
        y = 30 + i * 44
        length = max(value / longest * room, 3)
        drawing.appendChild(text(name, 4, y + 19))
        drawing.appendChild(svg("rect", "shelf", x=str(x0), y=str(y), width=f"{length:.1f}", height="28", rx="3"))
        drawing.appendChild(text(f"≈ {value:g} {wording.plural(value, 'cycle')}", x0 + length + 6, y + 19))
    return drawing


def thread_picture(w: Walkthrough):
    """Step 1: one thread and its 2N arrows into global memory (up to 32 drawn)."""
    shown = min(w.per_thread_loads, 32)
    drawing = charts.picture(WIDTH, 210, f"One thread's {w.per_thread_loads:,} arrows to global memory")
    drawing.appendChild(svg("rect", "shelf", x="400", y="14", width="150", height="160", rx="6"))
    drawing.appendChild(text("global memory", 475, 98, "middle"))
    drawing.appendChild(svg("circle", "point", cx="40", cy="94", r="10"))
    drawing.appendChild(text("thread", 40, 124, "middle"))
    for i in range(shown):
        y = 22 + i * 144 / max(shown - 1, 1) if shown > 1 else 94
        drawing.appendChild(arrow(52, 94, 396, y))
    caption = (
        f"all {shown:,} arrows drawn"
        if shown == w.per_thread_loads
        else f"{shown} of {w.per_thread_loads:,} arrows drawn"
    )
    drawing.appendChild(text(caption, 280, 200, "middle", "caption"))
    return drawing


def naive_picture(w: Walkthrough):
    """Step 2: every thread of row 0 of C fetches the same row 0 of A (one arrow per thread)."""
    side = min(w.N, 8)
    size = 18
    top = 110
    drawing = charts.picture(WIDTH, 280, "The same row of A is fetched by every thread of that row of C")
    drawing.appendChild(text(f"row 0 of A ({wording.count(w.N, 'value')})", 20, top - 10))
    for c in range(side):
        drawing.appendChild(cell(20 + c * size, top, size, "row-hot"))
    gx = 340
    for r in range(side):
        for c in range(side):
            drawing.appendChild(cell(gx + c * size, top + r * size, size, "row-hot" if r == 0 else "lane"))
    drawing.appendChild(text("C: one thread per cell", gx, top + side * size + 15))
    start_x = 20 + side * size
    for c in range(side):
        end_x = gx + c * size + size / 2 - 1
        lift = 30 + 9 * c
        drawing.appendChild(
            svg(
                "path",
                "arrow-long",
                d=f"M{start_x:.1f},{top + 4} Q{(start_x + end_x) / 2:.1f},{top - 2 * lift:.1f} {end_x:.1f},{top - 3}",
            )
        )
    lines = (
        f"each of the {w.N:,} threads of row 0 of C" if w.N > 1 else "the one thread of row 0 of C",
        "loads this same row of A, so it is",
        f"fetched {wording.count(w.N, 'time')}",
    )
    for i, line in enumerate(lines):
        drawing.appendChild(svg("text", "caption", text=line, x="20", y=f"{top + 50 + i * 18}"))
    return drawing


def tile_picture(w: Walkthrough):
    """Step 3: long arrows from global memory into the shared tile, short arrows out to the threads using it."""
    shown, users = min(w.T, 8), min(w.reuse, 6)
    drawing = charts.picture(WIDTH, 210, "Long arrows into a shared tile, many short arrows out")
    drawing.appendChild(svg("rect", "shelf", x="10", y="20", width="100", height="160", rx="6"))
    drawing.appendChild(text("global", 60, 104, "middle"))
    drawing.appendChild(svg("rect", "tile-box", x="230", y="50", width="90", height="90", rx="4"))
    drawing.appendChild(text(f"{w.T}×{w.T} tile", 275, 160, "middle"))
    drawing.appendChild(text("in shared memory", 275, 176, "middle"))
    for i in range(shown):
        drawing.appendChild(arrow(110, 30 + i * 20, 226, 58 + i * 10))
    for j in range(users):
        y = 40 + j * 22
        drawing.appendChild(svg("circle", "point", cx="470", cy=f"{y}", r="6"))
        drawing.appendChild(arrow(322, 95, 460, y, "short"))
    drawing.appendChild(
        text(f"each value used by up to {wording.count(w.reuse, 'thread')}", 550, 196, "end", "caption")
    )
    return drawing


def reuse_picture(w: Walkthrough):
    """Step 4: one row of the A tile, loaded once from global memory, feeds `reuse` cells of a row of C."""
    shown = min(w.T, w.N, 8)
    size = 20
    x0 = (WIDTH - shown * size) / 2
    drawing = charts.picture(WIDTH, 200, "One loaded row of an A tile feeding a row of C")
    drawing.appendChild(text("global", 20, 24))
    drawing.appendChild(arrow(50, 30, x0 - 4, 50))
    drawing.appendChild(text("one row of the A tile, in shared memory", WIDTH / 2, 30, "middle"))
    for c in range(shown):
        drawing.appendChild(cell(x0 + c * size, 40, size, "row-used"))
    uses = min(w.reuse, 16)
    step = min(30, (WIDTH - 40) / uses)
    cx0 = (WIDTH - uses * step) / 2
    for j in range(uses):
        x = cx0 + j * step
        drawing.appendChild(cell(x + (step - 16) / 2, 130, 16, "row-hot"))
        drawing.appendChild(arrow(WIDTH / 2, 62, x + step / 2 - 1, 126, "short"))
    more = f", {uses} drawn" if uses < w.reuse else ""
    drawing.appendChild(
        text(f"a row of C: 1 load → {wording.count(w.reuse, 'use')}{more}", WIDTH / 2, 168, "middle", "caption")
    )
    return drawing


def bars_picture(w: Walkthrough):
    """Step 5: naive, tiled and least-possible counts; the naive-tiled gap labelled with the factor."""
    bars = [
        ("naive 2N³", w.naive_total, "bar-naive"),
        ("tiled", w.exact_tiled, "bar-tiled"),
        ("least 2N²", w.floor_loads, "bar-floor"),
    ]
    return charts.bar_chart(
        bars,
        f"Global loads: naive against tiled, {w.reduction:.2f}× fewer",
        width=WIDTH,
        factor=f"{w.reduction:.2f}× fewer global loads",
    )


def bank_panel(drawing, report, x0: float, panel: float, caption: str):
    """Step 6, one panel: every word the warp asks for, stacked in its bank's column."""
    width = panel / NUM_BANKS
    for bank, words in enumerate(report.words_per_bank):
        cls = "lane-jam" if len(words) > 1 else "lane-hit"
        for k in range(len(words)):
            drawing.appendChild(
                svg(
                    "rect",
                    cls,
                    x=f"{x0 + bank * width:.1f}",
                    y=f"{170 - (k + 1) * 4.4:.1f}",
                    width=f"{width - 1.5:.1f}",
                    height="3.6",
                )
            )
    drawing.appendChild(svg("line", "axis", x1=f"{x0}", y1="171", x2=f"{x0 + panel}", y2="171"))
    drawing.appendChild(charts.label(caption, x0, 16, x0, x0 + panel))
    drawing.appendChild(charts.label("bank 0", x0, 188, x0, x0 + panel))
    drawing.appendChild(charts.label("bank 31", x0 + panel, 188, x0, x0 + panel, "end"))


def banks_before_after_picture():
    before, after = bank_picture(0, "column"), bank_picture(1, "column")
    drawing = charts.picture(WIDTH, 200, "A warp reads a column: 32×32 tile against 32×33 tile")
    bank_panel(drawing, before, 10, 260, f"32×32: {before.degree}-way conflict")
    bank_panel(drawing, after, 290, 260, "32×33: no conflict" if after.degree <= 1 else f"32×33: {after.degree}-way")
    return drawing


def banks_picture(report):
    """Step 6, explorer: one bar per bank, height and label = different words it serves."""
    drawing = charts.picture(WIDTH, 170, f"32 banks; the busiest serves {wording.count(report.degree, 'word')}")
    width = (WIDTH - 20) / NUM_BANKS
    tallest = max(report.degree, 1)
    for bank, words in enumerate(report.words_per_bank):
        cls = "lane" if not words else ("lane-jam" if len(words) > 1 else "lane-hit")
        height = 6 + 108 * len(words) / tallest
        x = 10 + bank * width
        drawing.appendChild(
            svg("rect", cls, x=f"{x:.1f}", y=f"{140 - height:.1f}", width=f"{width - 2:.1f}", height=f"{height:.1f}")
        )
        if words:
            drawing.appendChild(text(str(len(words)), x + width / 2 - 1, 136 - height, "middle"))
    drawing.appendChild(text("bank 0", 10, 160))
    drawing.appendChild(text("bank 31", WIDTH - 10, 160, "end"))
    return drawing


def sweep_picture(w: Walkthrough):
    """Step 7: the reduction against T, with the device's walls shaded and labelled."""
    d = w.device
    points = [(float(p.T), p.speedup) for p in w.sweep]
    thread_wall = next((p.T for p in w.sweep if p.over_threads), None)
    smem_wall = next((p.T for p in w.sweep if p.over_shared), None)
    walls = []
    if thread_wall:
        walls.append((thread_wall - 0.5, float(SWEEP_MAX_T), f"T > {thread_wall - 1}: over {d.thread_limit:,} threads"))
    if smem_wall:
        walls.append(
            (smem_wall - 0.5, float(SWEEP_MAX_T), f"T > {smem_wall - 1}: over {d.shared_limit_bytes:,} B shared memory")
        )
    return charts.line_chart(
        points,
        "Global-load reduction against T, with the hardware walls",
        "T (tile width)",
        "global-load reduction (×)",
        highlight=float(w.T) if w.T <= SWEEP_MAX_T else None,
        walls=walls,
        width=WIDTH,
        height=280,
        highlight_label=f"T = {w.T}: {w.reduction:.2f}×",
    )


# --- the view: owns the DOM --------------------------------------------------
class HierarchyView:
    def __init__(self, container, navigate) -> None:
        self.root = container
        self.navigate = navigate
        self.params: HierarchyParams | None = None
        self.walk: Walkthrough | None = None
        self.step = 0
        self.pad = 0
        self.access = "column"
        self.answers: dict[str, object] = {}
        self.tries: dict[str, int] = {}  # numeric tries per question since the sizes last changed
        self.form = ParamForm(HierarchyParams, self.apply, legend="Problem (N×N matrices, T×T tiles)")
        self.part("form").appendChild(self.form.element)
        self.prev = self.find('[data-testid="prev"]')
        self.next = self.find('[data-testid="step"]')
        self.sections = [self.find(f'[data-testid="walk-step-{i}"]') for i in range(STEPS)]
        self.pad_select = self.find('[data-testid="input-pad"]')
        self.access_select = self.find('[data-testid="input-access"]')
        # Bound once; every later change only updates text, attributes and pictures.
        on(self.prev, "click", lambda e: self.go(self.step - 1))
        on(self.next, "click", lambda e: self.go(self.step + 1))
        on(self.pad_select, "change", lambda e: self.set_banks(int(self.pad_select.value), self.access))
        on(self.access_select, "change", lambda e: self.set_banks(self.pad, str(self.access_select.value)))
        forms = container.querySelectorAll("form[data-quiz]")
        for i in range(forms.length):
            form = forms.item(i)
            on(form, "submit", self.mark)
            # Offered after a wrong first try, beside Check (so Tab reaches it next).
            show = h(
                "button",
                "show-answer",
                "Show the answer",
                type="button",
                hidden="",
                data_testid=f"quiz-{form.dataset.quiz}-show",
            )
            form.querySelector("div").appendChild(show)
            on(show, "click", lambda event, form=form: self.reply(form, None, shown(self.answer_text(form))))
        for control in (self.prev, self.next, self.pad_select, self.access_select):
            control.disabled = False
        for i in range(forms.length):
            forms.item(i).querySelector("button").disabled = False
        self.scroll_proxy = create_proxy(lambda timestamp: self.scroll_to_step())

    def find(self, selector: str):
        return self.root.querySelector(selector)

    def part(self, name: str):
        return self.find(f'[data-part="{name}"]')

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
        self.load(params)
        self.set_banks(pad, access, write=False)
        self.go(step, scroll=False)
        if "step" in raw:  # a deep link to a step: scroll once the page has settled (after the boot banner goes)
            window.requestAnimationFrame(self.scroll_proxy)

    def apply(self, params: HierarchyParams) -> None:
        self.form.clear_error()
        self.load(params)
        self.write_address()

    def load(self, params: HierarchyParams) -> None:
        self.params = params
        self.walk = w = Walkthrough(params)
        self.form.show(params)
        slots.fill(self.root, slot_values(w))
        for case, visible in cases(w).items():
            slots.show(self.root, f'[data-when="{case}"]', visible)
        speed = self.find('[data-testid="speedup"]')
        speed.setAttribute("data-value", f"{w.reduction:.6f}")
        for testid, name, value in w.timing.attributes():
            self.find(f'[data-testid="{testid}"]').setAttribute(name, value)
        for field, href, label in latency_sources(w):
            link = self.find(f'[data-source="{field}"]')
            link.textContent = label
            if href is None:
                link.removeAttribute("href")
            else:
                link.setAttribute("href", href)
        self.part("defaults-note").setAttribute("data-filled", "")  # keeps its line: nothing below jumps
        for name, drawing in (
            ("ladder", ladder_picture(w)),
            ("thread", thread_picture(w)),
            ("naive", naive_picture(w)),
            ("tile", tile_picture(w)),
            ("reuse", reuse_picture(w)),
            ("bars", bars_picture(w)),
            ("banks-before-after", banks_before_after_picture()),
            ("sweep", sweep_picture(w)),
        ):
            self.draw(name, drawing)
        self.answers = {question.key: question for question in quiz(w)}
        self.reset_quiz()

    def draw(self, name: str, drawing) -> None:
        """Put a freshly drawn picture in place of the one the partial reserved (same viewBox)."""
        drawing.setAttribute("data-picture", name)
        self.find(f'[data-picture="{name}"]').replaceWith(drawing)

    def set_banks(self, pad: int, access: str, write: bool = True) -> None:
        self.pad, self.access = pad, access
        self.pad_select.value = str(pad)
        self.access_select.value = access
        report = bank_picture(pad, access)
        slots.fill(
            self.root, {"bank-degree": report.degree, "banks-used": report.banks_used, "bank-threads": report.threads}
        )
        broadcast = access == "broadcast" and report.broadcast_words > 0 and report.degree == 1
        slots.show(self.root, '[data-when="conflict"]', report.degree > 1)
        slots.show(self.root, '[data-when="no-conflict"]', report.degree <= 1)
        slots.show(self.root, '[data-when="broadcast"]', broadcast)
        self.draw("banks", banks_picture(report))
        if write:
            self.write_address()

    def go(self, step: int, scroll: bool = True) -> None:
        self.step = max(0, min(step, STEPS - 1))
        for i, section in enumerate(self.sections):
            if i == self.step:
                section.setAttribute("aria-current", "step")
            else:
                section.removeAttribute("aria-current")
        self.prev.disabled = self.step == 0
        self.next.disabled = self.step == STEPS - 1
        self.part("position").textContent = f"step {self.step} of {STEPS - 1}"
        if scroll:
            self.scroll_to_step()
        self.write_address()

    def scroll_to_step(self) -> None:
        # This document only: scrollIntoView would also scroll a course page that embeds us in a frame.
        # The step lands just below the sticky bar (its form and Back/Next, or on a phone Back/Next alone).
        bar = max(self.part("walk-bar").offsetHeight, self.find(".steps-nav").offsetHeight)
        window.scrollTo(0, self.sections[self.step].getBoundingClientRect().top + window.scrollY - bar - 8)

    def write_address(self) -> None:
        values = self.params.as_strings() | {"step": str(self.step)}
        if self.pad or self.access != "column":
            values |= {"pad": str(self.pad), "access": self.access}
        self.navigate(values)

    def key(self, event) -> bool:
        moves = {"ArrowRight": self.step + 1, "ArrowLeft": self.step - 1, "Home": 0, "End": STEPS - 1}
        if event.key not in moves:
            return False
        self.go(moves[event.key])
        return True

    # --- the quiz ------------------------------------------------------------
    def reset_quiz(self) -> None:
        self.tries = {}
        forms = self.root.querySelectorAll("form[data-quiz]")
        for i in range(forms.length):
            feedback = forms.item(i).querySelector(".feedback")
            feedback.textContent = ""
            feedback.className = "feedback"
            forms.item(i).querySelector(".explain").setAttribute("hidden", "")
            forms.item(i).querySelector(".show-answer").setAttribute("hidden", "")
            recorded = shared_book().recorded(walkthrough_key(str(forms.item(i).dataset.quiz)))
            if recorded is not None:  # answered in an earlier session of a course package: show it again
                forms.item(i).querySelector("input").value = recorded.text
                feedback.textContent = "Your recorded answer: " + ("right." if recorded.correct else "not right.")
                feedback.className = "feedback right" if recorded.correct else "feedback wrong"
                forms.item(i).querySelector(".explain").removeAttribute("hidden")

    def answer_text(self, form) -> str:
        return f"{self.answers[str(form.dataset.quiz)].answer:,}"

    def mark(self, event) -> None:
        """Enter in the box or the Check button: pysim marks the answer; a wrong first try may try again."""
        event.preventDefault()
        form = event.currentTarget
        key, text = str(form.dataset.quiz), str(form.querySelector("input").value)
        right, verdict = check(self.answers[key], text)
        if right is None:  # not a number: not a try, and what was shown stays
            feedback = form.querySelector(".feedback")
            feedback.textContent = verdict
            feedback.className = "feedback"
            return
        shared_book().record(walkthrough_key(key), right, text)  # kept only if it is the first answer
        self.tries[key] = self.tries.get(key, 0) + 1
        self.reply(form, right, after_try(right, self.tries[key], self.answer_text(form)))

    def reply(self, form, right: bool | None, reply: Reply) -> None:
        feedback = form.querySelector(".feedback")
        feedback.textContent = reply.verdict
        feedback.className = feedback_class(right)
        slots.show(form, ".explain", reply.reveal)
        slots.show(form, ".show-answer", reply.offer)
