"""The state a run's threads share: their arrays and what every access records (the guards' context).

No OS threads: each simulated thread is a Python generator (see `pysim.play.rewrite`) that the scheduler
(`pysim.play.scheduler`) runs until its next `cuda.syncthreads()` or its end; the functions the rewritten
kernel calls for every access (`pysim.play.guards`) read and write this small context, as Numba's CUDA
simulator keeps its kernel API apart from its scheduler. Shared arrays belong to the block, local arrays
to the thread, A, B and C to everyone.

Every statement appends its number to the thread's stream (for stepping and the step budget); every
access extends one flat list of the whole run (`Runtime.records`) by the whole numbers of
`pysim.play.columns.Recorded`, and appends its value to another (`Runtime.values`), which the analysis
turns into a table with a copy of each, knowing only how many accesses each thread made in each interval
(`Interval.records`). The ordinal (statements the thread executed in this barrier interval, so the access
belongs to the ordinal-th statement of its segment) and the iteration vector (`Vectors`) are kept by the
rewritten kernel itself, so nothing walks a stream item by item. Arrays hold float32 (`array('f')`: a
store rounds to float32, as on the GPU).
"""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from .columns import FIRST_ALLOCATION
from .intrinsics import DTYPES
from .program import Allocation, Program

# One access the runtime skipped: (site, thread, block, array, index, the array's shape).
OutOfBounds = tuple[int, int, tuple[int, ...], str, tuple[Any, ...], tuple[int, ...]]
NAN = float("nan")


class StepBudgetError(Exception):
    """The run executed more steps than its budget."""


class KernelError(Exception):
    """A mistake found while a thread ran (not indexing an array, a float index...)."""


class Array:
    """An array as the kernel sees it (1-, 2- or 3-D): `.shape`, and the fields the access functions check."""

    __slots__ = ("name", "space", "number", "data", "shape", "rows", "cols", "ld", "n1")

    def __init__(self, name: str, space: str, number: int, shape: tuple[int, ...], data: array) -> None:
        self.name, self.space, self.number, self.shape, self.data = name, space, number, shape, data
        # -1 where an access of another number of indices must miss (pysim.play.guards; a 3-D one reads .shape)
        if len(shape) == 2:
            self.rows, self.cols, self.ld, self.n1 = shape[0], shape[1], shape[1], -1
        else:
            self.rows, self.cols, self.ld, self.n1 = -1, -1, 1, shape[0] if len(shape) == 1 else -1

    def __repr__(self) -> str:
        return f"Array({self.name!r}, {self.space}, shape={self.shape})"

    def to_numpy(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=np.float32).reshape(self.shape).copy()


def _fresh(allocation: Allocation) -> array:
    """A new shared or local array's words: garbage on a GPU, NaN here (0 in an integer array)."""
    typecode = DTYPES[allocation.dtype][0]
    return array(typecode, [NAN if typecode in "fd" else 0]) * allocation.words


def constant_array(constant: Any, number: int) -> Array:
    """A module-level NumPy array in constant memory (pysim.play.constants.ConstantArray) as the kernel reads it."""
    data = array(DTYPES[constant.dtype][0])
    data.frombytes(constant.values.tobytes())
    return Array(constant.name, "constant", number, constant.shape, data)


def global_array(name: str, number: int, values: np.ndarray) -> Array:
    data = array("f")
    data.frombytes(np.ascontiguousarray(values, dtype=np.float32).tobytes())
    return Array(name, "global", number, tuple(values.shape), data)


class Vectors:
    """Iteration vectors (the iteration of each loop around a statement, outermost first) numbered in the
    order they first occur, run-wide: the rewritten kernel numbers its vector at the top of every iteration
    (`numbers.setdefault(vector, len(numbers))`: two C calls, no Python frame, since a runaway loop makes a
    new vector at every iteration), so each access carries one small number."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[int, ...], int] = {}
        self._listed: list[tuple[int, ...]] = []

    def by_number(self) -> list[tuple[int, ...]]:
        """Every vector so far, by its number (listed again only when new ones came)."""
        if len(self._listed) != len(self.numbers):
            self._listed = list(self.numbers)
        return self._listed


class Runtime:
    """The state every thread's accesses go through (the context of `pysim.play.guards`)."""

    def __init__(self, program: Program, max_steps: int) -> None:
        self.program = program
        self.max_steps = max_steps
        self.executed = 0  # steps (statements + accesses) of finished thread-intervals
        self.stream: list[int] = []  # the running thread's stream: the statements it executed
        # Every access of the run not yet in the analysis's table, `Recorded`'s numbers each, and its value (the
        # analysis empties both). Flat lists of one type each: extending them is cheaper than making a tuple an
        # item, and struct (the ints, pysim.play.counting `_int64`) and array('d') convert them several times
        # faster than NumPy converts a mixed list (most of the table's cost in Pyodide).
        self.records: list[int] = []
        self.values: list[float] = []
        self.charged = 0  # steps the running thread spent beyond its stream (local arrays it filled)
        self.thread = 0
        self.block: tuple[int, ...] = (0, 0)
        self.interval = 0  # the running block's barrier interval (pysim.play.memory reads it)
        self.shared: dict[int, Array] = {}
        self.out_of_bounds: list[OutOfBounds] = []
        self.warp_problems: list[tuple[int, int, tuple[int, ...], str]] = []  # line, thread, block, message
        self.vectors = Vectors()
        self.local_templates = {  # a fresh local array copies its template
            a.number: _fresh(a) for a in program.allocations if a.space == "register"
        }

    # --- shared and local arrays -------------------------------------------------------------
    def new_block(self, block: tuple[int, ...]) -> None:
        self.block = block
        shared = [a for a in self.program.allocations if a.space == "shared"]
        dynamic = next((_fresh(a) for a in shared if a.dynamic), array("f"))  # one memory for every dynamic array
        self.shared = {
            a.number: Array(a.name, "shared", FIRST_ALLOCATION + a.number, a.shape, dynamic if a.dynamic else _fresh(a))
            for a in shared
        }
