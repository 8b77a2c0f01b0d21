"""The home page's opening picture (issue 39 item 7): one tile load of the shared-memory tiling kernel,
computed by pysim at build time and written into the page as SVG, so it draws before (and without) Python.

Each value the block's threads load is a token drawn on its global cell of A; the stylesheet
(site/css/desktop.css, `home-fly`) moves every token by FLY, a transform the compositor runs. The build
places the tile of As that far from the tile of A it copies, so each token lands on the cell pysim stores it in.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import numpy as np

from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from pysim.lessons.motion import Move, load_moves
from tools.sitebuild.errors import BuildError

MARK = "<!-- build: home-picture -->"
KERNEL, SIZES = "smem", {"M": "4", "N": "4", "K": "8", "T": "2"}  # the tiling view's first preset
PITCH = 26  # a cell and its gap, in the picture's units
FLY = (260, 0)  # how far each token travels: site/css/desktop.css's home-fly keyframes say the same
A_AT = (8, 30)  # the top left corner of A's first cell
LINK = "#/hierarchy"
LABEL_WIDTH = 112  # "tileA: shared" at the label's size, with room to spare


def first_tile_load() -> tuple[np.ndarray, tuple[Move, ...]]:
    """A, and what the block's threads move in the trace's first load: each a cell of A into a cell of tileA."""
    kernel = KERNELS[KERNEL]
    params = kernel.PARAMS.parse(SIZES)
    trace = Trace(kernel, params)
    moves = next(m for step in trace if step.phase == "load" and (m := load_moves(step, limit=1024)))
    return np.asarray(trace.A), moves


def cell_at(cell: tuple[int, int], origin: tuple[int, int]) -> tuple[int, int]:
    return origin[0] + cell[1] * PITCH, origin[1] + cell[0] * PITCH


def tile_origin(moves: tuple[Move, ...]) -> tuple[int, int]:
    """Where tileA is drawn: every token, moved by FLY from its cell of A, must land on its cell of tileA."""
    origins = set()
    for move in moves:
        x, y = cell_at(move.source_cell, A_AT)
        origins.add((x + FLY[0] - move.target_cell[1] * PITCH, y + FLY[1] - move.target_cell[0] * PITCH))
    if len(origins) != 1:
        raise BuildError(f"the home picture's load does not keep its tile's shape: {sorted(origins)}")
    return origins.pop()


def grid(name: str, label: str, level: str, values: np.ndarray, origin: tuple[int, int]) -> str:
    """A matrix's cells, each with its value (a NaN: an empty cell, as tileA is before the load)."""
    side, half = PITCH - 2, (PITCH - 2) // 2
    cells = "".join(
        f'<rect x="{x}" y="{y}" width="{side}" height="{side}"/>'
        + ("" if np.isnan(value) else f'<text x="{x + half}" y="{y + half}">{value:g}</text>')
        for (r, c), value in np.ndenumerate(values)
        for x, y in [cell_at((r, c), origin)]
    )
    title = f'<text class="home-label" x="{origin[0]}" y="{origin[1] - 9}">{label}</text>'
    return f'<g class="home-grid" data-level="{level}" data-array="{name}">{title}{cells}</g>'


def token(move: Move) -> str:
    x, y = cell_at(move.source_cell, A_AT)
    half = (PITCH - 2) // 2
    place = f"{move.source_cell[0]},{move.source_cell[1]}"
    into = f"{move.target_cell[0]},{move.target_cell[1]}"
    return (
        f'<g transform="translate({x} {y})"><g class="home-fly" data-level="global" data-from="{place}"'
        f' data-to="{into}" data-thread="{move.thread}"><rect width="{PITCH - 2}" height="{PITCH - 2}"/>'
        f'<text x="{half}" y="{half}">{move.value:g}</text></g></g>'
    )


def picture() -> str:
    """The figure: A in global memory, tileA in shared memory, the load's tokens, a caption, linked into the walkthrough."""
    a, moves = first_tile_load()
    tile = tile_origin(moves)
    tile_rows = 1 + max(m.target_cell[0] for m in moves)
    tile_cols = 1 + max(m.target_cell[1] for m in moves)
    width = tile[0] + max(tile_cols * PITCH, LABEL_WIDTH)
    height = A_AT[1] + a.shape[0] * PITCH + 4
    threads = sorted({m.thread for m in moves})
    caption = (
        f"One step of the tiling kernel, as pysim traces it: threads {threads[0]}–{threads[-1]} of block (0, 0) "
        f"each load one value of A from global memory into the shared tile. Start the walkthrough →"
    )
    svg = (
        f'<svg class="home-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img"'
        f' aria-label="{escape(caption)}">'
        f"{grid('A', 'A: global memory', 'global', a, A_AT)}"
        f"{grid('tileA', 'tileA: shared', 'shared', np.full((tile_rows, tile_cols), np.nan), tile)}"
        f"{''.join(token(m) for m in moves)}</svg>"
    )
    return (
        f'<figure class="home-picture" data-testid="home-picture"><a href="{LINK}" data-testid="home-picture-link">'
        f"{svg}<figcaption>{escape(caption)}</figcaption></a></figure>"
    )


def draw_home_picture(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    if MARK not in html:
        raise BuildError(f"{page} has no `{MARK}` on its home page")
    page.write_text(html.replace(MARK, picture()), encoding="utf-8")
