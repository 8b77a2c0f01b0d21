"""Pictures of one warp instruction, drawn from pysim.core.lanes records: sectors of a global access,
banks of a shared access. Shared by the naive and transpose views (and any view that wants them).

A picture keeps its SVG shapes between steps (pools of rects and texts) and writes only the
attributes that changed, so stepping through a warp's 32 strided loads moves a few dozen
shapes instead of building a few hundred: the views must step in well under 16 ms. The changed
attributes of a draw are written in one call into the page (site/gridpaint.js), not one call each:
a #/transpose step changed about 200 of them, each a crossing from Python into JavaScript (issue 44).
"""

from __future__ import annotations

from pyodide.ffi import to_js
from pyscript import window

from pysim.core.constants import NUM_BANKS, WORDS_PER_SECTOR
from pysim.core.lanes import WarpBanks, WarpSectors

from ..core.dom import h, svg
from .charts import picture

SLOT = 15  # px per word slot of a sector
SECTORS_PER_LINE = 4
SECTOR_GAP = 14
LINE = 50  # px per line of sectors: the sector's number, its slots, its bytes, a gap
LABELLED_SECTORS = 8  # above this many sectors, the sector addresses are left out (the summary says how many)
BANK = 19  # px per bank column
BOX_TALL, BOX_SHORT = 15, 9  # px per word box in a bank column (short when many words share a bank)
BANK_TOP = 30
# Its labels are 9 px in its own units (views.css): the width a phone draws it at (phone.css) is the one that
# prints them at 12 px; wider screens size it by CSS.
LABEL_PX, READABLE_PX = 9, 12


class Writes:
    """A draw's changed attributes and texts, written into the page in one call by `flush`."""

    def __init__(self) -> None:
        self.elements: list = []
        self.names: list[str] = []  # "" writes the element's text
        self.values: list[str] = []

    def add(self, element, name: str, value: str) -> None:
        self.elements.append(element)
        self.names.append(name)
        self.values.append(value)

    def flush(self) -> None:
        if self.elements:
            window.tilelabWrite(to_js(self.elements), to_js(self.names), to_js(self.values))
            self.elements, self.names, self.values = [], [], []


class Shape:
    """One element and the attributes it shows; `set` notes only what differs (written by `Writes.flush`)."""

    def __init__(self, element, writes: Writes) -> None:
        self.element = element
        self.writes = writes
        self.shown: dict[str, str] = {}
        self.label: str | None = None

    def set(self, **attrs: object) -> None:
        for name, value in attrs.items():
            text = str(value)
            if self.shown.get(name) != text:
                self.writes.add(self.element, name.replace("_", "-"), text)
                self.shown[name] = text

    def text(self, value: str) -> None:
        if self.label != value:
            self.writes.add(self.element, "", value)
            self.label = value


class Pool:
    """Shapes of one kind, reused in order on every draw; those not asked for are hidden (display: none,
    so a pool grown by a 32-way conflict costs no layout once smaller pictures are drawn)."""

    def __init__(self, parent, tag: str, writes: Writes) -> None:
        self.parent, self.tag, self.writes = parent, tag, writes
        self.shapes: list[Shape] = []
        self.used = 0

    def begin(self) -> None:
        self.used = 0

    def take(self) -> Shape:
        if self.used == len(self.shapes):
            element = svg(self.tag)
            self.parent.appendChild(element)
            self.shapes.append(Shape(element, self.writes))
        shape = self.shapes[self.used]
        shape.set(display="inline")
        self.used += 1
        return shape

    def end(self) -> None:
        for shape in self.shapes[self.used :]:
            shape.set(display="none")


def _lane_label(lanes: tuple[int, ...]) -> str:
    return str(lanes[0]) if len(lanes) == 1 else f"×{len(lanes)}"


class WarpPicture:
    """A figure: a caption, a one-line summary (with data attributes for tests and readers), and an SVG."""

    def __init__(self, testid: str, caption: str) -> None:
        self.caption = h("figcaption", "", caption)
        self.summary = h("p", "warp-summary", "", data_testid=testid)
        self.writes = Writes()
        self.heading = Shape(self.caption, self.writes)
        self.facts = Shape(self.summary, self.writes)  # the summary: its text and data attributes
        self.drawing = picture(1, 1, caption)
        self.drawing.setAttribute("class", "picture warp")
        self.title = Shape(self.drawing.firstChild, self.writes)
        layers = {name: svg("g", name) for name in ("boxes", "words", "labels")}
        for layer in layers.values():
            self.drawing.appendChild(layer)
        self.boxes = Pool(layers["boxes"], "rect", self.writes)
        self.words = Pool(layers["words"], "rect", self.writes)
        self.texts = Pool(layers["labels"], "text", self.writes)
        self.frame = Shape(self.drawing, self.writes)
        # A phone draws the picture wider than the screen (phone.css): the box scrolls, so the keyboard reaches it.
        holder = h("div", "warp-drawing", children=[self.drawing], tabindex="0", role="region", aria_label=caption)
        self.element = h("figure", "warp-picture", children=[self.caption, self.summary, holder])
        self.shown = None
        self.hidden = False

    def hide(self) -> None:
        if not self.hidden:
            self.element.setAttribute("hidden", "")
            self.hidden = True

    def _begin(self, key, caption: str, summary: str) -> bool:
        """Show the figure with its texts; False when the picture already shows this instruction."""
        if self.hidden:
            self.element.removeAttribute("hidden")
            self.hidden = False
        self.heading.text(caption)
        self.facts.text(summary)
        self.title.text(summary)
        self.frame.set(aria_label=summary)
        if key == self.shown:
            return False
        self.shown = key
        for pool in (self.boxes, self.words, self.texts):
            pool.begin()
        return True

    def _end(self, width: int, height: int) -> None:
        for pool in (self.boxes, self.words, self.texts):
            pool.end()
        self.frame.set(viewBox=f"0 0 {width} {height}", width=-(-width * READABLE_PX // LABEL_PX))
        self.writes.flush()

    def _label(self, text: str, x: float, y: float, cls: str) -> None:
        label = self.texts.take()
        label.set(x=f"{x:.1f}", y=f"{y:.1f}", text_anchor="middle" if cls != "sector-label" else "start")
        label.set(**{"class": cls})
        label.text(text)

    def show_sectors(self, caption: str, ws: WarpSectors) -> None:
        """One hatched box of WORDS_PER_SECTOR slots per touched sector, in address order; a filled slot
        (labelled with its lane, ×n when n lanes share the word) for each word asked for. The rest of
        each box was moved for nothing."""
        summary = ws.summary()
        self.facts.set(
            data_sectors=len(ws.sectors), data_fetched=ws.bytes_fetched, data_used=ws.bytes_used, data_lanes=ws.active
        )
        key = ("sectors", ws.array, ws.op, tuple(lane.word for lane in ws.lanes))
        if not self._begin(key, caption, summary):
            self.writes.flush()
            return
        box = WORDS_PER_SECTOR * SLOT
        labelled = len(ws.sectors) <= LABELLED_SECTORS
        for i, use in enumerate(ws.sectors):
            line, column = divmod(i, SECTORS_PER_LINE)
            x0 = column * (box + SECTOR_GAP) + 2
            y0 = line * LINE + 14
            outline = self.boxes.take()
            outline.set(x=f"{x0:.1f}", y=f"{y0:.1f}", width=box - 1, height=18, **{"class": "slot-unused"})
            if labelled:
                # Two short lines, each narrower than its box: in one line (30 characters) a sector's label ran
                # over its neighbour's and out of the picture (issue 39, #/transpose at step 15).
                self._label(f"sector {use.sector:,}", x0, y0 - 3, "sector-label")
                self._label(f"bytes {use.first_byte:,}–{use.first_byte + 31:,}", x0, y0 + 28, "sector-label")
            for j, slot in enumerate(use.slots):
                if slot.lanes:
                    x = x0 + j * SLOT
                    word = self.words.take()
                    word.set(x=f"{x:.1f}", y=f"{y0:.1f}", width=SLOT - 1, height=18, **{"class": "slot-used"})
                    self._label(_lane_label(slot.lanes), x + (SLOT - 1) / 2, y0 + 13, "slot-text")
        lines = -(-len(ws.sectors) // SECTORS_PER_LINE) or 1
        self._end(SECTORS_PER_LINE * (box + SECTOR_GAP), lines * LINE + 4)

    def show_banks(self, caption: str, wb: WarpBanks) -> None:
        """NUM_BANKS columns, each a stack of the distinct words that bank serves (one per cycle); a stack
        of more than one is a conflict, marked and counted (×n)."""
        summary = wb.summary()
        self.facts.set(data_degree=wb.degree, data_extra=wb.extra_cycles, data_banks=wb.report.banks_used)
        key = ("banks", wb.array, wb.op, tuple(lane.word for lane in wb.lanes))
        if not self._begin(key, caption, summary):
            self.writes.flush()
            return
        degree = max(wb.degree, 1)
        size = BOX_TALL if degree <= 8 else BOX_SHORT
        for bank, words in enumerate(wb.report.words_per_bank):
            x = 2 + bank * BANK
            middle = x + (BANK - 2) / 2
            self._label(str(bank), middle, 10, "bank-number")
            if len(words) > 1:
                self._label(f"×{len(words)}", middle, 24, "bank-count")
            cls = "bank-word bank-conflict" if len(words) > 1 else "bank-word"
            for level, word in enumerate(words):
                y = BANK_TOP + level * size
                rect = self.words.take()
                rect.set(x=f"{x:.1f}", y=f"{y:.1f}", width=BANK - 2, height=size - 1, **{"class": cls})
                if size == BOX_TALL:
                    self._label(_lane_label(wb.lanes_of(word)), middle, y + size - 4, "slot-text")
        self._end(NUM_BANKS * BANK + 4, BANK_TOP + degree * size + 4)
