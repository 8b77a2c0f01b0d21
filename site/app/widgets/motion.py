"""Values in flight: each value a step moves, drawn travelling from its cell to the cell it goes to.

One layer over a view's memory panels holds a token per moving value (pysim.lessons.motion says which).
The tokens are written in one call, placed by arithmetic from one read of each grid's position
(MatrixGrid.geometry) and set moving in one call (site/gridpaint.js `fly`) by a CSS transition of their
transform alone (css/picture.css .flight): the compositor runs it, nothing is laid out per frame. With
reduced motion the CSS shows each token where it arrives, outlined, instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from pyodide.ffi import to_js
from pyscript import window

from pysim.lessons.motion import Move

from ..core.dom import fmt, h, set_number_markup
from .grids import CELL_GAP, MatrixGrid

MAX_FLIGHTS = 1024  # a 32×32 block's load (one value per thread); beyond it the tokens cost more than they teach


class Flights:
    """The tokens of the step on screen, over `container` (a positioned box holding the grids)."""

    def __init__(self, container) -> None:
        self.container = container
        self.element = h("div", "flights", aria_hidden="true", data_testid="flights")
        container.appendChild(self.element)
        self.drawn = False

    def clear(self) -> None:
        if self.drawn:
            self.element.textContent = ""
            self.drawn = False

    def draw(self, moves: Sequence[Move], grids: Mapping[str, MatrixGrid]) -> None:
        """A token per move between grids on the page (a hidden grid's moves are not drawn). Every
        position is read before the tokens are written, so the browser lays out once."""
        self.clear()
        used = {name for move in moves for name in (move.source, move.target)}
        if not moves or not used <= grids.keys():
            return
        box = self.container.getBoundingClientRect()
        places = {name: grids[name].geometry() for name in used}
        parts: list[str] = []
        numbers: list[float] = []  # x0, y0, x1, y1, width, height per token, in px from the container's corner
        for move in moves[:MAX_FLIGHTS]:
            x0, y0 = _corner(places[move.source], move.source_cell)
            x1, y1 = _corner(places[move.target], move.target_cell)
            width, height = places[move.target][2:]
            if not (width > 1 and places[move.source][2] > 1):
                continue  # a grid that is not laid out (hidden) has no cells to fly from or to
            if not all(0 <= x - box.left <= box.width - width for x in (x0, x1)):
                continue  # a cell scrolled out of its grid's view (a wide grid on a phone): nothing to see leave
            level = escape(grids[move.source].level)
            parts.append(f'<span class="flight" data-level="{level}">{escape(fmt(move.value))}</span>')
            numbers += [x0 - box.left, y0 - box.top, x1 - box.left, y1 - box.top, width - CELL_GAP, height - CELL_GAP]
        if parts:
            set_number_markup(self.element, "".join(parts))
            window.tilelabFly(self.element, to_js(numbers))
            self.drawn = True


def _corner(place: tuple[float, float, float, float], cell: tuple[int, int]) -> tuple[float, float]:
    left, top, column_pitch, row_pitch = place
    return left + cell[1] * column_pitch, top + cell[0] * row_pitch
