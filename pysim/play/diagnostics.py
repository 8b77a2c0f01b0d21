"""The problems a run found, each once with how often it recurred: what the results panel lists.

Races (`pysim.play.races`), barrier divergence (`pysim.play.divergence`), out-of-bounds accesses and why a
run stopped are each a `Diagnostic`; `Diagnostics` keeps one per kind and lines, counting the repeats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .launch import Launch, thread_xy
from .program import Program
from .runtime import OutOfBounds
from .scheduler import Stop

ORDER = {"error": 0, "step_budget": 1, "barrier_divergence": 2, "warp_sync": 2, "race": 3, "out_of_bounds": 4}


@dataclass(frozen=True)
class Diagnostic:
    """One problem, naming the line, a thread (tx, ty) and its block (bx, by) that show it.

    `count` says how often the same problem (same kind and lines) occurred in the
    run; `other_line` / `other_thread` name the second party of a race.
    """

    kind: str  # race | out_of_bounds | barrier_divergence | warp_sync | step_budget | error
    line: int
    thread: tuple[int, ...]  # (tx, ty), or (tx, ty, tz) in a 3-D block
    block: tuple[int, ...]
    message: str
    count: int = 1
    other_line: int | None = None
    other_thread: tuple[int, ...] | None = None

    def as_dict(self) -> dict:
        found = {
            "kind": self.kind,
            "line": self.line,
            "thread": list(self.thread),
            "block": list(self.block),
            "message": self.message,
            "count": self.count,
        }
        if self.other_line is not None:
            found["other_line"] = self.other_line
        if self.other_thread is not None:
            found["other_thread"] = list(self.other_thread)
        return found


@dataclass
class Diagnostics:
    """The run's diagnostics so far, one per key (kind and lines), in `diagnostics` ordered for the page."""

    program: Program
    launch: Launch
    found: dict = field(default_factory=dict)  # (kind, line, other_line) -> Diagnostic

    def add(self, diagnostic: Diagnostic, key: tuple) -> None:
        """Record a diagnostic, or count one more of the same kind at the same lines."""
        known = self.found.get(key)
        if known is None:
            self.found[key] = diagnostic
        else:
            self.found[key] = Diagnostic(**{**known.__dict__, "count": known.count + diagnostic.count})

    def out_of_bounds(self, found: list[OutOfBounds]) -> None:
        for site, thread, block, name, index, shape in found:
            info = self.program.sites[site]
            xy = thread_xy(self.launch, thread)
            shown = ", ".join(str(i) for i in index)
            action = "the load was skipped and returned 0" if info.op == "load" else "the store was skipped"
            text = (
                f"out of bounds: thread {xy} of block {block} {'reads' if info.op == 'load' else 'writes'} "
                f"{name}[{shown}] at line {info.line}, but {name} has shape {shape}; {action}"
            )
            self.add(Diagnostic("out_of_bounds", info.line, xy, block, text), ("out_of_bounds", info.line))

    def warp(self, found: list[tuple[int, int, tuple[int, ...], str]]) -> None:
        """Warp primitives run with a mask that does not match their lanes, or reading a lane out of range
        (pysim.play.warps): one diagnostic per line and message, counting the lanes."""
        for line, thread, block, message in found:
            xy = thread_xy(self.launch, thread)
            text = f"warp: {message} (thread {xy} of block {block})"
            self.add(Diagnostic("warp_sync", line, xy, block, text), ("warp_sync", line, message.split(",")[0]))

    def stop(self, stop: Stop) -> None:
        xy = thread_xy(self.launch, stop.thread)
        if stop.kind == "step_budget":
            text = (
                f"step budget: {stop.message} (thread {xy} of block {stop.block} was at line {stop.line}); "
                "a loop that never ends, or a size too large for the playground"
            )
        else:
            text = f"{stop.message} (thread {xy} of block {stop.block}, line {stop.line}); the run stopped here"
        self.add(Diagnostic(stop.kind, stop.line, xy, stop.block, text), (stop.kind, stop.line))

    @property
    def ordered(self) -> tuple[Diagnostic, ...]:
        """Every diagnostic, most serious first, then by line."""
        return tuple(sorted(self.found.values(), key=lambda d: (ORDER.get(d.kind, 9), d.line)))
