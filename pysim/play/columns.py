"""The record layouts of a run, each column named: what the runtime records per access, the table the
analysis counts, and the log of global accesses the races between blocks are found in.

Each layout is a 2-D NumPy array (or a flat list of whole numbers, `Recorded`) with one column per name
here: a reader writes `rows[:, Row.ARRAY] == C_ARRAY`, never a bare column number.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..core.constants import WORD_BYTES
from .intrinsics import DTYPE_BYTES
from .program import Program

# Array numbers: the kernel's three parameters, then its allocations (Allocation.number + FIRST_ALLOCATION),
# then the module's constant arrays (pysim.play.constants).
A_ARRAY, B_ARRAY, C_ARRAY = 0, 1, 2
FIRST_ALLOCATION = 3


class Recorded(IntEnum):
    """The numbers the runtime appends to `Runtime.records` for one access (its value goes to `values`)."""

    SITE = 0
    ARRAY = 1
    WORD = 2
    ORDINAL = 3  # statements the thread executed in this barrier interval before the access (program order)
    VECTOR = 4  # the number of its iteration vector (Runtime.vectors)


RECORD = len(Recorded)  # numbers per access in Runtime.records


class Row(IntEnum):
    """A row of the analysis's table (pysim.play.table): one access, float64 columns."""

    POSITION = 0  # the interval's position in its chunk
    THREAD = 1  # linear thread id in the block
    ORDINAL = 2
    VECTOR = 3
    SITE = 4
    ARRAY = 5
    WORD = 6
    VALUE = 7  # the value read or written


ROW_COLUMNS = len(Row)


class Logged(IntEnum):
    """A row of the log of global accesses kept for the races between blocks (pysim.play.races), int64."""

    KEY = 0  # array number · WORD_KEY + word
    BLOCK = 1  # linear block number
    THREAD = 2
    SITE = 3
    STORE = 4  # 1 for a store, 0 for a load


@dataclass(frozen=True)
class ArrayInfo:
    """What the analysis needs to know about array number n."""

    name: str
    space: str  # global | shared | register | constant
    shape: tuple[int, ...]
    element_words: int = 1  # 32-bit words per element: 2 for float64 and int64 (their banks, pysim.play.table)

    @property
    def stride(self) -> int:
        """Row length in words; for a 1-D array its length (so row 0, col = index)."""
        return self.shape[-1]

    def index(self, word: int) -> tuple[int, ...]:
        """The element index of `word` (row-major; an out-of-bounds load's word may lie past the end)."""
        found = []
        for extent in reversed(self.shape[1:]):
            word, rest = divmod(word, extent)
            found.append(rest)
        return (word, *reversed(found))


def array_table(program: Program, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> tuple[ArrayInfo, ...]:
    """Every array of a run by its number: A, B and C, then the kernel's allocations."""
    globals_ = tuple(ArrayInfo(name, "global", tuple(m.shape)) for name, m in zip(program.params, (A, B, C)))
    allocations = tuple(
        ArrayInfo(a.name, a.space, a.shape, DTYPE_BYTES[a.dtype] // WORD_BYTES) for a in program.allocations
    )
    return globals_ + allocations + tuple(ArrayInfo(c.name, "constant", c.shape) for c in program.constant_arrays)
