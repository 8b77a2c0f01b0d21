"""Run a compiled playground kernel: every thread of a block, barrier interval by barrier interval.

No OS threads: each simulated thread is a Python generator (see `pysim.play.program`)
that runs until its next `cuda.syncthreads()` (a `yield`) or its end. The scheduler
runs every live thread of a block up to the barrier, hands the interval to the
analysis (`on_interval`), then lets them all pass. Shared arrays belong to the block,
local arrays to the thread, A, B and C to everyone.

Every statement appends its number to the thread's stream (for stepping and the
step budget); every access extends one flat list of the whole run (`Runtime.records`)
by five whole numbers, `site, array, word, ordinal, vector`, and appends its value to
another (`Runtime.values`), which the analysis turns into a table with a copy of each,
knowing only how many accesses each thread made in each interval (`Interval.records`). The ordinal (statements the thread executed in
this barrier interval, so the access belongs to the ordinal-th statement of its
segment) and the iteration vector (`Vectors`) are kept by the rewritten kernel itself,
so nothing walks a stream item by item. Arrays
hold float32 (`array('f')`: a store rounds to float32, as on the GPU); scalar
arithmetic between loads and stores happens in Python floats, rounded to float32
after every operation Numba types float32 (`pysim.play.numba_types`).

Indices follow Numba: a negative index within the extent wraps (`A[-1, 0]` is the
last row), as NumPy's does. Out-of-bounds accesses are not performed: the runtime
reports them (line, thread, block); a load returns 0 but is recorded at the address
it asked for, so it is counted as issued (the GPU issues it). Python errors stop
the run with the student's line; so does the step budget, which counts every
statement, access and loop iteration, every block and every thread started.
Integers stay within 64 bits (a variable that would leave ±2**63 stops the run:
Numba's int64 would wrap silently).
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
# Blocks along gridDim.x and gridDim.y, and local memory per thread: the CUDA C++ Programming Guide,
# "Technical Specifications per Compute Capability" (every compute capability from 7.5 to 12.0):
# "Maximum x -dimension of a grid of thread blocks 2^31-1", "Maximum y- or z-dimension ... 65535",
# "Maximum amount of local memory per thread 512 KB".
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications
GRID_LIMITS = (2**31 - 1, 65535)
LOCAL_LIMIT_BYTES = 512 * 1024
SHARED_LIMIT_BYTES = 48 * 1024  # static shared memory per block (pysim.hardware.devices.STATIC_SHARED_KB)
# Threads of one launch, all blocks: each is simulated one by one (262,144 empty ones take about 2 s of
# CPython), and a 512×512 one-thread-per-element launch, twice the playground form's largest size, fits.
TOTAL_THREAD_LIMIT = 1 << 18
INT_LIMIT = 1 << 63  # integers live in [-2**63, 2**63), Numba's int64
ATOMIC_OPERATIONS = ("add", "max", "min")  # cuda.atomic.<name>, numbered as the runtime's `how`
NAN = float("nan")
_F32 = array("f", [0.0])
RECORD = 5  # numbers per access in Runtime.records: site, array, word, ordinal, vector
FLUSH_BELOW = 2.0**-126  # smallest normal float32: a global atomic add flushes what lies below to zero


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


def launch_int(value: Any) -> Any:
    """`value`, refused when it is an integer past ±INT_LIMIT: launch()'s arithmetic goes through it (the
    compiler wraps each operation in `_pl_int`), so a chain of `x = x * x` cannot freeze the page."""
    if value.__class__ is int and not -INT_LIMIT <= value < INT_LIMIT:
        raise OverflowError(f"an integer of {value.bit_length():,} bits does not fit in 64 bits (±2**63)")
    return value


def evaluate_launch(program: Program, M: int, N: int, K: int) -> Launch:
    """Call the file's `launch(M, N, K)` and check the shape it asks for (ProgramError if it cannot run)."""
    namespace: dict[str, Any] = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "int": int}
    namespace["_pl_int"] = launch_int
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
    for axis, size, limit in zip("xy", launch.grid, GRID_LIMITS):
        if size > limit:
            raise ProgramError(
                0,
                f"launch({M}, {N}, {K}) asks for a grid of {launch.grid}: gridDim.{axis} = {size:,}, "
                f"but CUDA allows at most {limit:,}",
            )
    if launch.threads * launch.blocks > TOTAL_THREAD_LIMIT:
        raise ProgramError(
            0,
            f"launch({M}, {N}, {K}) asks for {launch.threads * launch.blocks:,} threads in all "
            f"({launch.blocks:,} blocks of {launch.threads:,}); the playground simulates at most "
            f"{TOTAL_THREAD_LIMIT:,}, one by one",
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
    """The state every thread's accesses go through, and the functions the rewritten kernel calls."""

    def __init__(self, program: Program, max_steps: int) -> None:
        self.program = program
        self.max_steps = max_steps
        self.executed = 0  # steps (statements + accesses) of finished thread-intervals
        self.stream: list[int] = []  # the running thread's stream: the statements it executed
        # Every access of the run not yet in the analysis's table, RECORD numbers each, and its value (the
        # analysis empties both). Flat lists of one type each: extending them is cheaper than making a tuple an
        # item, and struct (the ints, pysim.play.analysis `_int64`) and array('d') convert them several times
        # faster than NumPy converts a mixed list (most of the table's cost in Pyodide).
        self.records: list[int] = []
        self.values: list[float] = []
        self.charged = 0  # steps the running thread spent beyond its stream (local arrays it filled)
        self.thread = 0
        self.block = (0, 0)
        self.interval = 0  # the running block's barrier interval (pysim.play.memory reads it)
        self.shared: dict[int, Array] = {}
        self.out_of_bounds: list[OutOfBounds] = []
        self.vectors = Vectors()
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
        values = self.values
        record, value_of = self.records.extend, values.append  # two calls per access (the module docstring)
        namespace: dict[str, Any] = {}

        def shared(number: int) -> Array:
            return rt.shared[number]

        def local(number: int) -> Array:
            a = allocations[number]
            # Filling it costs a step per word: a fresh large local array in every iteration stays bounded.
            rt.charged += a.words
            namespace["_pl_allow"] -= a.words
            if len(rt.stream) + len(values) > namespace["_pl_allow"]:
                raise StepBudgetError
            return Array(a.name, "register", 3 + number, a.shape, array("f", templates[number]))

        def outside(X: Any, site: int, index: tuple, o: int, v: int) -> float:
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
            if rt.program.sites[site].op == "load" and all(isinstance(item, int) for item in index):
                # The GPU issues the load at the address the index asks for: record it there, so it is
                # counted (loads, sectors, banks) as issued. An address before the array's start, or past any
                # 64-bit address, is only reported (the analysis reserves negative words for "no access").
                word = index[0] * X.ld + index[1] if len(index) == 2 else index[0]
                if 0 <= word < INT_LIMIT:
                    record((site, X.number, word, o, v))
                    value_of(0.0)
            return 0.0

        # Each access first tries the in-bounds case (the fast path: a global or shared element, recorded
        # inline), then Numba's wraparound of a negative index within the extent (A[-1, 0] is A[M - 1, 0]),
        # then reports it out of bounds. `o` and `v` are the statement's ordinal and iteration vector.
        def ld2(X: Any, site: int, i: Any, j: Any, o: int, v: int) -> float:
            try:
                if 0 <= i < X.rows and 0 <= j < X.cols:
                    w = i * X.ld + j
                    value = X.data[w]
                    record((site, X.number, w, o, v))
                    value_of(value)
                    return value
                if -X.rows <= i < X.rows and -X.cols <= j < X.cols:
                    return ld2(X, site, i % X.rows, j % X.cols, o, v)
            except (AttributeError, TypeError):
                pass
            return outside(X, site, (i, j), o, v)

        def ld1(X: Any, site: int, i: Any, o: int, v: int) -> float:
            try:
                if 0 <= i < X.n1:
                    value = X.data[i]
                    record((site, X.number, i, o, v))
                    value_of(value)
                    return value
                if -X.n1 <= i < 0:
                    return ld1(X, site, i % X.n1, o, v)
            except (AttributeError, TypeError):
                pass
            return outside(X, site, (i,), o, v)

        def st2(X: Any, site: int, i: Any, j: Any, value: Any, o: int, v: int) -> None:
            try:
                if 0 <= i < X.rows and 0 <= j < X.cols:
                    w = i * X.ld + j
                    data = X.data
                    data[w] = value
                    record((site, X.number, w, o, v))
                    value_of(data[w])
                    return
                if -X.rows <= i < X.rows and -X.cols <= j < X.cols:
                    return st2(X, site, i % X.rows, j % X.cols, value, o, v)
            except (AttributeError, TypeError, OverflowError):
                _check_value(X, value)
            outside(X, site, (i, j), o, v)

        def st1(X: Any, site: int, i: Any, value: Any, o: int, v: int) -> None:
            try:
                if 0 <= i < X.n1:
                    data = X.data
                    data[i] = value
                    record((site, X.number, i, o, v))
                    value_of(data[i])
                    return
                if -X.n1 <= i < 0:
                    return st1(X, site, i % X.n1, value, o, v)
            except (AttributeError, TypeError, OverflowError):
                _check_value(X, value)
            outside(X, site, (i,), o, v)

        def at2(X: Any, load: int, store: int, how: int, i: Any, j: Any, value: Any, o: int, v: int) -> float:
            old = ld2(X, load, i, j, o, v)
            st2(X, store, i, j, _combine(X, how, old, f32(value)), o, v)
            return old

        def at1(X: Any, load: int, store: int, how: int, i: Any, value: Any, o: int, v: int) -> float:
            old = ld1(X, load, i, o, v)
            st1(X, store, i, _combine(X, how, old, f32(value)), o, v)
            return old

        def f32(x: Any) -> float:
            _F32[0] = x
            return _F32[0]

        def pow_(a: Any, b: Any) -> Any:
            if past_64_bits(True, a, b):
                raise KernelError(f"{a} ** {b} does not fit in 64 bits (±2**63)")
            return launch_int(a**b)

        def lshift(a: Any, b: Any) -> Any:
            if past_64_bits(False, a, b):
                raise KernelError(f"{a} << {b} does not fit in 64 bits (±2**63)")
            return launch_int(a << b)

        namespace |= {
            "__builtins__": {},
            "range": range,
            "min": min,
            "max": max,
            "abs": abs,
            "int": int,
            "float": float,
            "_pl_f32": f32,
            "_pl_F": _F32,  # the buffer `_pl_f32` rounds through, which the rewritten kernel also uses inline
            "_pl_pow": pow_,
            "_pl_lshift": lshift,
            "_pl_shared": shared,
            "_pl_local": local,
            # The step budget's check in every loop iteration (pysim.play.rewrite: `_tick`): the scheduler sets
            # `_pl_allow` for the running thread; the run's access values count the accesses.
            "_pl_len": len,
            "_pl_values": values,
            "_pl_allow": self.max_steps,
            "_pl_budget": StepBudgetError,
            "_pl_ld1": ld1,
            "_pl_ld2": ld2,
            "_pl_st1": st1,
            "_pl_st2": st2,
            "_pl_at1": at1,
            "_pl_at2": at2,
            "_pl_vset": self.vectors.numbers.setdefault,
            "_pl_vectors": self.vectors.numbers,
            "_pl_int": launch_int,  # a variable's integer stays in 64 bits (Numba's int64 would wrap silently)
        }
        namespace.update(self.program.constants)
        return namespace


def past_64_bits(power: bool, a: Any, b: Any) -> bool:
    """Whether `a ** b` (power) or `a << b` of whole numbers would pass 2**63, from bit lengths alone: decided
    before computing, since 3 ** 65536 has 100,000 bits (squaring it again freezes the page) and 1 << 10**8
    takes seconds."""
    if not (isinstance(a, int) and isinstance(b, int) and a and b > 0):
        return False
    if power:
        return abs(a) > 1 and (abs(a).bit_length() - 1) * b >= 64
    return abs(a).bit_length() + b > 64


def _combine(X: Any, how: int, old: float, v: float) -> float:
    """The value an atomic leaves (ATOMIC_OPERATIONS[how]); the store rounds it to float32. A float add on
    global memory flushes denormals to zero, inputs and result ("atomic single-precision floating-point adds
    on global memory always operate in flush-to-zero mode", CUDA C++ Programming Guide, Floating-Point
    Standard); max and min are Python's, as in Numba's simulator."""
    if how == 1:
        return max(old, v)
    if how == 2:
        return min(old, v)
    if not (isinstance(X, Array) and X.space == "global"):
        return old + v
    old, v = (0.0 if abs(x) < FLUSH_BELOW else x for x in (old, v))
    total = old + v
    return math.copysign(0.0, total) if abs(total) < FLUSH_BELOW else total


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
    segments: tuple[tuple[int, list[int]], ...]  # (linear thread id, the statements it executed in this interval)
    records: tuple[tuple[int, int], ...]  # (thread, accesses it added to Runtime.records), in the order they ran
    waiting: dict[int, int]  # thread -> statement number of the barrier it waits at
    instances: dict[int, int]  # thread -> the iteration vector (Runtime.vectors) of the barrier it waits at
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
    values = runtime.values  # one per access
    budget = runtime.max_steps
    for by in range(gdy):
        for bx in range(gdx):
            # Starting a block and each of its threads costs a step, so a launch of empty threads is bounded too.
            runtime.executed += 1 + len(threads)
            if runtime.executed > runtime.max_steps:
                return Stop("step_budget", 0, 0, (bx, by), f"stopped after {runtime.max_steps:,} steps")
            runtime.new_block((bx, by))
            streams: list[list] = [[] for _ in threads]
            generators = [
                kernel(*arrays, streams[t], tx, ty, bx, by, bdx, bdy, gdx, gdy) for t, (tx, ty) in enumerate(threads)
            ]
            live = list(range(len(threads)))
            number = 0
            while live:
                runtime.interval = number
                waiting: dict[int, int] = {}
                instances: dict[int, int] = {}
                finished: list[int] = []
                made: list[tuple[int, int]] = []
                segments: list[tuple[int, list[int]]] = []
                stop: Stop | None = None
                executed = runtime.executed  # a local in the loop, which runs for every thread of every interval
                for t in live:
                    stream = streams[t]
                    start, before = len(stream), len(values)
                    runtime.stream, runtime.thread = stream, t
                    namespace["_pl_allow"] = budget - executed + start + before
                    runtime.charged = 0
                    try:
                        waiting[t], instances[t] = next(generators[t])
                    except StopIteration:
                        finished.append(t)
                    except StepBudgetError:
                        line = statements[stream[-1]].line if stream else 0
                        stop = Stop("step_budget", line, t, (bx, by), f"stopped after {runtime.max_steps:,} steps")
                    except Exception as error:  # noqa: BLE001 - the student's code may fail in any way
                        stop = Stop("error", error_line(error), t, (bx, by), f"{type(error).__name__}: {error}")
                    accesses = len(values) - before
                    if accesses:
                        made.append((t, accesses))
                    if len(stream) > start:
                        segments.append((t, stream[start:]))
                    executed += len(stream) - start + accesses + runtime.charged
                    if stop is None and executed > budget:
                        stop = Stop("step_budget", 0, t, (bx, by), f"stopped after {runtime.max_steps:,} steps")
                    if stop is not None:
                        break
                runtime.executed = executed
                on_interval(
                    Interval(
                        (bx, by),
                        number,
                        tuple(segments),
                        tuple(made),
                        waiting,
                        instances,
                        tuple(finished),
                        stop is not None,
                    )
                )
                if stop is not None:
                    return stop
                live = [t for t in live if t in waiting]
                number += 1
    return None
