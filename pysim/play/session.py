"""The playground's runs as plain data: what the page draws, computed where the student's code runs.

The page's thread only edits and draws; a run and a grade happen in a Web Worker
(site/playworker.js) with its own Pyodide, or, where no worker can start (file://),
on the page's thread through the same code. Both talk to a `Session` in JSON text:

    session = Session()
    reply = session.handle(encode_request(RunRequest(source, M=32, N=32, K=32)))

A request is one of the frozen dataclasses of `pysim.play.protocol` (the one place their kinds are
named): the page builds one, `encode_request` writes it with its kind, the worker forwards the text
untouched, and `decode_request` rebuilds it here. A run keeps its RunResult here; the page asks
for one interval (and one followed thread) at a time, so only what is on screen crosses to the page's
thread. Replies
are pysim's own records (frozen dataclasses, NumPy arrays) written by `encode` and
rebuilt by `decode`, which builds nothing but the record types listed in PLAIN_TYPES.
An array travels as its bytes in base64: the page's thread decodes a 256×256 matrix in
a few milliseconds, where a JSON list of its numbers took ~150 ms of Pyodide (issue 22).
"""

from __future__ import annotations

import base64
import gc
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any

import numpy as np

from ..core.banks import BankReport
from ..core.counters import Counters
from ..core.lanes import Lane, SectorSlot, SectorUse, WarpBanks, WarpSectors
from .counting import Metrics
from .diagnostics import Diagnostic
from .endings import run_ending
from .execute import run
from .launch import Launch, thread_xy
from .limits import DEFAULT_MAX_STEPS
from .program import Allocation, ProgramError
from .protocol import KIND_KEY, REQUESTS, GradeRequest, IntervalRequest, PictureRequest, Request, RunRequest, kind_of
from .puzzles import PUZZLE_BY_KEY, CheckResult, Grade, Puzzle
from .replay import AccessRecord, ThreadStep
from .results import RunResult

MAX_THREAD_ROWS = 300  # statements the page lists for one thread in one interval
MAX_WARP_ROWS = 160  # warp instructions the page lists for one interval
PROGRESS_EVERY_S = 0.1  # a run reports its progress at most this often
# Every this many runs, one starts with a full collection (what `uncollected` froze included): a run leaves
# ~170 objects in reference cycles (its compiled module's functions and their namespace), about 80 kB, which
# only a collection frees. It walks every record of the run held, ~40-60 ms of CPython at 32×32×32.
COLLECT_EVERY_RUNS = 20

# Progress: (threads that have finished, steps executed so far), both over the whole run.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunSummary:
    """What the results panel draws for one run, and what stepping needs before its first interval."""

    M: int
    N: int
    K: int
    launch: Launch
    intervals: int
    steps: int
    completed: bool
    ended: str  # how the run ended (pysim.play.endings): "done" or "budget" for a run that came back
    max_steps: int  # the step budget it ran under
    run_ms: float  # the simulation itself, in the worker (or on the page's thread)
    size: int  # elements of C
    mismatches: int
    max_error: float  # inf where a value is NaN
    first_mismatch: tuple[int, int] | None
    first_values: tuple[float, float]  # C and NumPy's answer at first_mismatch (NaN, NaN when none)
    wrong: tuple[tuple[int, int], ...]  # every cell where C differs from NumPy's answer
    counters: Counters
    metrics: Metrics
    diagnostics: tuple[Diagnostic, ...]
    A: np.ndarray
    B: np.ndarray
    expected: np.ndarray
    shared: tuple[Allocation, ...]
    next_block: tuple[int, ...]  # for each interval, the first interval of the next block (the last when none)
    constants: tuple[tuple[str, str], ...] = ()  # each constant array's name and dtype (pysim.play.constants)

    @property
    def c_matches(self) -> bool:
        return self.mismatches == 0


@dataclass(frozen=True)
class MarkedAccess:
    """One access of an interval as a grid marks it: the cells all threads touched, and the followed one's."""

    grid: str  # "A", "B", "C" or a shared array's name
    space: str
    op: str
    cells: tuple[tuple[int, int], ...]
    followed: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class WarpRow:
    """One listed warp instruction: what it is and what it costs (pysim.play.instructions)."""

    lines: tuple[int, ...]
    op: str
    space: str
    array: str
    occurrence: int
    warp: int
    active: int
    is_global: bool
    count: int  # sectors (global) or conflict degree (shared)
    ok: bool  # coalesced (global) or conflict-free (shared)
    banks_used: int  # shared only (0 for global)
    busiest_bank: int
    busiest_words: int
    broadcast_words: int


@dataclass(frozen=True)
class IntervalView:
    """One interval, following one thread: everything the stepping section draws for it."""

    index: int
    block: tuple[int, ...]
    number: int
    barrier_lines: tuple[int, ...]
    thread_count: int
    delta: Counters
    lines: tuple[int, ...]  # sorted
    shared: dict[str, np.ndarray]  # the block's shared arrays after the interval (NaN: never stored)
    c: np.ndarray  # C after the interval (NaN: never stored)
    marks: tuple[MarkedAccess, ...]
    thread: tuple[int, ...]
    thread_steps: tuple[ThreadStep, ...]  # the first MAX_THREAD_ROWS
    thread_step_count: int
    warp_rows: tuple[WarpRow, ...]  # the first MAX_WARP_ROWS
    warp_count: int
    picture: WarpSectors | WarpBanks | None  # the first listed row's lanes


def encode_request(request: Request) -> str:
    """`request` as JSON text: its fields and its kind under KIND_KEY."""
    return json.dumps({KIND_KEY: kind_of(request), **asdict(request)})


def decode_request(text: str) -> Request:
    """The request `encode_request` wrote (ValueError for an unknown kind)."""
    data = json.loads(text)
    cls = REQUESTS.get(data.pop(KIND_KEY, None))
    if cls is None:
        raise ValueError(f"not a playground request: {text[:80]!r}")
    return cls(**data)


PLAIN_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        RunSummary,
        MarkedAccess,
        WarpRow,
        IntervalView,
        Launch,
        Counters,
        Metrics,
        Diagnostic,
        Allocation,
        ThreadStep,
        AccessRecord,
        Lane,
        SectorSlot,
        SectorUse,
        WarpSectors,
        WarpBanks,
        BankReport,
        CheckResult,
        Grade,
    )
}
TYPE_KEY = "@"  # names a record's type; no field or shared-array name can be "@"


def encode(value: Any) -> Any:
    """`value` as JSON-able data: records as {"@": type, field: ...}, arrays with dtype and shape."""
    if is_dataclass(value) and not isinstance(value, type):
        return {TYPE_KEY: type(value).__name__, **{f.name: encode(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, np.ndarray):
        return {
            TYPE_KEY: "ndarray",
            "dtype": value.dtype.str,
            "shape": list(value.shape),
            "data": base64.b64encode(np.ascontiguousarray(value).tobytes()).decode("ascii"),
        }
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode(value: Any) -> Any:
    """The inverse of `encode`: lists come back as tuples, records as their PLAIN_TYPES class."""
    if isinstance(value, list):
        if not value or not isinstance(value[0], (list, dict)):
            return tuple(value)  # numbers: the records' tuples are all of one kind, so the first item tells
        return tuple(decode(item) for item in value)
    if not isinstance(value, dict):
        return value
    kind = value.get(TYPE_KEY)
    if kind is None:
        return {key: decode(item) for key, item in value.items()}
    if kind == "ndarray":
        data = base64.b64decode(value["data"], validate=True)
        return np.frombuffer(data, dtype=np.dtype(value["dtype"])).reshape(value["shape"]).copy()
    cls = PLAIN_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"not a playground record: {kind!r}")
    return cls(**{key: decode(item) for key, item in value.items() if key != TYPE_KEY})


def dumps(value: Any) -> str:
    return json.dumps(encode(value), separators=(",", ":"))


def loads(text: str) -> Any:
    return decode(json.loads(text))


def expected_shape(puzzle: Puzzle | None, M: int, N: int, K: int) -> tuple[int, ...]:
    """The shape of the answer C is compared with at M×N×K (the page refuses sizes where it is not M × N)."""
    if puzzle is None or puzzle.expected is None:
        return (M, N)
    return tuple(np.shape(puzzle.expected(np.zeros((M, K), np.float32), np.zeros((K, N), np.float32))))


def summarise(result: RunResult, run_ms: float) -> RunSummary:
    mismatch = result.first_mismatch()
    values = (float(result.C[mismatch]), float(result.expected[mismatch])) if mismatch else (np.nan, np.nan)
    return RunSummary(
        M=result.M,
        N=result.N,
        K=result.K,
        launch=result.launch,
        intervals=len(result.intervals),
        steps=result.steps,
        completed=result.completed,
        ended=run_ending(result.diagnostics),
        max_steps=DEFAULT_MAX_STEPS,  # Session.run runs every kernel under the default budget
        run_ms=run_ms,
        size=int(result.C.size),
        mismatches=result.mismatches,
        max_error=result.max_error,
        first_mismatch=mismatch,
        first_values=values,
        wrong=tuple(result.mismatched_cells()),
        counters=result.counters,
        metrics=result.metrics,
        diagnostics=result.diagnostics,
        A=result.A,
        B=result.B,
        expected=result.expected,
        shared=result.shared_allocations,
        next_block=tuple(result.next_block_interval(i) for i in range(len(result.intervals))),
        constants=tuple((c.name, c.dtype) for c in result.program.constant_arrays),
    )


def warp_row(instruction) -> WarpRow:
    access = instruction.access
    banks_used = busiest = busiest_words = broadcast = 0
    if not instruction.is_global:
        wb = instruction.banks()
        banks_used, busiest, broadcast = wb.report.banks_used, wb.busiest_bank, wb.report.broadcast_words
        busiest_words = len(wb.report.words_per_bank[busiest])
    return WarpRow(
        lines=instruction.lines,
        op=access.op,
        space=access.space,
        array=access.array,
        occurrence=instruction.occurrence,
        warp=instruction.warp,
        active=instruction.active,
        is_global=instruction.is_global,
        count=instruction.count,
        ok=instruction.coalesced if instruction.is_global else instruction.conflict_free,
        banks_used=banks_used,
        busiest_bank=busiest,
        busiest_words=busiest_words,
        broadcast_words=broadcast,
    )


def picture_of(instruction) -> WarpSectors | WarpBanks:
    return instruction.sectors() if instruction.is_global else instruction.banks()


def interval_view(result: RunResult, index: int, thread: int) -> IntervalView:
    """Interval `index` of `result`, following linear thread `thread`."""
    interval = result.intervals[index]
    marks = tuple(
        MarkedAccess(
            grid=result.role_of(access.array),
            space=access.space,
            op=access.op,
            cells=tuple(access.cells()),
            followed=tuple(access.cells(thread)) if thread < access.rows.shape[1] else (),
        )
        for access in interval.step.accesses
    )
    steps = interval.thread_steps(thread)
    rows: list[WarpRow] = []
    first = None
    count = 0
    for instruction in result.warp_instructions(index):
        count += 1
        if len(rows) < MAX_WARP_ROWS:
            rows.append(warp_row(instruction))
            if first is None:
                first = instruction
    shared, c = result.memory_after(index)
    return IntervalView(
        index=index,
        block=interval.block,
        number=interval.number,
        barrier_lines=interval.barrier_lines,
        thread_count=len(interval.threads),
        delta=interval.delta,
        lines=tuple(sorted(interval.lines())),
        shared=shared,
        c=c,
        marks=marks,
        thread=thread_xy(result.launch, thread),
        thread_steps=steps[:MAX_THREAD_ROWS],
        thread_step_count=len(steps),
        warp_rows=tuple(rows),
        warp_count=count,
        picture=None if first is None else picture_of(first),
    )


def warp_picture(result: RunResult, index: int, row: int) -> WarpSectors | WarpBanks | None:
    """The lanes of listed warp instruction `row` of interval `index` (None past the list)."""
    for number, instruction in enumerate(result.warp_instructions(index)):
        if number == row:
            return picture_of(instruction)
        if number >= MAX_WARP_ROWS:
            break
    return None


class Session:
    """Answers the page's requests (JSON text in, JSON text out), keeping the last run that succeeded."""

    def __init__(self) -> None:
        self.result: RunResult | None = None
        self.runs = 0

    def handle(self, text: str, progress: Progress | None = None) -> str:
        """Answer one request's JSON text (`encode_request`) with the reply's (`dumps`)."""
        request = decode_request(text)
        with uncollected():
            return dumps(self.answer(request, progress))

    def answer(self, request: Request, progress: Progress | None) -> dict:
        if isinstance(request, RunRequest):
            return self.run(request, progress)
        if isinstance(request, GradeRequest):
            return self.grade(request)
        result = self.result
        if result is None or not 0 <= getattr(request, "index", 0) < len(result.intervals):
            return {"missing": True}  # the run asked about is not (or no longer) here
        if isinstance(request, IntervalRequest):
            return {"view": interval_view(result, request.index, request.thread)}
        if isinstance(request, PictureRequest):
            return {"picture": warp_picture(result, request.index, request.row)}
        return {"storer": result.storer_of(request.row, request.col)}

    def run(self, request: RunRequest, progress: Progress | None) -> dict:
        puzzle = PUZZLE_BY_KEY.get(request.puzzle or "")
        self.runs += 1
        if self.runs % COLLECT_EVERY_RUNS == 0:
            gc.unfreeze()
            gc.collect()  # (`handle` freezes what is left once this request is answered)
        started = time.perf_counter()
        try:
            result = run(
                request.source,
                request.M,
                request.N,
                request.K,
                expected=puzzle.expected if puzzle else None,
                progress=None if progress is None else Throttled(progress),
            )
        except ProgramError as error:
            return {"error": {"line": error.line, "message": error.message}}
        except Exception as error:  # noqa: BLE001 - a bug in the simulator must not take the page down
            message = f"the simulator failed on this kernel ({type(error).__name__}: {error})"
            return {"error": {"line": 0, "message": message}}
        self.result = result
        return {"summary": summarise(result, (time.perf_counter() - started) * 1000)}

    def grade(self, request: GradeRequest) -> dict:
        puzzle = PUZZLE_BY_KEY[request.puzzle]
        try:
            return {"grade": puzzle.grade(request.source)}
        except Exception as error:  # noqa: BLE001 - the checker must not take the page down
            return {"checker_failed": f"{type(error).__name__}: {error}"}


@contextmanager
def uncollected() -> Iterator[None]:
    """No cyclic garbage collection while a request is answered, and none over what it leaves: a run allocates
    millions of small tracked objects (its records) that live as long as it is kept, and each full collection
    over them, NumPy and the app frees nothing (a 70×66×13 blocktiled run takes about 60 % longer with the
    collector on). `gc.freeze` moves what is alive at the end out of the collector's reach, so the run's
    records are not walked again after the reply either (that walk, 30-70 ms of CPython for a 32×32×32 tiled
    run, landed in the next request: its summary and encoding). Objects freed later are freed by their
    reference counts as before; what only a collection frees waits for one in every COLLECT_EVERY_RUNS runs."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


class Throttled:
    """Sums the threads finished per interval and passes (threads, steps) on at most every PROGRESS_EVERY_S."""

    def __init__(self, report: Progress) -> None:
        self.report = report
        self.threads = 0
        self.last = 0.0

    def __call__(self, finished: int, steps: int) -> None:
        self.threads += finished
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            self.report(self.threads, steps)
