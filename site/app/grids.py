"""Matrix grids: one element per cell for small matrices, one <canvas> for big ones.

Both draw the same marks (CSS classes such as `g-load`, `zero-fill`, `followed`)
from the same per-step diff, so a view does not know which it has. A 64×64
matrix as elements is 4,096 nodes (three of them make the page slow to step and
to collect); as a canvas it is one node. The canvas takes its colours from the
same CSS classes (read from a hidden probe cell), draws each class's second cue
(hatching, outlines, dashes), answers clicks, and is keyboard-operable: the arrow
keys move a cursor whose cell is described in a live region, Enter follows it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pyscript import document, window

from .components import MEMORY_KEY, RESULT_KEY
from .dom import fmt, h, on, set_number_markup

# Above this many cells a matrix is drawn on a canvas (a 32×32 matrix still has one element per cell).
CANVAS_ABOVE_CELLS = 1024
CANVAS_PITCH = 28  # px per cell, gap included: the element grid's 1.7rem cells plus 1px
CURSOR_KEYS = {"ArrowUp": (-1, 0), "ArrowDown": (1, 0), "ArrowLeft": (0, -1), "ArrowRight": (0, 1)}
MARK_WORDS = dict(
    (*MEMORY_KEY, *RESULT_KEY, ("followed", "the followed thread's cell"), ("reg-line", "in regM / regN"))
)
OnClick = Callable[[int, int], None]


class MatrixGrid:
    """A rows×cols grid of value cells; per step only changed classes and values are drawn."""

    def __init__(self, name: str, caption: str, on_click: OnClick | None = None) -> None:
        self.name = name
        self.on_click = on_click
        self.caption = h("figcaption", "", caption)
        self.cells_element = h("div", "matrix", role="group", aria_label=caption, data_testid=f"grid-{name}")
        self.canvas = CanvasCells(self, caption)
        # A wide grid scrolls sideways, so it must be reachable by keyboard.
        self.element = h(
            "figure",
            f"grid grid-{name}",
            tabindex="0",
            children=[self.caption, self.cells_element, self.canvas.element, self.canvas.description],
        )
        self.dom = DomCells(self.cells_element)
        self.surface: DomCells | CanvasCells = self.dom
        self.shape = (0, 0)
        self.classes: dict[int, str] = {}
        self.labels: dict[int, str] = {}
        self.values = np.zeros(0)
        if on_click is not None:
            on(self.cells_element, "click", self._clicked)

    def _clicked(self, event) -> None:
        cell = event.target.closest(".cell")
        if cell:
            self.on_click(int(cell.getAttribute("data-r")), int(cell.getAttribute("data-c")))

    @property
    def is_canvas(self) -> bool:
        return self.surface is self.canvas

    def resize(self, rows: int, cols: int, caption: str, widest: float = 9) -> None:
        """A new shape; `widest` is the largest value the grid will show (cells widen for its digits)."""
        self.caption.textContent = caption
        self.cells_element.className = f"matrix digits-{len(fmt(widest))}"
        self.shape = (rows, cols)
        self.classes, self.labels = {}, {}
        self.values = np.full(rows * cols, np.nan)
        big = rows * cols > CANVAS_ABOVE_CELLS
        self.surface = self.canvas if big else self.dom
        self.cells_element.hidden = big
        self.canvas.show(big)
        self.surface.resize(rows, cols, caption)

    def label_cell(self, row: int, col: int, label: str) -> None:
        """A small corner label, e.g. the thread owning a patch."""
        index = row * self.shape[1] + col
        self.labels[index] = label
        self.surface.label(index, label)

    def cell_rect(self, row: int, col: int) -> tuple[float, float, float, float]:
        """(left, top, width, height) of a cell in viewport pixels, for arrows drawn over the grids."""
        return self.surface.rect(row, col)

    def describe_cell(self, index: int) -> str:
        row, col = divmod(index, self.shape[1])
        value = fmt(self.values[index]) or "empty"
        marks = [MARK_WORDS[cls] for cls in self.classes.get(index, "").split() if cls in MARK_WORDS]
        return f"{self.name}[{row}][{col}] = {value}" + (f": {', '.join(marks)}" if marks else "")

    def show(self, values: np.ndarray | None, marks: dict[tuple[int, int], str]) -> None:
        """Draw changed values (NaN shows blank) and each marked cell's classes."""
        changed: set[int] = set()
        if values is not None:
            flat = np.asarray(values, dtype=np.float64).reshape(-1)[: self.values.size]
            differs = ~((flat == self.values) | (np.isnan(flat) & np.isnan(self.values)))
            self.values = flat.copy()
            for i in np.nonzero(differs)[0]:
                changed.add(int(i))
                self.surface.text(int(i), fmt(flat[i]))
        rows, cols = self.shape
        wanted = {r * cols + c: cls for (r, c), cls in marks.items() if r < rows and c < cols}
        for i in set(self.classes) | set(wanted):
            if self.classes.get(i, "") != wanted.get(i, ""):
                changed.add(i)
                self.surface.mark(i, wanted.get(i, ""))
        self.classes = wanted
        self.surface.flush(changed)


class DomCells:
    """One <span class="cell"> per cell."""

    def __init__(self, element) -> None:
        self.element = element
        self.cells: list = []
        self.cols = 0

    def resize(self, rows: int, cols: int, caption: str) -> None:
        self.element.setAttribute("aria-label", caption)
        self.element.style.setProperty("--cols", str(cols))
        markup = "".join(
            f'<span class="cell" data-r="{r}" data-c="{c}"></span>' for r in range(rows) for c in range(cols)
        )
        set_number_markup(self.element, markup)
        children = self.element.children
        self.cells = [children.item(i) for i in range(rows * cols)]
        self.cols = cols

    def label(self, index: int, text: str) -> None:
        self.cells[index].setAttribute("data-label", text)  # CSS draws it from data-label

    def text(self, index: int, text: str) -> None:
        self.cells[index].textContent = text

    def mark(self, index: int, cls: str) -> None:
        self.cells[index].className = f"cell {cls}".strip()

    def flush(self, changed: set[int]) -> None:
        """Nothing to do: each change was written as it came."""

    def rect(self, row: int, col: int) -> tuple[float, float, float, float]:
        box = self.cells[row * self.cols + col].getBoundingClientRect()
        return box.left, box.top, box.width, box.height


class CanvasCells:
    """The whole matrix on one <canvas>; colours come from the CSS classes of a hidden probe cell."""

    def __init__(self, grid: MatrixGrid, caption: str) -> None:
        self.grid = grid
        self.element = document.createElement("canvas")
        self.element.className = "matrix-canvas"
        self.element.setAttribute("tabindex", "0")
        self.element.setAttribute("role", "application")
        self.element.setAttribute("aria-roledescription", "matrix")
        self.element.setAttribute("data-testid", f"canvas-{grid.name}")
        self.element.hidden = True
        self.description = h("p", "sr-only", "", aria_live="polite", id=f"canvas-{grid.name}-cell")
        self.element.setAttribute("aria-describedby", f"canvas-{grid.name}-cell")
        self.probe = h("span", "cell", hidden="")
        self.styles: dict[str, dict[str, str]] = {}
        self.cursor = 0
        self.context = None
        self.scale = 1.0
        on(self.element, "click", self._clicked)
        on(self.element, "keydown", self._key)
        on(self.element, "focus", lambda event: self._paint(self.cursor))
        on(self.element, "blur", lambda event: self._paint(self.cursor))

    def show(self, visible: bool) -> None:
        self.element.hidden = not visible
        if visible and not self.probe.parentNode:
            self.grid.cells_element.appendChild(self.probe)

    def resize(self, rows: int, cols: int, caption: str) -> None:
        self.scale = float(window.devicePixelRatio or 1)
        self.element.width = int(cols * CANVAS_PITCH * self.scale)
        self.element.height = int(rows * CANVAS_PITCH * self.scale)
        self.element.style.width = f"{cols * CANVAS_PITCH}px"
        self.element.style.height = f"{rows * CANVAS_PITCH}px"
        self.element.setAttribute(
            "aria-label",
            f"{caption}. Arrow keys move between cells"
            + (", Enter follows the cell's thread." if self.grid.on_click else "."),
        )
        self.styles = {}  # the colour scheme may have changed since the last size
        self.context = self.element.getContext("2d")
        self.context.setTransform(self.scale, 0, 0, self.scale, 0, 0)
        self.cursor = 0
        self.flush(set(range(rows * cols)))

    def label(self, index: int, text: str) -> None:
        self._paint(index)

    def text(self, index: int, text: str) -> None:
        """Painted in flush, with the cell's class."""

    def mark(self, index: int, cls: str) -> None:
        """Painted in flush, with the cell's value."""

    def flush(self, changed: set[int]) -> None:
        for index in changed:
            self._paint(index)

    def rect(self, row: int, col: int) -> tuple[float, float, float, float]:
        box = self.element.getBoundingClientRect()
        return box.left + col * CANVAS_PITCH, box.top + row * CANVAS_PITCH, CANVAS_PITCH - 1, CANVAS_PITCH - 1

    def _style(self, cls: str) -> dict[str, str]:
        if cls not in self.styles:
            self.probe.className = f"cell {cls}".strip()
            computed = window.getComputedStyle(self.probe)
            root = window.getComputedStyle(document.documentElement)
            self.styles[cls] = {
                "fill": computed.backgroundColor,
                "border": computed.borderTopColor,
                "dash": computed.borderTopStyle,
                "text": computed.color,
                "outline": computed.outlineColor,
                "line": root.getPropertyValue("--followed-2").strip() or computed.borderTopColor,
                "hatch": root.getPropertyValue("--zero").strip() or computed.color,
            }
        return self.styles[cls]

    def _paint(self, index: int) -> None:
        if self.context is None:
            return
        ctx, grid = self.context, self.grid
        row, col = divmod(index, grid.shape[1])
        x, y, size = col * CANVAS_PITCH, row * CANVAS_PITCH, CANVAS_PITCH - 1
        cls = grid.classes.get(index, "")
        style = self._style(cls)
        marks = cls.split()
        ctx.clearRect(x, y, CANVAS_PITCH, CANVAS_PITCH)
        ctx.fillStyle = style["fill"] if style["fill"] != "rgba(0, 0, 0, 0)" else self._style("")["fill"]
        ctx.fillRect(x, y, size, size)
        if "zero-fill" in marks:
            ctx.strokeStyle = style["hatch"]
            ctx.lineWidth = 2
            for offset in range(-size, size, 6):
                ctx.beginPath()
                ctx.moveTo(x + max(offset, 0), y + max(-offset, 0))
                ctx.lineTo(x + min(offset + size, size), y + min(size - offset, size))
                ctx.stroke()
        ctx.setLineDash([3, 2] if style["dash"] in ("dashed", "dotted") else [])
        ctx.strokeStyle = style["border"]
        ctx.lineWidth = 2 if marks else 1
        ctx.strokeRect(x + 0.5, y + 0.5, size - 1, size - 1)
        ctx.setLineDash([])
        if "followed-line" in marks or "reg-line" in marks:
            ctx.strokeStyle = style["line"]
            ctx.lineWidth = 2
            ctx.strokeRect(x + 2, y + 2, size - 4, size - 4)
        if "followed" in marks:
            ctx.strokeStyle = style["outline"]
            ctx.lineWidth = 3
            ctx.strokeRect(x + 1.5, y + 1.5, size - 3, size - 3)
        ctx.fillStyle = style["text"]
        ctx.textAlign = "center"
        ctx.textBaseline = "middle"
        ctx.font = f"{'bold ' if 'followed' in marks else ''}10px ui-monospace, monospace"
        ctx.fillText(fmt(grid.values[index]) if index < grid.values.size else "", x + size / 2, y + size / 2 + 1)
        if index in grid.labels:
            ctx.font = "7px ui-monospace, monospace"
            ctx.textAlign = "left"
            ctx.fillText(grid.labels[index], x + 2, y + size - 4)
        if index == self.cursor and document.activeElement == self.element:
            ctx.strokeStyle = self._style("followed")["outline"]
            ctx.setLineDash([2, 2])
            ctx.lineWidth = 2
            ctx.strokeRect(x + 1, y + 1, size - 2, size - 2)
            ctx.setLineDash([])

    def _clicked(self, event) -> None:
        col, row = int(event.offsetX // CANVAS_PITCH), int(event.offsetY // CANVAS_PITCH)
        rows, cols = self.grid.shape
        if 0 <= row < rows and 0 <= col < cols:
            self._move(row * cols + col)
            if self.grid.on_click:
                self.grid.on_click(row, col)

    def _key(self, event) -> None:
        rows, cols = self.grid.shape
        row, col = divmod(self.cursor, cols)
        if event.key in CURSOR_KEYS:
            dr, dc = CURSOR_KEYS[event.key]
            self._move(min(max(row + dr, 0), rows - 1) * cols + min(max(col + dc, 0), cols - 1))
        elif event.key == "Enter" and self.grid.on_click:
            self.grid.on_click(row, col)
        else:
            return
        event.preventDefault()
        event.stopPropagation()  # the arrows move the cursor here, not the step

    def _move(self, index: int) -> None:
        previous, self.cursor = self.cursor, index
        self._paint(previous)
        self._paint(index)
        self.description.textContent = self.grid.describe_cell(index)
