"""The walkthrough's SVG pictures: pure functions from pysim's numbers to drawings."""

from __future__ import annotations

from pysim.core import words as wording
from pysim.core.constants import NUM_BANKS
from pysim.lessons.walkthrough import SWEEP_MAX_T, Walkthrough, bank_picture

from ...core.dom import svg
from ...widgets import charts
from ...widgets.chartmath import text_width
from .numbers import LEVELS, WIDTH

LADDER_LEVELS = {"register": "register", "shared": "shared", "l2": "global", "global": "global"}  # SPEC §7 data-level


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
    figures = [(name, getattr(d, field).value, key) for name, field, key in LEVELS]
    longest = max(v for _, v, _ in figures)
    x0 = 120
    room = WIDTH - x0 - text_width(f"≈ {longest:g} cycles") - 16
    drawing.appendChild(text("distance from the thread (latency in the model, to scale) →", x0, 16, cls="caption"))
    for i, (name, value, key) in enumerate(figures):
        y = 30 + i * 44
        length = max(value / longest * room, 3)
        drawing.appendChild(text(name, 4, y + 19))
        # The L2 cache holds global memory's lines: global's colour, dashed (a cache, not the memory itself).
        level = LADDER_LEVELS[key]
        bar = svg("rect", f"shelf rung-{key}", x=str(x0), y=str(y), width=f"{length:.1f}", height="28", rx="3")
        bar.setAttribute("data-level", level)
        drawing.appendChild(bar)
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
    # The stacks are 4 px a word: say in words what they show (issue 39: the small chart was unreadable).
    tallest = max(range(NUM_BANKS), key=lambda bank: len(report.words_per_bank[bank]))
    count = len(report.words_per_bank[tallest])
    if count > 1:
        top = 170 - count * 4.4 - 4
        note = f"bank {tallest}: {count} words, one per clock"
        drawing.appendChild(charts.label(note, x0 + tallest * width + 8, max(top + 12, 40), x0, x0 + panel))
    else:
        drawing.appendChild(charts.label("every bank: one word, all in one clock", x0, 156, x0, x0 + panel))
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
    # Its title in the picture (issue 39: it had none, under the before/after chart that has captions).
    drawing.appendChild(
        charts.label(
            f"Your tile and access: the different words each bank serves (busiest: {report.degree})",
            10,
            12,
            10,
            WIDTH - 10,
        )
    )
    for bank, words in enumerate(report.words_per_bank):
        cls = "lane" if not words else ("lane-jam" if len(words) > 1 else "lane-hit")
        height = 6 + 96 * len(words) / tallest
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
