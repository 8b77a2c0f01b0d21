"""The kernel contract: what every kernel module provides, checked when it is registered.

A kernel module is its CUDA listing, its launch shape, its step generator and its
closed-form counters, plus the mappings views draw from (so a view never redoes a
kernel's index arithmetic). What the page says about a step lives in
pysim/lessons/narration/<NAME>.py, not here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import numpy as np

from ..core.counters import Counters
from ..core.listing import Listing
from ..core.trace import Cell, Focus, Step

REQUIRED = (
    "NAME",
    "TITLE",
    "PARAMS",
    "LISTING",
    "source",
    "grid",
    "threads",
    "thread_xy",
    "steps_per_block",
    "owner",
    "regions",
    "focus",
    "block_steps",
    "counters_for",
)
"""Members every kernel module defines (KernelModule below names their types)."""

OPTIONAL = ("owned_cells", "reference", "REFERENCE_LABEL", "tensor_flops")
"""Members a kernel may define: the C cells a thread owns when it owns more than one
(`owned_cells`), what C must equal when it is not A @ B (`reference`, named for the
page by `REFERENCE_LABEL`), and the FLOPs its tensor instructions execute in a run with
given counters (`tensor_flops`: a tensor-core kernel's, priced at the TF32 peak)."""


class KernelModule(Protocol):
    __name__: str  # every module has one; registration errors name the module by it
    NAME: str  # the CLI's --kernel key and the route's name
    TITLE: str
    PARAMS: type[Any]  # a frozen dataclass from pysim.hardware.params with parse() and PRESETS
    LISTING: Listing  # the CUDA source with @@markers on the statements steps execute

    def source(self, p: Any) -> list[str]:
        """The listing's lines with the sizes filled in."""

    def grid(self, p: Any) -> tuple[int, int]:
        """(gridDim.x, gridDim.y)."""

    def threads(self, p: Any) -> int:
        """Threads per block."""

    def thread_xy(self, p: Any, thread: int) -> tuple[int, int]:
        """(tx, ty) of a linear thread id, as the page names threads."""

    def steps_per_block(self, p: Any) -> int:
        """How many steps block_steps yields for one block (the same for every block); the
        tests check it against the generator for every kernel at several sizes."""

    def owner(self, p: Any, row: int, col: int) -> tuple[tuple[int, int], int]:
        """The block and linear thread id that store C[row][col]."""

    def regions(self, p: Any, step: Step) -> dict[str, list[Cell]]:
        """Per array, the cells the block works on at this step."""

    def focus(self, p: Any, step: Step, thread: int) -> Focus:
        """What one thread owns, reads in this tile step, and uses at this statement."""

    def block_steps(self, p: Any, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
        """Run one block, one CUDA statement (or one loop round) per step."""

    def counters_for(self, p: Any, bxs: np.ndarray, bys: np.ndarray) -> Counters:
        """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""


def missing_members(module: object) -> list[str]:
    """The required members `module` lacks (empty when it keeps the contract)."""
    return [name for name in REQUIRED if not hasattr(module, name)]
