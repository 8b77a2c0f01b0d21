"""Steps, accesses and the random-access trace the views walk.

A kernel module yields one Step per CUDA statement a block executes, with the
accesses it made (each with the values read or written) and the state it left.
The Trace numbers the steps, counts each step's events from its recorded
accesses, and adds the counts of earlier blocks from per-block closed forms, so
any step is reachable without replaying the run. C is assembled only from the
values the simulated threads stored, so the C check compares the simulation
with NumPy, never a formula with NumPy. Only a few blocks' steps are kept in
memory at a time; the stores of every simulated block are kept (M·N values).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import accumulate, chain
from typing import Any

import numpy as np

from . import banks, instructions, sectors
from .constants import WORD_BYTES, WORDS_PER_SECTOR
from .counters import Counters
from .matrices import operands
from .warps import INACTIVE

Cell = tuple[int, int]


def cells(rows: range, cols: range) -> list[Cell]:
    """Every (row, col) of a rectangle, row by row."""
    return [(r, c) for r in rows for c in cols]


def _distinct_cells(rows: np.ndarray, cols: np.ndarray) -> list[Cell]:
    """The distinct (row, col) pairs, sorted, found by NumPy: a view asks for a block's 1,024 cells at
    every step, and a set of Python tuples built from them was a sixth of a naive step (issue 44)."""
    if rows.size == 0:
        return []
    width = int(cols.max()) + 1
    keys = np.unique(rows.astype(np.int64) * width + cols)  # cols >= 0: a key orders as (row, col) does
    found_rows, found_cols = np.divmod(keys, width)
    return list(zip(found_rows.tolist(), found_cols.tolist()))


def _two_d(values: np.ndarray, shape: tuple[int, int] | None = None) -> np.ndarray:
    """`values` as (instructions, threads), broadcast to `shape` if given (the fast path first:
    a simulation makes hundreds of thousands of accesses)."""
    array = np.asarray(values)
    if array.ndim == 1:
        array = array[None, :]
    if shape is not None and array.shape != shape:
        array = np.broadcast_to(array, shape)
    return array


@dataclass(frozen=True, eq=False)
class Access:
    """One statement's accesses to one array by every thread of the block.

    `rows` and `cols` are (instructions, threads): one row per warp-wide
    instruction the statement issues, INACTIVE where a thread makes no access.
    `stride` is the array's row length in words (padding included). `width` is
    how many consecutive words each lane moves in one instruction (1, or 2 and 4
    for LDG/STG/LDS/STS .64/.128); rows/cols give each lane's first element.
    `values` holds what each thread read or wrote: (instructions, threads), with
    a last axis of `width` words when width > 1; a zero-fill writes 0.
    `asynchronous` marks a shared store made by cp.async (LDGSTS): the copy goes from global
    to shared memory without a register in between, so it is counted in `async_copy_bytes`,
    not as a thread's shared store (SPEC §7).
    `element_words` is 2 for an array of 8-byte elements (a playground float64 or int64 shared
    array): rows/cols count elements, and each lane's element is an LDS.64/STS.64 of two 32-bit
    words, whose banks `bank_words` gives (pysim.core.banks: half-warp phases).
    `bulk` marks both sides of a TMA copy (cp.async.bulk.tensor): one instruction of one thread
    moves a whole box, one element per row of `rows`. Its global side counts the elements read
    and the distinct sectors of the whole box (not per warp); its shared side counts `tma_bytes`,
    no lane's store and no bank conflict (the TMA unit writes shared memory itself).
    """

    array: str
    space: str
    op: str
    rows: np.ndarray
    cols: np.ndarray
    stride: int
    values: np.ndarray
    zero_fill: np.ndarray | None = None
    width: int = 1
    asynchronous: bool = False
    element_words: int = 1
    bulk: bool = False

    def __post_init__(self) -> None:
        rows = _two_d(self.rows)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "cols", _two_d(self.cols, rows.shape))
        if self.width == 1:
            object.__setattr__(self, "values", _two_d(self.values, rows.shape))
        else:
            object.__setattr__(self, "values", np.broadcast_to(self.values, rows.shape + (self.width,)))
        if self.zero_fill is not None:
            object.__setattr__(self, "zero_fill", _two_d(self.zero_fill))

    @property
    def active(self) -> np.ndarray:
        return self.rows != INACTIVE

    @property
    def words(self) -> np.ndarray:
        """First element (word) index of each lane's access in its array, INACTIVE where idle."""
        return np.where(self.active, self.rows * self.stride + self.cols, INACTIVE)

    def bank_words(self) -> tuple[np.ndarray, int]:
        """(each lane's first 32-bit word, INACTIVE where idle; the 32-bit words each lane moves): what the
        bank analysis reads."""
        return banks.bank_words(self.words, self.width, self.element_words)

    @property
    def elements(self) -> int:
        """Elements moved by every lane of every instruction (a float4 access moves 4)."""
        return int(np.count_nonzero(self.active)) * self.width

    def _spread(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, values) of every element the lanes in `mask` move, one entry per word."""
        offsets = np.arange(self.width)
        rows = np.broadcast_to(self.rows[..., None], self.rows.shape + (self.width,))
        cols = self.cols[..., None] + offsets
        values = self.values if self.width > 1 else self.values[..., None]
        wide = np.broadcast_to(mask[..., None], rows.shape)
        return rows[wide], cols[wide], values[wide]

    def cells(self, thread: int | None = None) -> list[tuple[int, int]]:
        """Distinct (row, col) cells touched, by all threads or by one."""
        mask = self.active
        if thread is not None:
            mask = mask & (np.arange(mask.shape[1]) == thread)
        return _distinct_cells(*self._spread(mask)[:2])

    def zero_cells(self) -> list[tuple[int, int]]:
        if self.zero_fill is None:
            return []
        return _distinct_cells(*self._spread(self.zero_fill & self.active)[:2])

    def write_into(self, target: np.ndarray) -> None:
        """Apply this access's stored values to `target` (a store's effect on its array)."""
        rows, cols, values = self._spread(self.active)
        target[rows, cols] = values


@dataclass(frozen=True, eq=False)
class Step:
    """What one CUDA statement did in one block; `counters` are cumulative after it."""

    phase: str  # setup | load | commit | wait | barrier | compute | store (commit, wait: cp.async groups)
    lines: tuple[int, ...]  # the listing lines of the statement it executes (see pysim.core.listing)
    accesses: tuple[Access, ...] = ()
    registers: dict[str, np.ndarray] = field(default_factory=dict)
    shared: dict[str, np.ndarray] = field(default_factory=dict)
    tile: int | None = None
    k: int | None = None
    pair: tuple[int, int] | None = None
    # Loop indices inside dotIdx that a grouped compute step stands for, as the kernel names them
    # (blocktile1d: (resIdx,); vectorized: (resIdxM,); warptile: (wSubRowIdx, wSubColIdx)).
    inner: tuple[int, ...] = ()
    fma: int = 0
    register_reads: int = 0
    mma: int = 0  # warp-wide tensor-core instructions the statement issued (SPEC §7 mma_instructions)
    waits: int = 0  # threads that waited on an mbarrier at this statement (SPEC §7 mbarrier_waits)
    barrier: bool = False
    index: int = -1
    block: tuple[int, int] = (0, 0)
    block_number: int = 0
    delta: Counters = Counters()
    counters: Counters = Counters()
    # Where nvcc issues the step's shared accesses otherwise than as rows (`pysim.core.instructions.issued`):
    # access index -> each row's (width, shift); what count_step counted the per-warp counters with.
    issues: Mapping[int, list[instructions.Issue]] = field(default_factory=dict)

    @property
    def line(self) -> int:
        """The first listing line of the statement (SPEC §5 `line`)."""
        return self.lines[0]

    def access(self, array: str) -> Access | None:
        return next((a for a in self.accesses if a.array == array), None)

    def global_stores(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.space == "global" and a.op == "store")


@dataclass(frozen=True)
class Focus:
    """What one thread works with at a step, as the kernel maps it (views never redo this math).

    `owned`: the C cells the thread computes; `operands`: per array, the cells it
    reads during the current tile step; `current`: per array, the cells in use
    at this very statement.
    """

    owned: tuple[Cell, ...]
    operands: Mapping[str, tuple[Cell, ...]] = field(default_factory=dict)
    current: Mapping[str, tuple[Cell, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Filling:
    """C as it fills: by some step, how many of its `elements` values the threads have stored, and how
    many of those equal NumPy's answer (the verify badge says this before the run's end)."""

    stored: int
    matching: int
    elements: int


def count_step(step: Step, issues: Mapping[int, list[instructions.Issue]] | None = None) -> Counters:
    """Count a step's events from what it recorded (SPEC §2). The element counts count the listing's
    accesses; the per-warp-instruction counters count the instructions nvcc issues, `issues` giving the
    rows of the step's accesses (by index) that differ (`pysim.core.instructions.issued`)."""
    totals = {
        "fma": step.fma,
        "register_reads": step.register_reads,
        "mma_instructions": step.mma,
        "barriers": int(step.barrier),
        "mbarrier_waits": step.waits,
    }
    for number, access in enumerate(step.accesses):
        issue = issues.get(number) if issues else None
        for key, value in (_bulk_counts(access) if access.bulk else _lane_counts(access, issue)).items():
            totals[key] = totals.get(key, 0) + value
    return Counters(**totals)


def _lane_counts(access: Access, issue: list[instructions.Issue] | None = None) -> dict[str, int]:
    """An access the lanes make: elements, global sectors per warp, shared bank costs (of the instructions
    nvcc issues for it, `issue`, where the trace's plan has them: instructions.issued)."""
    if access.asynchronous:
        found = {"async_copy_bytes": access.elements * WORD_BYTES}
    else:
        found = {f"{access.space}_{access.op}s": access.elements}
    words, width = access.words, access.width
    if access.space == "global" and access.op == "load":
        found["global_sectors"] = int(sectors.warp_sectors(words, width).sum())
    if access.space == "shared" and issue is not None:
        costs = instructions.issued_costs(words, issue, access.element_words)
        found["bank_extra_cycles"], found["shared_wavefronts"] = costs
    elif access.space == "shared":
        found["bank_extra_cycles"], found["shared_wavefronts"] = banks.costs(*access.bank_words())
    return found


def _bulk_counts(access: Access) -> dict[str, int]:
    """A TMA box's counts: its global side's elements and distinct sectors, its shared side's bytes."""
    if access.space == "shared":
        return {"tma_bytes": access.elements * WORD_BYTES}
    words = access.words[access.active]
    return {"global_loads": access.elements, "global_sectors": int(np.unique(words // WORDS_PER_SECTOR).size)}


class Trace:
    """Every step of one kernel run, reachable in any order; C from what the threads stored."""

    def __init__(self, kernel: Any, params: Any, seed: int = 0, cached_blocks: int = 3) -> None:
        self.kernel = kernel
        self.params = params
        self.A, self.B = operands(params.M, params.N, params.K, seed)
        gx, gy = kernel.grid(params)
        self.blocks = [(bx, by) for by in range(gy) for bx in range(gx)]
        self.steps_per_block = kernel.steps_per_block(params)
        self._plan: instructions.Plan | None = None  # read from block (0, 0)'s steps when first built
        per_block = [kernel.block_counters(params, bx, by) for bx, by in self.blocks]
        self._before_block = [Counters(), *accumulate(per_block)]
        self._cached_blocks = cached_blocks
        self._cache: OrderedDict[int, _LazyBlock] = OrderedDict()
        self.expected = kernel.expected_c(self.A, self.B)  # NumPy's answer, the independent check
        self._stores: dict[int, tuple[Access, ...]] = {}  # block number -> its global stores
        self._c_prefix: tuple[int, np.ndarray] | None = None  # (blocks, C after that many blocks)
        self._c_step: tuple[int, np.ndarray] | None = None  # (step index, C after that step)

    def __len__(self) -> int:
        return len(self.blocks) * self.steps_per_block

    def __getitem__(self, index: int) -> Step:
        if not 0 <= index < len(self):
            raise IndexError(f"step {index} is outside 0..{len(self) - 1}")
        number, local = divmod(index, self.steps_per_block)
        return self._block(number).get(local)

    def __iter__(self) -> Iterator[Step]:
        for index in range(len(self)):
            yield self[index]

    @property
    def totals(self) -> Counters:
        return self._before_block[-1]

    def first_step(self, block_number: int) -> int:
        return block_number * self.steps_per_block

    def next_block_step(self, index: int) -> int:
        """First step of the block after the one holding `index` (or the last step)."""
        return min((index // self.steps_per_block + 1) * self.steps_per_block, len(self) - 1)

    # --- C, from the stores ---------------------------------------------------
    @property
    def blocks_simulated(self) -> int:
        return len(self._stores)

    def simulate(self, number: int) -> None:
        """Run block `number` to its end (uncounted: only its stores are kept)."""
        if number not in self._stores:
            bx, by = self.blocks[number]
            steps = self.kernel.block_steps(self.params, self.A, self.B, bx, by)
            self._stores[number] = tuple(a for step in steps for a in step.global_stores())

    def next_unsimulated(self) -> int | None:
        """The first block whose stores are not known yet (None when every block ran)."""
        return next((n for n in range(len(self.blocks)) if n not in self._stores), None)

    def final_c(self) -> np.ndarray:
        """C after every block ran: NaN wherever no thread stored a value."""
        return self._c_before(len(self.blocks))

    def mismatches(self) -> int:
        """Elements of C that differ from NumPy's answer or that no thread stored."""
        return int(np.count_nonzero(~(self.final_c() == self.expected)))

    def c_matches(self) -> bool:
        """Every element the threads stored equals NumPy's answer, and every element was stored."""
        return self.mismatches() == 0

    def c_after(self, index: int) -> np.ndarray:
        """C as stored by the end of step `index`: earlier blocks, then this block's steps so far.

        The result is shared with the trace's cache: read it, do not change it."""
        number = self[index].block_number
        first = self.first_step(number)
        if self._c_step is not None and first <= self._c_step[0] <= index:
            start, c = self._c_step[0] + 1, self._c_step[1]
        else:
            start, c = first, self._c_before(number)
        stores = [a for i in range(start, index + 1) for a in self[i].global_stores()]
        if stores:
            c = c.copy()
            for access in stores:
                access.write_into(c)
        self._c_step = (index, c)
        return c

    def filling(self, index: int) -> Filling:
        """How far C has filled by the end of step `index`, and how much of it is right so far."""
        c = self.c_after(index)
        stored = int(np.count_nonzero(~np.isnan(c)))
        return Filling(stored, int(np.count_nonzero(c == self.expected)), int(c.size))

    def _c_before(self, blocks: int) -> np.ndarray:
        """C after the first `blocks` blocks (cached, so stepping inside a block costs nothing)."""
        if self._c_prefix is not None and self._c_prefix[0] == blocks:
            return self._c_prefix[1]
        start, c = (0, None)
        if self._c_prefix is not None and self._c_prefix[0] < blocks:
            start, c = self._c_prefix[0], self._c_prefix[1].copy()
        if c is None:
            c = np.full(self.expected.shape, np.nan, dtype=np.float32)
        for number in range(start, blocks):
            self.simulate(number)
            for access in self._stores[number]:
                access.write_into(c)
        self._c_prefix = (blocks, c)
        return c

    # --- steps ------------------------------------------------------------------
    def _block(self, number: int) -> _LazyBlock:
        if number in self._cache:
            self._cache.move_to_end(number)
            return self._cache[number]
        block = _LazyBlock(self._build_block(number))
        self._cache[number] = block
        if len(self._cache) > self._cached_blocks:
            self._cache.popitem(last=False)
        return block

    def _build_block(self, number: int) -> Iterator[Step]:
        bx, by = self.blocks[number]
        running = self._before_block[number]
        first = self.first_step(number)
        stores: list[Access] = []
        places = instructions.Places()  # a step's place in its tile: the issue plan's key
        steps = self.kernel.block_steps(self.params, self.A, self.B, bx, by)
        if self._plan is None and (bx, by) == (0, 0):  # its tile 0 is the plan's: generate it once, not twice
            before, rest = instructions.tile_zero(steps)
            self._plan = instructions.plan_of(self.kernel, self.params, before)
            steps = chain(before, rest)
        elif self._plan is None:
            self._plan = instructions.issue_plan(self.kernel, self.params)
        plan = self._plan
        for offset, step in enumerate(steps):
            issues = plan.get(places.of(step), {}) if step.tile is not None else {}
            delta = count_step(step, issues)
            running = running + delta
            stores.extend(step.global_stores())
            yield replace(
                step,
                index=first + offset,
                block=(bx, by),
                block_number=number,
                delta=delta,
                counters=running,
                issues=issues,
            )
        self._stores.setdefault(number, tuple(stores))


class _LazyBlock:
    """A block's steps, generated only as far as someone has asked (stepping forward costs one step)."""

    def __init__(self, steps: Iterator[Step]) -> None:
        self._source = steps
        self._steps: list[Step] = []

    def get(self, local: int) -> Step:
        while len(self._steps) <= local:
            self._steps.append(next(self._source))
        return self._steps[local]
