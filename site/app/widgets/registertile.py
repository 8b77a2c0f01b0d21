"""The followed thread's register tile (SPEC §7 data-testid="register-tile"): regM as a column, regN as a
row, and the TM×TN results they make, the results being computed now marked as the followed thread's
cells are. Values from pysim.lessons.motion.register_tile; the widget only draws them."""

from __future__ import annotations

from pysim.lessons.motion import RESULTS, RegisterTile

from ..core.dom import h
from .grids import MatrixGrid


class RegisterTileView:
    """Three small grids in the register level's colour, placed as the outer product is written."""

    def __init__(self) -> None:
        self.grids = {
            "regM": MatrixGrid("regM", "regM", level="register"),
            "regN": MatrixGrid("regN", "regN", level="register"),
            RESULTS: MatrixGrid(RESULTS, RESULTS, level="register"),
        }
        self.title = h("p", "hint", "")
        times = h("span", "register-times", "×", aria_hidden="true")
        square = h(
            "div",
            "register-square",
            children=[times, self.grids["regN"].element, self.grids["regM"].element, self.grids[RESULTS].element],
        )
        self.element = h(
            "div", "register-tile", data_testid="register-tile", data_level="register", children=[self.title, square]
        )

    def load(self, rows: int, cols: int, widest: float, who: str) -> None:
        """The tile of a thread with `rows` regM values and `cols` regN values; `who` names the thread."""
        self.grids["regM"].resize(rows, 1, f"regM [{rows}]", widest)
        self.grids["regN"].resize(1, cols, f"regN [{cols}]", widest)
        self.grids[RESULTS].resize(rows, cols, f"{RESULTS} [{rows}×{cols}]", widest)
        self.follow(who)

    def follow(self, who: str) -> None:
        self.title.textContent = f"{who}'s registers: regM × regN → its {RESULTS}"

    def show(self, tile: RegisterTile) -> None:
        now = tile.current
        rows, cols = {i for i, _ in now}, {j for _, j in now}
        self.grids["regM"].show(tile.column, {(i, 0): "followed" for i in rows})
        self.grids["regN"].show(tile.row, {(0, j): "followed" for j in cols})
        self.grids[RESULTS].show(tile.results, dict.fromkeys(now, "followed"))
