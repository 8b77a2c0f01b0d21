"""One interval of a run as a reader steps through it, rebuilt from its rows only when asked for.

A run keeps each interval as the analysis counted it (`pysim.play.counting.Counted`: its rows of the
table, `pysim.play.columns.Row`). `Decoder` turns them back into what a reader looks at: a
`pysim.core.trace.Step` whose accesses are the interval's warp instructions (`pysim.play.table.warp_accesses`),
and one thread's statements with the accesses each made (`ThreadStep`, `AccessRecord`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..core.trace import Step
from .columns import ArrayInfo, Row
from .counting import Counted, Lockstep
from .launch import Launch, linear_thread, thread_xy
from .program import Program
from .table import warp_accesses

# What `Decoder.steps` reads of a thread's rows, in this order (`Decoder._record` unpacks them).
STEP_COLUMNS = [Row.ORDINAL, Row.VECTOR, Row.SITE, Row.ARRAY, Row.WORD, Row.VALUE]


@dataclass(frozen=True)
class AccessRecord:
    """One thread's access to one array element, as it happened."""

    space: str  # global | shared | register
    op: str  # load | store
    array: str
    index: tuple[int, ...]  # (row, col), or (i,) for a 1-D array
    value: float
    line: int
    site: int  # which subscript of the source (Program.sites)
    occurrence: int  # its warp instruction: the row of the interval's Access for this site (one per iteration)

    def as_dict(self, thread: tuple[int, ...]) -> dict:
        """SPEC §5 trace access object."""
        return {
            "space": self.space,
            "op": self.op,
            "array": self.array,
            "index": list(self.index),
            "thread": list(thread),
            "value": self.value,
        }


@dataclass(frozen=True)
class ThreadStep:
    """One statement one thread executed, with the accesses it made."""

    statement: int
    line: int
    accesses: tuple[AccessRecord, ...]


@dataclass(frozen=True, eq=False)
class Decoder:
    """Rebuilds the intervals of one run: its program, launch and arrays (`pysim.play.columns.array_table`)."""

    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]

    @cached_property
    def _described(self) -> list[tuple[str, str, int, str, int]]:
        """(array name, space, row length, op, 32-bit words per element) by site·arrays + array
        (pysim.play.table.warp_accesses)."""
        return [(a.name, a.space, a.stride, s.op, a.element_words) for s in self.program.sites for a in self.arrays]

    def step(self, counted: Counted) -> tuple[Step, Lockstep]:
        """A counted interval as a Step (its accesses as warp instructions), and how they map to its rows."""
        if counted.chunk is None:
            return Step("interval", (0,)), Lockstep({})
        accesses, rows = warp_accesses(
            counted.rows(), counted.chunk.vectors, self._described, len(self.arrays), self.launch.threads
        )
        delta = counted.delta
        step = Step(
            "interval",
            counted.barrier_lines,
            accesses=accesses,
            fma=delta.fma,
            register_reads=delta.register_reads,
            barrier=bool(delta.barriers),
        )
        return step, Lockstep(rows)

    def linear(self, thread: int | tuple[int, ...]) -> int:
        if isinstance(thread, tuple):
            return linear_thread(self.launch, thread)
        return thread

    def xy(self, thread: int) -> tuple[int, ...]:
        return thread_xy(self.launch, thread)

    def steps(self, stream: list[int], made: np.ndarray, lockstep: Lockstep) -> tuple[ThreadStep, ...]:
        """One thread's statements in one interval with the accesses it `made` (Counted.thread_records), each
        access with its warp instruction (Lockstep.rows, from the iteration vector it recorded). An access
        belongs to the statement its ordinal counts to: the ordinal-th of the interval's stream."""
        statements = self.program.statements
        found: list[ThreadStep] = []
        records: list[AccessRecord] = []
        current: int | None = None
        accesses = iter(made[:, STEP_COLUMNS].tolist())
        pending = next(accesses, None)
        for ordinal, item in enumerate(stream, start=1):
            if statements[item].kind != "next":  # the top of a for loop's iteration: no statement of its own
                if current is not None:
                    found.append(ThreadStep(current, statements[current].line, tuple(records)))
                current, records = item, []
            while pending is not None and pending[0] == ordinal:
                records.append(self._record(pending, lockstep))
                pending = next(accesses, None)
        if current is not None:
            found.append(ThreadStep(current, statements[current].line, tuple(records)))
        return tuple(found)

    def _record(self, row: list[float], lockstep: Lockstep) -> AccessRecord:
        """One access from its record (STEP_COLUMNS)."""
        _, vector, site, number, word, value = row
        info, op = self.arrays[int(number)], self.program.sites[int(site)]
        index = info.index(int(word))
        # Register accesses are not warp instructions the analysis groups: they have no row.
        instruction = lockstep.rows.get((int(site) * len(self.arrays) + int(number), int(vector)), 0)
        return AccessRecord(info.space, op.op, info.name, index, value, op.line, int(site), instruction)
