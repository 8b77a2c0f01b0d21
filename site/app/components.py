"""Reusable view pieces: counter board, code panel, matrix grid, verify badge.

Each builds its elements once and afterwards changes only what differs from
what it shows (text of a counter, class of a cell, highlighted code lines).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from pysim.counters import COUNTER_LABELS, Counters

from .dom import fmt, h, on, set_number_markup, svg, thousands

COUNTER_NOTES = {
    "global_loads": "element loads from global memory (L2 may serve some: not the same as DRAM reads)",
    "global_sectors": "32-byte sectors touched by warp-wide global loads",
    "bank_extra_cycles": "cycles lost to shared-memory bank conflicts",
}


class CounterBoard:
    """Counters with data-testid="counter-<name>" and the exact integer in data-value."""

    def __init__(self, names: Iterable[str]) -> None:
        self.board = h("dl", "counters", data_testid="counters")
        note = h(
            "p",
            "hint",
            "“Global loads” counts element loads from global memory; the L2 cache may serve some of them, "
            "so they are not DRAM reads. Hover a counter for its definition.",
        )
        self.element = h("div", "counter-board", children=[self.board, note])
        self.values: dict[str, object] = {}
        self.shown: dict[str, int] = {}
        for name in names:
            value = h("dd", "counter-value", "0", data_testid=f"counter-{name}", data_value="0")
            title = h("dt", "counter-name", COUNTER_LABELS[name])
            if name in COUNTER_NOTES:
                title.setAttribute("title", COUNTER_NOTES[name])
            self.board.appendChild(h("div", "counter", children=[title, value]))
            self.values[name] = value

    def show(self, counters: Counters) -> None:
        for name, element in self.values.items():
            value = getattr(counters, name)
            if self.shown.get(name) != value:
                element.textContent = thousands(value)
                element.setAttribute("data-value", str(value))
                self.shown[name] = value


class CodePanel:
    """The CUDA source with its constants filled in and the executing lines highlighted."""

    def __init__(self, label: str) -> None:
        self.element = h("pre", "code", tabindex="0", aria_label=label)
        self.lines: list = []
        self.current: tuple[int, ...] = ()

    def load(self, lines: list[str]) -> None:
        self.element.textContent = ""
        self.lines = []
        for number, text in enumerate(lines, start=1):
            line = h("span", "line", text or " ", data_line=str(number))
            self.element.appendChild(line)
            self.lines.append(line)
        self.current = ()

    def highlight(self, lines: tuple[int, ...]) -> None:
        """Mark the listing lines (1-based) of the statement being executed."""
        if lines == self.current:
            return
        for number in self.current:
            self.lines[number - 1].classList.remove("executing")
            self.lines[number - 1].removeAttribute("aria-current")
        for number in lines:
            self.lines[number - 1].classList.add("executing")
            self.lines[number - 1].setAttribute("aria-current", "step")
        self.current = lines


class MatrixGrid:
    """A rows×cols grid of value cells; per step only changed classes and values are written."""

    def __init__(self, name: str, caption: str, on_click: Callable[[int, int], None] | None = None) -> None:
        self.name = name
        self.caption = h("figcaption", "", caption)
        self.cells_element = h("div", "matrix", role="group", aria_label=caption, data_testid=f"grid-{name}")
        # A wide grid scrolls sideways, so it must be reachable by keyboard.
        self.element = h("figure", f"grid grid-{name}", tabindex="0", children=[self.caption, self.cells_element])
        self.cells: list = []
        self.shape = (0, 0)
        self.classes: dict[int, str] = {}
        self.values = np.zeros(0)
        if on_click is not None:
            on(self.cells_element, "click", lambda event: self._clicked(event, on_click))

    def _clicked(self, event, on_click: Callable[[int, int], None]) -> None:
        cell = event.target.closest(".cell")
        if cell:
            on_click(int(cell.getAttribute("data-r")), int(cell.getAttribute("data-c")))

    def resize(self, rows: int, cols: int, caption: str) -> None:
        self.caption.textContent = caption
        self.cells_element.setAttribute("aria-label", caption)
        self.cells_element.style.setProperty("--cols", str(cols))
        markup = "".join(
            f'<span class="cell" data-r="{r}" data-c="{c}"></span>' for r in range(rows) for c in range(cols)
        )
        set_number_markup(self.cells_element, markup)
        children = self.cells_element.children
        self.cells = [children.item(i) for i in range(rows * cols)]
        self.shape = (rows, cols)
        self.classes = {}
        self.values = np.full(rows * cols, np.nan)

    def label_cell(self, row: int, col: int, label: str) -> None:
        """A small corner label (CSS draws it from data-label), e.g. the thread owning a patch."""
        self.cell(row, col).setAttribute("data-label", label)

    def cell(self, row: int, col: int):
        return self.cells[row * self.shape[1] + col]

    def show(self, values: np.ndarray | None, marks: dict[tuple[int, int], str]) -> None:
        """Write changed values (NaN shows blank) and set each marked cell's classes."""
        if values is not None:
            flat = np.asarray(values, dtype=np.float64).reshape(-1)[: len(self.cells)]
            changed = np.nonzero(~((flat == self.values) | (np.isnan(flat) & np.isnan(self.values))))[0]
            for i in changed:
                self.cells[i].textContent = fmt(flat[i])
            self.values = flat.copy()
        cols = self.shape[1]
        wanted = {r * cols + c: cls for (r, c), cls in marks.items() if r < self.shape[0] and c < cols}
        for i in set(self.classes) | set(wanted):
            cls = wanted.get(i, "")
            if self.classes.get(i, "") != cls:
                self.cells[i].className = f"cell {cls}".strip()
        self.classes = wanted


def add_marks(marks: dict[tuple[int, int], str], cells: Iterable[tuple[int, int]], cls: str) -> None:
    for cell in cells:
        marks[cell] = f"{marks[cell]} {cls}" if cell in marks else cls


class VerifyBadge:
    """data-testid="verify": "pending" while the threads' stores are being simulated, then "ok" when
    the C they stored equals NumPy's answer, "mismatch" when it does not."""

    def __init__(self) -> None:
        self.element = h("p", "verify", "C not checked yet", data_testid="verify", data_value="pending")

    def pending(self, done: int, total: int) -> None:
        self.element.setAttribute("data-value", "pending")
        self.element.textContent = f"Checking C: {done:,} of {total:,} blocks simulated…"
        self.element.className = "verify"

    def show(self, mismatches: int, elements: int, expected: str) -> None:
        ok = mismatches == 0
        self.element.setAttribute("data-value", "ok" if ok else "mismatch")
        self.element.setAttribute("data-mismatches", str(mismatches))
        self.element.textContent = (
            f"✓ C verified: the {elements:,} values the threads stored equal NumPy's {expected}"
            if ok
            else f"✗ C is wrong: {mismatches:,} of {elements:,} stored values differ from NumPy's {expected} (or were never stored)"
        )
        self.element.className = "verify ok" if ok else "verify bad"


class ArrowLayer:
    """An SVG layer over a container, drawing arrows between cells of its grids (cooperative loads)."""

    def __init__(self, container) -> None:
        self.container = container
        self.element = svg("svg", "arrows", aria_hidden="true")
        defs = svg("defs")
        marker = svg(
            "marker",
            id="load-head",
            viewBox="0 0 8 8",
            refX="7",
            refY="4",
            markerWidth="6",
            markerHeight="6",
            orient="auto",
        )
        marker.appendChild(svg("path", "arrow-head", d="M0,0 L8,4 L0,8 z"))
        defs.appendChild(marker)
        self.element.appendChild(defs)
        self.lines = svg("g")
        self.element.appendChild(self.lines)
        container.appendChild(self.element)
        self.drawn = False

    def clear(self) -> None:
        if self.drawn:
            self.lines.textContent = ""
            self.drawn = False

    def draw(self, pairs: list[tuple[object, object, bool]]) -> None:
        """Arrows from each source cell to its target cell; the flagged ones are emphasised."""
        self.clear()
        box = self.container.getBoundingClientRect()
        self.element.setAttribute("width", str(self.container.scrollWidth))
        self.element.setAttribute("height", str(self.container.scrollHeight))
        # Read every position before adding any line, so the browser lays out once.
        boxes = [
            (source.getBoundingClientRect(), target.getBoundingClientRect(), emphasised)
            for source, target, emphasised in pairs
        ]
        for a, b, emphasised in boxes:
            self.lines.appendChild(
                svg(
                    "line",
                    "load-arrow followed" if emphasised else "load-arrow",
                    x1=f"{a.left + a.width / 2 - box.left:.1f}",
                    y1=f"{a.top + a.height / 2 - box.top:.1f}",
                    x2=f"{b.left + b.width / 2 - box.left:.1f}",
                    y2=f"{b.top + b.height / 2 - box.top:.1f}",
                )
            )
        self.drawn = bool(pairs)


def memory_panel(spaces: list[tuple[str, str, list]]):
    """The memory spaces side by side: (css kind, heading, children) each."""
    return h(
        "div",
        "memory",
        children=[
            h("section", f"space {kind}", children=[h("h2", "", title), *children]) for kind, title, children in spaces
        ],
    )


MEMORY_KEY = (
    ("g-load", "loaded from global memory this step"),
    ("s-store", "written to shared memory"),
    ("zero-fill", "zero-filled (edge)"),
    ("s-read", "read from shared memory this step"),
)
RESULT_KEY = (("c-store", "stored to C"), ("in-tile", "current block tile / slice"))


def legend(view_entries: tuple[tuple[str, str], ...]):
    """Colour key: the memory events, the view's own marks, then C; each swatch also has an outline or pattern."""
    element = h("ul", "legend", aria_label="Legend")
    for cls, text in (*MEMORY_KEY, *view_entries, *RESULT_KEY):
        element.appendChild(h("li", "", children=[h("span", f"swatch {cls}", aria_hidden="true"), h("span", "", text)]))
    return element


def monitor_table(caption: str, head_row, body):
    """The thread monitor: one row per thread, scrollable (so focusable) when wide."""
    return h(
        "table",
        "monitor",
        data_testid="monitor",
        tabindex="0",
        children=[h("caption", "", caption), h("thead", "", children=[head_row]), body],
    )


def code_section(code: CodePanel):
    return h("section", "code-panel", children=[h("h2", "", "The kernel"), code.element])
