"""Run a compiled playground kernel: every thread of a block, barrier interval by barrier interval.

No OS threads: each simulated thread is a Python generator (see `pysim.play.program`)
that runs until its next `cuda.syncthreads()` (a `yield`) or its end. The scheduler
runs every live thread of a block up to the barrier, hands the interval to the
analysis (`on_interval`), then lets them all pass. Shared arrays belong to the block,
local arrays to the thread, A, B and C to everyone.

Every access appends one tuple `(site, array, word, value)` to the thread's
stream, and every statement its number, so one list per thread records both
what the thread did (for stepping) and what it touched (for counting). Arrays
hold float32 (`array('f')`: a store rounds to float32, as on the GPU); scalar
arithmetic between loads and stores happens in Python floats.

Out-of-bounds accesses are not performed: the runtime reports them (line,
thread, block) and a load returns 0. Python errors stop the run with the
student's line; so does the step budget.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np

from .program import Program, ProgramError

# One access the runtime skipped: (site, thread, block, array, index, the array's shape).
OutOfBounds = tuple[int, int, tuple[int, int], str, tuple[Any, ...], tuple[int, ...]]

THREAD_LIMIT = 1024  # threads per block on every device TileLab models
GRID_LIMIT = 65535  # blocks along one grid dimension (CUDA's y limit; kept for x too)
SHARED_LIMIT_BYTES = 48 * 1024  # static shared memory per block (pysim.hardware.devices.STATIC_SHARED_KB)
NAN = float("nan")
_F32 = array("f", [0.0])
POW_LIMIT = 1 << 16  # largest integer exponent / shift the kernel may use


class StepBudgetError(Exception):
    """The run executed more steps than its budget."""


class KernelError(Exception):
    """A mistake found while a thread ran (not indexing an array, a float index...)."""


@dataclass(frozen=True)
class Launch:
    """What `launch(M, N, K)` returned, normalised to 2-D."""

    grid: tuple[int, int]
    block: tuple[int, int]

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1]


def _dims(value: Any, what: str) -> tuple[int, int]:
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 2 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise ProgramError(0, f"launch() must return ({what}) as a whole number or a tuple of two (got {value!r})")
    if any(v < 1 for v in items):
        raise ProgramError(0, f"every {what} dimension must be at least 1 (got {value!r})")
    return (items[0], items[1] if len(items) == 2 else 1)


def evaluate_launch(program: Program, M: int, N: int, K: int) -> Launch:
    """Call the file's `launch(M, N, K)` and check the shape it asks for (ProgramError if it cannot run)."""
    namespace: dict[str, Any] = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "int": int}
    namespace.update(program.constants)
    exec(program.launch_code, namespace)
    try:
        returned = namespace["launch"](M, N, K)
    except Exception as error:  # noqa: BLE001 - a student's launch() may fail in any way
        raise ProgramError(
            error_line(error), f"launch({M}, {N}, {K}) failed: {type(error).__name__}: {error}"
        ) from None
    if not (isinstance(returned, tuple) and len(returned) == 2):
        raise ProgramError(0, f"launch() must return (grid, block), got {returned!r}")
    launch = Launch(_dims(returned[0], "grid"), _dims(returned[1], "block"))
    if launch.threads > THREAD_LIMIT:
        raise ProgramError(
            0,
            f"launch({M}, {N}, {K}) asks for {launch.threads:,} threads per block; a block holds at most {THREAD_LIMIT:,}",
        )
    if max(launch.grid) > GRID_LIMIT:
        raise ProgramError(
            0, f"launch({M}, {N}, {K}) asks for a grid of {launch.grid}; at most {GRID_LIMIT} per dimension"
        )
    shared = program.shared_bytes()
    if shared > SHARED_LIMIT_BYTES:
        raise ProgramError(
            0, f"the kernel declares {shared:,} bytes of shared memory; a block may have at most {SHARED_LIMIT_BYTES:,}"
        )
    return launch


def error_line(error: BaseException) -> int:
    """The student's line where `error` was raised (the deepest frame of the kernel file), 0 if none."""
    line = 0
    trace: TracebackType | None = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<kernel>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


class Array:
    """A float32 array as the kernel sees it: `.shape`, and the fields the access functions check."""

    __slots__ = ("name", "space", "number", "data", "shape", "rows", "cols", "ld", "n1")

    def __init__(self, name: str, space: str, number: int, shape: tuple[int, ...], data: array) -> None:
        self.name, self.space, self.number, self.shape, self.data = name, space, number, shape, data
        if len(shape) == 2:
            self.rows, self.cols, self.ld, self.n1 = shape[0], shape[1], shape[1], -1
        else:
            self.rows, self.cols, self.ld, self.n1 = -1, -1, 1, shape[0]

    def __repr__(self) -> str:
        return f"Array({self.name!r}, {self.space}, shape={self.shape})"

    def to_numpy(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=np.float32).reshape(self.shape).copy()


def global_array(name: str, number: int, values: np.ndarray) -> Array:
    data = array("f")
    data.frombytes(np.ascontiguousarray(values, dtype=np.float32).tobytes())
    return Array(name, "global", number, tuple(values.shape), data)


class Runtime:
    """The state every thread's accesses go through, and the functions the rewritten kernel calls."""

    def __init__(self, program: Program, max_steps: int) -> None:
        self.program = program
        self.max_steps = max_steps
        self.executed = 0  # steps (statements + accesses) of finished thread-intervals
        self.stream: list = []  # the running thread's stream
        self.allow = max_steps  # the running thread may grow its stream to this length
        self.thread = 0
        self.block = (0, 0)
        self.shared: dict[int, Array] = {}
        self.out_of_bounds: list[OutOfBounds] = []
        self._local_templates = {
            a.number: array("f", [NAN]) * a.words for a in program.allocations if a.space == "register"
        }

    # --- shared and local arrays -------------------------------------------------------------
    def new_block(self, block: tuple[int, int]) -> None:
        self.block = block
        self.shared = {
            a.number: Array(a.name, "shared", 3 + a.number, a.shape, array("f", [NAN]) * a.words)
            for a in self.program.allocations
            if a.space == "shared"
        }

    def namespace(self) -> dict[str, Any]:
        """Globals of the rewritten kernel: module constants, allowed builtins, the access functions."""
        rt = self
        allocations = self.program.allocations
        templates = self._local_templates

        def shared(number: int) -> Array:
            return rt.shared[number]

        def local(number: int) -> Array:
            a = allocations[number]
            return Array(a.name, "register", 3 + number, a.shape, array("f", templates[number]))

        def tick() -> None:
            if len(rt.stream) > rt.allow:
                raise StepBudgetError

        def outside(e: Callable, X: Any, site: int, index: tuple) -> float:
            if not isinstance(X, Array):
                raise KernelError(f"{rt.program.sites[site].array} is not an array (it is {type(X).__name__})")
            if len(index) != len(X.shape):
                raise KernelError(
                    f"{X.name} has {len(X.shape)} dimension(s) but is indexed with {len(index)}: "
                    + ("X[row, col]" if len(X.shape) == 2 else "X[i]")
                )
            for item in index:
                if isinstance(item, float) and not math.isnan(item):
                    raise KernelError(
                        f"an index of {X.name} must be a whole number (got {item!r}); use // for division"
                    )
                if not isinstance(item, (int, float)):
                    raise KernelError(f"an index of {X.name} must be a whole number (got {item!r})")
            rt.out_of_bounds.append((site, rt.thread, rt.block, X.name, index, X.shape))
            return 0.0

        def ld2(e: Callable, X: Any, site: int, i: Any, j: Any) -> float:
            try:
                if 0 <= i < X.rows and 0 <= j < X.cols:
                    w = i * X.ld + j
                    v = X.data[w]
                    e((site, X.number, w, v))
                    return v
            except (AttributeError, TypeError):
                pass
            return outside(e, X, site, (i, j))

        def ld1(e: Callable, X: Any, site: int, i: Any) -> float:
            try:
                if 0 <= i < X.n1:
                    v = X.data[i]
                    e((site, X.number, i, v))
                    return v
            except (AttributeError, TypeError):
                pass
            return outside(e, X, site, (i,))

        def st2(e: Callable, X: Any, site: int, i: Any, j: Any, v: Any) -> None:
            try:
                if 0 <= i < X.rows and 0 <= j < X.cols:
                    w = i * X.ld + j
                    data = X.data
                    data[w] = v
                    e((site, X.number, w, data[w]))
                    return
            except (AttributeError, TypeError, OverflowError):
                _check_value(X, v)
            outside(e, X, site, (i, j))

        def st1(e: Callable, X: Any, site: int, i: Any, v: Any) -> None:
            try:
                if 0 <= i < X.n1:
                    data = X.data
                    data[i] = v
                    e((site, X.number, i, data[i]))
                    return
            except (AttributeError, TypeError, OverflowError):
                _check_value(X, v)
            outside(e, X, site, (i,))

        def f32(x: Any) -> float:
            _F32[0] = x
            return _F32[0]

        def pow_(a: Any, b: Any) -> Any:
            if isinstance(b, int) and abs(b) > POW_LIMIT and isinstance(a, int) and abs(a) > 1:
                raise KernelError(f"{a} ** {b} is too large")
            return a**b

        def lshift(a: Any, b: Any) -> Any:
            if isinstance(b, int) and b > POW_LIMIT:
                raise KernelError(f"{a} << {b} is too large")
            return a << b

        namespace: dict[str, Any] = {
            "__builtins__": {},
            "range": range,
            "min": min,
            "max": max,
            "abs": abs,
            "int": int,
            "float": float,
            "_pl_f32": f32,
            "_pl_pow": pow_,
            "_pl_lshift": lshift,
            "_pl_shared": shared,
            "_pl_local": local,
            "_pl_tick": tick,
            "_pl_ld1": ld1,
            "_pl_ld2": ld2,
            "_pl_st1": st1,
            "_pl_st2": st2,
        }
        namespace.update(self.program.constants)
        return namespace


def _check_value(X: Any, v: Any) -> None:
    """Why a store failed, when the value is to blame (`outside` explains a bad array or index)."""
    if isinstance(X, Array) and not isinstance(v, (int, float)):
        raise KernelError(f"{X.name} holds float32 numbers; cannot store {v!r}")
    if isinstance(X, Array) and isinstance(v, int) and abs(v) >= 2**128:
        raise KernelError(f"{v} does not fit in float32")


@dataclass(frozen=True)
class Interval:
    """One barrier interval of one block, as the scheduler hands it to the analysis."""

    block: tuple[int, int]
    number: int  # 0 for the first interval of the block
    segments: tuple[tuple[int, list], ...]  # (linear thread id, what it appended in this interval)
    waiting: dict[int, int]  # thread -> statement number of the barrier it waits at
    finished: tuple[int, ...]  # threads that ended in this interval
    stopped: bool  # the run stopped inside this interval (error or step budget)


@dataclass(frozen=True)
class Stop:
    """Why the run stopped early: the step budget or a Python error, with where."""

    kind: str  # step_budget | error
    line: int
    thread: int
    block: tuple[int, int]
    message: str


def schedule(
    program: Program,
    launch: Launch,
    arrays: tuple[Array, Array, Array],
    runtime: Runtime,
    on_interval: Callable[[Interval], None],
) -> Stop | None:
    """Run every block of the grid, one barrier interval at a time; None when every thread finished."""
    namespace = runtime.namespace()
    exec(program.kernel_code, namespace)
    kernel = namespace["kernel"]
    bdx, bdy = launch.block
    gdx, gdy = launch.grid
    threads = [(t % bdx, t // bdx) for t in range(launch.threads)]
    statements = program.statements
    for by in range(gdy):
        for bx in range(gdx):
            runtime.new_block((bx, by))
            streams: list[list] = [[] for _ in threads]
            generators = [
                kernel(*arrays, streams[t].append, tx, ty, bx, by, bdx, bdy, gdx, gdy)
                for t, (tx, ty) in enumerate(threads)
            ]
            live = list(range(len(threads)))
            number = 0
            while live:
                waiting: dict[int, int] = {}
                finished: list[int] = []
                starts = [len(streams[t]) for t in live]
                stop: Stop | None = None
                for t, start in zip(live, starts):
                    stream = streams[t]
                    runtime.stream, runtime.thread = stream, t
                    runtime.allow = runtime.max_steps - runtime.executed + start
                    try:
                        waiting[t] = next(generators[t])
                    except StopIteration:
                        finished.append(t)
                    except StepBudgetError:
                        line = next((statements[x].line for x in reversed(stream) if type(x) is int), 0)
                        stop = Stop("step_budget", line, t, (bx, by), f"stopped after {runtime.max_steps:,} steps")
                    except Exception as error:  # noqa: BLE001 - the student's code may fail in any way
                        stop = Stop("error", error_line(error), t, (bx, by), f"{type(error).__name__}: {error}")
                    runtime.executed += len(stream) - start
                    if stop is None and runtime.executed > runtime.max_steps:
                        stop = Stop("step_budget", 0, t, (bx, by), f"stopped after {runtime.max_steps:,} steps")
                    if stop is not None:
                        break
                segments = tuple((t, streams[t][start:]) for t, start in zip(live, starts) if len(streams[t]) > start)
                on_interval(Interval((bx, by), number, segments, waiting, tuple(finished), stop is not None))
                if stop is not None:
                    return stop
                live = [t for t in live if t in waiting]
                number += 1
    return None
