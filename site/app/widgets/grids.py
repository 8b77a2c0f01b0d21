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

from collections.abc import Callable, Sequence

import numpy as np
from pyodide.ffi import to_js
from pyscript import document, window

from ..core.dom import Listeners, fmt, h, set_number_markup
from .cellmarkup import cells_markup
from .components import ACTION_KEY, add_marks

# Above this many cells a matrix is drawn on a canvas (a 32×32 matrix still has one element per cell).
CANVAS_ABOVE_CELLS = 1024
CANVAS_PITCH = 28  # px per cell, gap included: the element grid's 1.7rem cells plus 1px
CELL_GAP = 1  # px between an element grid's cells (css/tilelab.css .matrix > .cells)
# A canvas paints at most this many cells in one task, top rows first, and the rest in the tasks after it: in one
# task, the first paint of a 32×32 matrix took 19-41 ms of the page's thread (bench/playground.py), and a 64×64
# matrix has four times as many cells. Off screen it paints nothing until it comes within this margin of the
# viewport (a playground run's grids are thousands of px below its Run button).
PAINT_CHUNK = 256
NEAR_VIEWPORT = "50%"
CURSOR_KEYS = {"ArrowUp": (-1, 0), "ArrowDown": (1, 0), "ArrowLeft": (0, -1), "ArrowRight": (0, 1)}
MARK_WORDS = {cls: words for classes, words in ACTION_KEY for cls in classes.split()} | {
    "followed": "the followed thread's cell",
    "followed-line": "the followed thread's",
    "reg-line": "in regM / regN",
}
OnClick = Callable[[int, int], None]
Cell = tuple[int, int]


class MatrixGrid:
    """A rows×cols grid of value cells; per step only changed classes and values are drawn."""

    def __init__(
        self,
        name: str,
        caption: str,
        on_click: OnClick | None = None,
        canvas_above: int = CANVAS_ABOVE_CELLS,
        level: str = "",
    ) -> None:
        self.name = name
        self.level = level  # the memory level its cells are in (SPEC §7 data-level), one colour per level
        self.listeners = Listeners()  # the grid's and its canvas's listeners, undone by close()
        self.canvas_above = canvas_above  # a view whose steps rewrite whole grids may draw smaller ones on canvas
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
        if level:
            for element in (self.element, self.canvas.element, self.canvas.probe):
                element.setAttribute("data-level", level)
        self.dom = DomCells(self)
        self.surface: DomCells | CanvasCells = self.dom
        self.shape = (0, 0)
        self.base: dict[int, str] = {}  # classes that stay for the whole run (e.g. thread patches)
        self.marks: dict[int, str] = {}  # this step's marks
        self.classes: dict[int, str] = {}  # what each cell shows: base + marks
        self.labels: dict[int, str] = {}
        self.values = np.zeros(0)
        if on_click is not None:
            self.listeners.on(self.cells_element, "click", self._clicked)

    def close(self) -> None:
        """The grid leaves the page: remove its listeners and free their proxies."""
        self.canvas.close()
        self.listeners.close()

    def _clicked(self, event) -> None:
        cell = event.target.closest(".cell")
        if cell:
            self.on_click(int(cell.getAttribute("data-r")), int(cell.getAttribute("data-c")))

    @property
    def is_canvas(self) -> bool:
        return self.surface is self.canvas

    def resize(self, rows: int, cols: int, caption: str, widest: float = 9, values: np.ndarray | None = None) -> None:
        """A new shape, its cells blank or holding `values` (drawn once, not blank and then again by `show`);
        `widest` is the largest value the grid will show (cells widen for its digits)."""
        self.caption.textContent = caption
        self.cells_element.className = f"matrix digits-{len(fmt(widest))}"
        self.shape = (rows, cols)
        self.base, self.marks, self.classes, self.labels = {}, {}, {}, {}
        if values is None:
            self.values = np.full(rows * cols, np.nan)
        else:
            self.values = np.array(values, dtype=np.float64).reshape(rows * cols)
        big = rows * cols > self.canvas_above
        self.surface = self.canvas if big else self.dom
        self.cells_element.hidden = big
        self.canvas.show(big)
        self.surface.resize(rows, cols, caption)

    def set_base(self, classes: dict[tuple[int, int], str]) -> None:
        """Classes that hold for many steps (e.g. thread patches), replacing the last ones; each step's
        marks are added to them. Only the cells whose classes change are restyled."""
        cols = self.shape[1]
        old, self.base = self.base, {r * cols + c: cls for (r, c), cls in classes.items()}
        changed = set()
        for i in {i for i, _ in old.items() ^ self.base.items()}:  # the cells whose base differs (as in show)
            cls = f"{self.base.get(i, '')} {self.marks.get(i, '')}".strip()
            if self.classes.get(i, "") != cls:
                changed.add(i)
                self.classes[i] = cls
                self.surface.mark(i, cls)
        self.surface.flush(changed)

    def label_cell(self, row: int, col: int, label: str) -> None:
        """A small corner label, e.g. the thread owning a patch."""
        index = row * self.shape[1] + col
        self.labels[index] = label
        self.surface.label(index, label)

    def cell_rect(self, row: int, col: int) -> tuple[float, float, float, float]:
        """(left, top, width, height) of a cell in viewport pixels, for arrows drawn over the grids."""
        return self.surface.rect(row, col)

    def geometry(self) -> tuple[float, float, float, float]:
        """(left, top, column pitch, row pitch) of the cells in viewport pixels, from one read of the page:
        where many cells are wanted at once (values in flight), each is placed by arithmetic."""
        left, top, width, height = self.surface.rect(0, 0)
        pitch = CANVAS_PITCH if self.is_canvas else None
        return left, top, pitch or width + CELL_GAP, pitch or height + CELL_GAP

    def describe_cell(self, index: int) -> str:
        row, col = divmod(index, self.shape[1])
        value = fmt(self.values[index]) or "empty"
        marks = [MARK_WORDS[cls] for cls in self.classes.get(index, "").split() if cls in MARK_WORDS]
        return f"{self.name}[{row}][{col}] = {value}" + (f": {', '.join(marks)}" if marks else "")

    def show(
        self,
        values: np.ndarray | None,
        marks: dict[tuple[int, int], str],
        regions: dict[str, Sequence[Cell]] | None = None,
    ) -> None:
        """Draw changed values (NaN shows blank), each marked cell's classes, and each of `regions`
        (a class and a rectangle of cells): on an element grid one box over the cells, so moving it
        restyles one element instead of every cell it leaves and enters; on a canvas the cells' class."""
        if regions and self.is_canvas:
            marks = dict(marks)
            for kind, cells in regions.items():
                add_marks(marks, cells, kind)
        elif regions:
            self.dom.regions(regions)
        changed: set[int] = set()
        if values is not None:
            flat = np.asarray(values, dtype=np.float64).reshape(-1)[: self.values.size]
            differs = ~((flat == self.values) | (np.isnan(flat) & np.isnan(self.values)))
            self.values = flat.copy()
            indices = np.nonzero(differs)[0].tolist()
            changed.update(indices)
            self.surface.texts(indices, flat)
        rows, cols = self.shape
        wanted = {r * cols + c: cls for (r, c), cls in marks.items() if r < rows and c < cols}
        # Only cells whose marks differ from the last step's can change (set_base forgets the marks of
        # the cells it redraws): a step costs its changes, not the grid's size or its marks'. The pairs
        # that differ are found by one set operation: a loop over every marked cell was most of a
        # #/transpose step, whose marks hold a 32×32 block (issue 44).
        for i in {i for i, _ in self.marks.items() ^ wanted.items()}:
            mark = wanted.get(i, "")
            cls = f"{self.base.get(i, '')} {mark}".strip()
            if self.classes.get(i, "") != cls:
                changed.add(i)
                self.classes[i] = cls
                self.surface.mark(i, cls)
        self.marks = wanted
        self.surface.flush(changed)


def bounding_box(cells: Sequence[Cell]) -> tuple[int, int, int, int] | None:
    """First row, first column, rows and columns of the smallest rectangle of cells holding `cells`."""
    if not cells:
        return None
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    return min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1


class DomCells:
    """One <span class="cell"> per cell, written from markup on resize and updated in place each step."""

    def __init__(self, grid: MatrixGrid) -> None:
        self.grid = grid
        self.frame = grid.cells_element  # the cells and, over them, the region boxes
        # The cells have a box of their own: a region box that moves then makes Chromium place it in
        # the frame, without laying the frame's 1,024 cells out again (css/tilelab.css).
        self.element = h("div", "cells")
        self.frame.appendChild(self.element)
        self.cells: dict[int, object] = {}  # element of each cell, fetched when first needed
        self.pending_text: dict[int, str] = {}
        self.pending_class: dict[int, str] = {}
        self.boxes: dict[str, object] = {}  # each region's box, in the frame after the cells
        self.areas: dict[str, tuple | None] = {}  # each box's rectangle of cells now (None: hidden)

    def resize(self, rows: int, cols: int, caption: str) -> None:
        self.frame.setAttribute("aria-label", caption)
        self.frame.style.setProperty("--cols", str(cols))
        self._rewrite()

    def regions(self, regions: dict[str, Sequence[Cell]]) -> None:
        """One box per region over the smallest rectangle of cells holding it (hidden when it has none)."""
        for kind, cells in regions.items():
            area = bounding_box(cells)
            if kind in self.areas and self.areas[kind] == area:
                continue
            if kind not in self.boxes:
                self.boxes[kind] = h("span", f"region {kind}", aria_hidden="true", data_testid=f"region-{kind}")
                self.frame.appendChild(self.boxes[kind])
            box = self.boxes[kind]
            box.hidden = area is None
            # Placed by offsets from the frame's corner, in cells (css/views.css .region).
            for name, number in zip(("--r0", "--c0", "--nr", "--nc"), area or ()):
                box.style.setProperty(name, str(number))
            self.areas[kind] = area

    def _rewrite(self) -> None:
        g = self.grid
        texts = [fmt(value) for value in g.values]
        set_number_markup(self.element, cells_markup(g.shape[1], texts, g.classes, g.labels, g.level, g.name))
        self.cells = {}
        for box in self.boxes.values():  # new cells: each box waits for its next region
            box.hidden = True
        self.areas = {}
        self.pending_text, self.pending_class = {}, {}

    def _cell(self, index: int):
        if index not in self.cells:
            self.cells[index] = self.element.children.item(index)
        return self.cells[index]

    def label(self, index: int, text: str) -> None:
        self._cell(index).setAttribute("data-label", text)  # CSS draws it from data-label

    def texts(self, indices: list[int], values: np.ndarray) -> None:
        for i in indices:
            self.pending_text[i] = fmt(values[i])

    def mark(self, index: int, cls: str) -> None:
        self.pending_class[index] = cls

    def flush(self, changed: set[int]) -> None:
        """Write the pending texts and classes in one call into the page (site/gridpaint.js)."""
        indices = sorted(self.pending_text.keys() | self.pending_class.keys())
        if indices:
            window.tilelabUpdate(
                self.element.children,
                to_js(indices),
                to_js([self.pending_text.get(i) for i in indices]),
                to_js(
                    [None if i not in self.pending_class else f"cell {self.pending_class[i]}".strip() for i in indices]
                ),
            )
        self.pending_text, self.pending_class = {}, {}

    def rect(self, row: int, col: int) -> tuple[float, float, float, float]:
        box = self._cell(row * self.grid.shape[1] + col).getBoundingClientRect()
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
        self.looks: list = []  # JavaScript objects, one per class combination (the painter's style table)
        self.look_ids: dict[str, int] = {}
        self.js_labels = None
        self.unpainted: set[int] = set()  # labelled cells not painted yet
        self.queued: set[int] = set()  # cells left for the next tasks (PAINT_CHUNK) or until the canvas is near
        self.timer = None
        self.near = False  # within NEAR_VIEWPORT of the viewport (a hidden canvas never is)
        self.cursor = 0
        self.context = None
        self.pixels = (0, 0)  # the canvas's size in device pixels
        self.scale = 1.0
        listeners = grid.listeners
        listeners.on(self.element, "click", self._clicked)
        listeners.on(self.element, "keydown", self._key)
        listeners.on(self.element, "focus", lambda event: self._paint(self.cursor))
        listeners.on(self.element, "blur", lambda event: self._paint(self.cursor))
        self.paint_queued_proxy = listeners.proxy(lambda *args: self._paint_queued())
        options = to_js({"rootMargin": NEAR_VIEWPORT}, dict_converter=window.Object.fromEntries)
        self.observer = window.IntersectionObserver.new(listeners.proxy(self._moved), options)
        self.observer.observe(self.element)

    def show(self, visible: bool) -> None:
        self.element.hidden = not visible
        if not visible:
            self.forget()  # the grid is drawn as elements now
        if visible and not self.probe.parentNode:
            self.grid.cells_element.appendChild(self.probe)

    def resize(self, rows: int, cols: int, caption: str) -> None:
        self.scale = float(window.devicePixelRatio or 1)
        self.pixels = (int(cols * CANVAS_PITCH * self.scale), int(rows * CANVAS_PITCH * self.scale))
        # Its pixels are allocated when it is first painted, near the viewport: a canvas on the page holding
        # pixels is copied to the compositor in each frame after one changes (4-5 ms for a 32×32 matrix's).
        self.element.width = self.element.height = 0
        self.context = None
        self.element.style.width = f"{cols * CANVAS_PITCH}px"
        self.element.style.height = f"{rows * CANVAS_PITCH}px"
        self.element.setAttribute(
            "aria-label",
            f"{caption}. Arrow keys move between cells"
            + (", Enter follows the cell's thread." if self.grid.on_click else "."),
        )
        self.styles = {}  # the colour scheme may have changed since the last size
        self.looks, self.look_ids, self.js_labels = [], {}, None
        self.cursor = 0
        self.forget()  # another shape's cells
        self.flush(set(range(rows * cols)))

    def label(self, index: int, text: str) -> None:
        """Painted with the next flush (a view labels many cells, then draws)."""
        self.js_labels = None
        self.unpainted.add(index)

    def texts(self, indices: list[int], values: np.ndarray) -> None:
        """Painted in flush, with the cells' classes (the painter writes each value itself)."""

    def mark(self, index: int, cls: str) -> None:
        """Painted in flush, with the cell's value."""

    def flush(self, changed: set[int]) -> None:
        """Paint the changed cells (at most PAINT_CHUNK of them now, the others queued), each with what the grid
        holds when it is painted."""
        self.queued |= changed | self.unpainted
        self.unpainted = set()
        if self.near and self.queued:
            self._paint_chunk()

    def forget(self) -> None:
        """Paint none of the queued cells."""
        if self.timer is not None:
            window.clearTimeout(self.timer)
            self.timer = None
        self.queued = set()

    def close(self) -> None:
        """Paint nothing more: the grid is closed."""
        self.observer.disconnect()
        self.forget()

    def _moved(self, entries, observer=None) -> None:
        """The canvas came near the viewport (its queued cells are painted) or left it."""
        self.near = bool(entries[len(entries) - 1].isIntersecting)
        self._schedule()

    def _schedule(self) -> None:
        if self.near and self.queued and self.timer is None:
            self.timer = window.setTimeout(self.paint_queued_proxy, 0)

    def _paint_queued(self) -> None:
        self.timer = None
        if self.near:
            self._paint_chunk()

    def _paint_chunk(self) -> None:
        """Paint the first PAINT_CHUNK queued cells (top rows first), and the others in the next tasks."""
        ordered = sorted(self.queued)
        self.queued = set(ordered[PAINT_CHUNK:])
        self._paint_cells(ordered[:PAINT_CHUNK])
        self._schedule()

    def _paint_cells(self, ordered: list[int]) -> None:
        """Paint cells `ordered` (sorted) in one call into the page (site/gridpaint.js), as columns."""
        if self.context is None:
            self.element.width, self.element.height = self.pixels
            self.context = self.element.getContext("2d")
            self.context.setTransform(self.scale, 0, 0, self.scale, 0, 0)
        grid = self.grid
        indices = np.array(ordered, dtype=np.int32)
        looks = np.fromiter((self._look(grid.classes.get(i, "")) for i in ordered), dtype=np.int32)
        cursor = self.cursor if document.activeElement == self.element else -1
        window.tilelabGridPaint(
            self.context,
            CANVAS_PITCH,
            grid.shape[1],
            to_js(indices),
            to_js(grid.values[indices]),
            to_js(looks),
            to_js(self.looks),
            self._labels(),
            to_js(
                {"index": cursor, "color": self._style("followed")["outline"]}, dict_converter=window.Object.fromEntries
            ),
        )

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

    def _labels(self):
        """The grid's corner labels as a JavaScript Map, converted again only after they change."""
        if self.js_labels is None:
            self.js_labels = to_js(self.grid.labels)
        return self.js_labels

    def _look(self, cls: str) -> int:
        """The number of a class combination's look in the painter's style table (made on first use)."""
        if cls not in self.look_ids:
            style, base = self._style(cls), self._style("")
            marks = cls.split()
            look = {
                "fill": style["fill"] if style["fill"] != "rgba(0, 0, 0, 0)" else base["fill"],
                "border": style["border"],
                "dashed": style["dash"] in ("dashed", "dotted"),
                "width": 2 if marks else 1,
                "line": style["line"] if "followed-line" in marks or "reg-line" in marks else "",
                "outline": style["outline"] if "followed" in marks else "",
                "hatch": style["hatch"] if "zero-fill" in marks else "",
                "color": style["text"],
                "bold": "followed" in marks,
            }
            self.look_ids[cls] = len(self.looks)
            self.looks.append(to_js(look, dict_converter=window.Object.fromEntries))
        return self.look_ids[cls]

    def _paint(self, index: int) -> None:
        self.flush({index})

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
