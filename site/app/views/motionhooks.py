"""The stepping views' register tile and values in flight (issue 39 items 2-3), apart from the view's
stepping itself: what pysim.lessons.motion says a step moves, handed to the widgets that draw it."""

from __future__ import annotations

from typing import Any

from pysim.lessons.motion import RegisterTile, load_moves, register_moves, register_tile

from ..widgets.motion import MAX_FLIGHTS, Flights
from ..widgets.registertile import RegisterTileView


class MotionHooks:
    """Mixed into SteppingView, whose state (kernel, params, trace, thread, player) these read."""

    kernel: Any
    params: Any
    trace: Any
    thread: int
    player: Any
    counts_only: bool
    flights: Flights | None
    flight_grids: Any
    register_tile: RegisterTileView | None
    tile_now: RegisterTile | None
    motion_frame: Any

    def thread_label(self, thread: int) -> str:
        raise NotImplementedError

    def load_register_tile(self) -> None:
        """Size the register tile for these parameters (a kernel without regM and regN has none)."""
        tile = register_tile(self.kernel, self.params, self.trace[0], self.thread)
        self.register_tile.element.parentElement.hidden = tile is None
        if tile is not None:
            self.register_tile.load(
                tile.column.size, tile.row.size, self.trace.expected.max(), self.thread_label(self.thread)
            )

    def show_register_tile(self, step) -> None:
        """The followed thread's registers at this step (kept for the values in flight)."""
        self.tile_now = None
        if self.register_tile is not None:
            self.tile_now = register_tile(self.kernel, self.params, step, self.thread)
            if self.tile_now is not None:
                self.register_tile.follow(self.thread_label(self.thread))
                self.register_tile.show(self.tile_now)

    def draw_motion(self, timestamp=None) -> None:
        """The step's values in flight: a load's for every active thread, the followed thread's into its
        registers and into its results."""
        self.motion_frame = None
        if self.trace is None or self.counts_only:
            return
        step = self.trace[self.player.index]
        moves = load_moves(step, MAX_FLIGHTS) + register_moves(step, self.tile_now, self.thread)
        self.flights.draw(moves, self.flight_grids)
