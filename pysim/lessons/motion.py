"""What moves in a step, and the followed thread's register tile: data for the pages' values in flight
(site/app/widgets/motion.py) and their drawn register tile (site/app/widgets/registertile.py).

A load step pairs its global load with its shared store lane by lane, word by word: every active thread's
elements, in the order the lane moves them (a float4 load that a kernel stores transposed, as four scalar
stores, pairs word k with store k). A shared load into registers and the outer product's FMAs are the
followed thread's: As feeds regM, Bs feeds regN, and regM[i] and regN[j] meet in threadResults[i][j].
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.trace import Access, Step
from ..core.warps import INACTIVE

Cell = tuple[int, int]
# The register array each shared array is copied into, in the register-tiled kernels (k05, k06, k10).
FEEDS = {"As": "regM", "Bs": "regN"}
RESULTS = "threadResults"


@dataclass(frozen=True)
class Move:
    """One value going from a cell of one array to a cell of another (register arrays as grids: regM a
    column, regN a row, threadResults the TM×TN square)."""

    source: str
    source_cell: Cell
    target: str
    target_cell: Cell
    value: float
    thread: int


@dataclass(frozen=True)
class RegisterTile:
    """The followed thread's registers at a step: regM (a column), regN (a row), the TM×TN results, and
    the results its FMAs of this step compute."""

    column: np.ndarray  # regM
    row: np.ndarray  # regN
    results: np.ndarray
    current: tuple[Cell, ...]


def _lane_words(access: Access, thread: int, skip: np.ndarray | None = None) -> Iterator[tuple[Cell, float]]:
    """The elements one lane moves, in order: instruction by instruction, then word by word."""
    for i in range(access.rows.shape[0]):
        row = int(access.rows[i, thread])
        if row == INACTIVE or (skip is not None and skip[i, thread]):
            continue
        for offset in range(access.width):
            value = access.values[i, thread, offset] if access.width > 1 else access.values[i, thread]
            yield (row, int(access.cols[i, thread]) + offset), float(value)


def load_moves(step: Step, limit: int) -> tuple[Move, ...]:
    """Every element a cooperative load carries from global to shared memory (at most `limit`, threads in
    order); none in a step that is not one global load stored into one shared array. A zero-fill (an
    element outside the matrix) comes from no global cell and does not travel."""
    loads = [a for a in step.accesses if (a.space, a.op) == ("global", "load")]
    stores = [a for a in step.accesses if (a.space, a.op) == ("shared", "store")]
    if len(loads) != 1 or len(stores) != 1:
        return ()
    source, target = loads[0], stores[0]
    moves: list[Move] = []
    for thread in range(source.rows.shape[1]):
        words = list(_lane_words(source, thread))
        stored = list(_lane_words(target, thread, target.zero_fill))
        if len(words) != len(stored):
            continue  # a lane whose loads and stores do not pair one to one is not drawn
        for (cell, value), (into, _) in zip(words, stored):
            moves.append(Move(source.array, cell, target.array, into, value, thread))
            if len(moves) == limit:
                return tuple(moves)
    return tuple(moves)


def register_moves(step: Step, tile: RegisterTile | None, thread: int) -> tuple[Move, ...]:
    """The followed thread's values into its registers (As → regM, Bs → regN) and its FMAs' operands
    meeting in their results (regM[i] and regN[j] → threadResults[i][j])."""
    if tile is None:
        return ()
    moves = []
    for access in step.accesses:
        if (access.space, access.op) != ("shared", "load") or access.array not in FEEDS:
            continue
        register = FEEDS[access.array]
        for index, (cell, value) in enumerate(_lane_words(access, thread)):
            into = (index, 0) if register == "regM" else (0, index)
            moves.append(Move(access.array, cell, register, into, value, thread))
    for i, j in tile.current:
        moves.append(Move("regM", (i, 0), RESULTS, (i, j), float(tile.column[i]), thread))
        moves.append(Move("regN", (0, j), RESULTS, (i, j), float(tile.row[j]), thread))
    return tuple(moves)


def register_tile(kernel: Any, params: Any, step: Step, thread: int) -> RegisterTile | None:
    """The followed thread's regM, regN and results (None for a kernel without both), and which results
    this step's FMAs compute: the pairs (i, j) of the As cell and Bs cells in use now, by their place in
    the column and row the thread copied into regM and regN (k05, k06 and k10 `focus`)."""
    registers = step.registers
    if not {"regM", "regN", RESULTS} <= registers.keys():
        return None
    column, row = registers["regM"][thread], registers["regN"][thread]
    results = np.reshape(registers[RESULTS][thread], (column.size, row.size))
    current: tuple[Cell, ...] = ()
    if step.fma and not step.accesses:
        focus = kernel.focus(params, step, thread)
        rows = _places(focus.operands.get("As", ()), focus.current.get("As", ()))
        cols = _places(focus.operands.get("Bs", ()), focus.current.get("Bs", ()))
        current = tuple((i, j) for i in rows for j in cols)
    return RegisterTile(column, row, results, current)


def _places(operands: tuple[Cell, ...], used: tuple[Cell, ...]) -> list[int]:
    return [operands.index(cell) for cell in used if cell in operands]
