"""The functions the rewritten kernel calls: every access checked and recorded, allocations, and the
arithmetic Numba would type, each over the run's small context (`pysim.play.runtime.Runtime`).

Indices follow Numba: a negative index within the extent wraps (`A[-1, 0]` is the last row), as NumPy's
does. Out-of-bounds accesses are not performed: the runtime reports them (line, thread, block); a load
returns 0 but is recorded at the address it asked for, so it is counted as issued (the GPU issues it).
Scalar arithmetic between loads and stores happens in Python floats, rounded to float32 after every
operation Numba types float32 (`pysim.play.numba_types`). Integers stay within 64 bits (a variable that
would leave ±2**63 stops the run: Numba's int64 would wrap silently).

The access functions run for every access of every thread: each is a closure over the two list methods
that record (no attribute lookup per access), made once per run by `namespace`.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

from .columns import FIRST_ALLOCATION
from .intrinsics import fma32, fma32_addend_first, math_namespace, to_int32, to_int64
from .launch import launch_int
from .limits import INT_LIMIT, past_64_bits
from .runtime import Array, KernelError, Runtime, StepBudgetError, constant_array

ATOMIC_OPERATIONS = ("add", "max", "min", "exch", "cas")  # cuda.atomic.<name>, numbered as the runtime's `how`
FLUSH_BELOW = 2.0**-126  # smallest normal float32: a global atomic add flushes what lies below to zero
F32_BUFFER = array("f", [0.0])  # the one float32 `f32` rounds through (the rewritten kernel uses it inline too)

Record = Callable[[tuple[int, int, int, int, int]], None]  # extends Runtime.records by one access
Value = Callable[[float], None]  # appends its value to Runtime.values


def namespace(rt: Runtime) -> dict[str, Any]:
    """Globals of the rewritten kernel: module constants, allowed builtins, the access functions."""
    record, value_of = rt.records.extend, rt.values.append  # two calls per access (the module docstring)
    outside = _outside(rt, record, value_of)
    ld1, ld2 = _loads(record, value_of, outside)
    st1, st2 = _stores(record, value_of, outside)
    ld3, st3 = _three_d(record, value_of, outside)
    at1, at2, at3 = _atomics((ld1, ld2, ld3), (st1, st2, st3))
    found: dict[str, Any] = {
        "__builtins__": {},
        "range": range,
        "min": min,
        "max": max,
        "abs": abs,
        "int": int,
        "float": float,
        "_pl_f32": f32,
        "_pl_mad": fma32,  # NVVM's contraction of a float32 multiply-add (pysim.play.numba_types)
        "_pl_mad_z": fma32_addend_first,
        "_pl_F": F32_BUFFER,  # the buffer `_pl_f32` rounds through, which the rewritten kernel also uses inline
        "_pl_pow": pow_,
        "_pl_lshift": lshift,
        # The step budget's check in every loop iteration (pysim.play.rewrite: `_tick`): the scheduler sets
        # `_pl_allow` for the running thread; the run's access values count the accesses.
        "_pl_len": len,
        "_pl_values": rt.values,
        "_pl_allow": rt.max_steps,
        "_pl_budget": StepBudgetError,
        "_pl_ld1": ld1,
        "_pl_ld2": ld2,
        "_pl_st1": st1,
        "_pl_st2": st2,
        "_pl_at1": at1,
        "_pl_at2": at2,
        "_pl_ld3": ld3,
        "_pl_st3": st3,
        "_pl_at3": at3,
        "_pl_vset": rt.vectors.numbers.setdefault,
        "_pl_vectors": rt.vectors.numbers,
        "_pl_int": launch_int,  # a variable's integer stays in 64 bits (Numba's int64 would wrap silently)
    }
    found.update(math_namespace())
    found["_pl_shared"], found["_pl_local"] = _allocations(rt, found)
    found.update(rt.program.constants)
    first = FIRST_ALLOCATION + len(rt.program.allocations)
    for number, constant in enumerate(rt.program.constant_arrays, first):  # read-only: the policy refuses stores
        found[constant.name] = constant_array(constant, number)
    return found


def _allocations(rt: Runtime, names: dict[str, Any]) -> tuple[Callable[[int], Array], Callable[[int], Array]]:
    """`cuda.shared.array` (the block's) and `cuda.local.array` (a fresh one, charged to the step budget)."""
    allocations, templates, values = rt.program.allocations, rt.local_templates, rt.values

    def shared(number: int) -> Array:
        return rt.shared[number]

    def local(number: int) -> Array:
        a = allocations[number]
        # Filling it costs a step per word: a fresh large local array in every iteration stays bounded.
        rt.charged += a.words
        names["_pl_allow"] -= a.words
        if len(rt.stream) + len(values) > names["_pl_allow"]:
            raise StepBudgetError
        return Array(a.name, "register", FIRST_ALLOCATION + number, a.shape, templates[number][:])

    return shared, local


def _outside(rt: Runtime, record: Record, value_of: Value) -> Callable[..., float]:
    """What an access that is not in bounds does: explain a bad array or index, else report it."""

    def outside(X: Any, site: int, index: tuple, o: int, v: int) -> float:
        if not isinstance(X, Array):
            raise KernelError(f"{rt.program.sites[site].array} is not an array (it is {type(X).__name__})")
        if len(index) != len(X.shape):
            raise KernelError(
                f"{X.name} has {len(X.shape)} dimension(s) but is indexed with {len(index)}: "
                + {1: "X[i]", 2: "X[row, col]"}.get(len(X.shape), "X[i, j, k]")
            )
        for item in index:
            if isinstance(item, float) and not math.isnan(item):
                raise KernelError(f"an index of {X.name} must be a whole number (got {item!r}); use // for division")
            if not isinstance(item, (int, float)):
                raise KernelError(f"an index of {X.name} must be a whole number (got {item!r})")
        rt.out_of_bounds.append((site, rt.thread, rt.block, X.name, index, X.shape))
        if rt.program.sites[site].op == "load" and all(isinstance(item, int) for item in index):
            # The GPU issues the load at the address the index asks for: record it there, so it is
            # counted (loads, sectors, banks) as issued. An address before the array's start, or past any
            # 64-bit address, is only reported (the analysis reserves negative words for "no access").
            word = 0
            for item, extent in zip(index, X.shape):
                word = word * extent + item
            if 0 <= word < INT_LIMIT:
                record((site, X.number, word, o, v))
                value_of(0.0)
        return 0.0

    return outside


# Each access first tries the in-bounds case (the fast path: a global or shared element, recorded inline),
# then Numba's wraparound of a negative index within the extent (A[-1, 0] is A[M - 1, 0]), then reports it
# out of bounds. `o` and `v` are the statement's ordinal and iteration vector.
def _loads(record: Record, value_of: Value, outside: Callable[..., float]) -> tuple[Callable, Callable]:
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

    return ld1, ld2


def _stores(record: Record, value_of: Value, outside: Callable[..., float]) -> tuple[Callable, Callable]:
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

    return st1, st2


def _atomics(loads: tuple[Callable, ...], stores: tuple[Callable, ...]) -> tuple[Callable, ...]:
    """`cuda.atomic.<how>` on a 1-, 2- or 3-D array: a load and a store of the element that no other thread
    splits."""

    def atomic(load: Callable, store: Callable) -> Callable:
        def at(X: Any, load_site: int, store_site: int, how: int, *rest: Any) -> float:
            *index, value, o, v = rest
            old = load(X, load_site, *index, o, v)
            store(X, store_site, *index, _combine(X, how, old, value), o, v)
            return old

        return at

    return tuple(atomic(load, store) for load, store in zip(loads, stores))


def _three_d(record: Record, value_of: Value, outside: Callable[..., float]) -> tuple[Callable, Callable]:
    """The load and store of a 3-D shared or local array's element `X[i, j, k]` (row-major, as Numba's C order),
    negative indices wrapping as in 1-D and 2-D."""

    def ld3(X: Any, site: int, i: Any, j: Any, k: Any, o: int, v: int) -> float:
        try:
            a, b, c = X.shape
            if 0 <= i < a and 0 <= j < b and 0 <= k < c:
                w = (i * b + j) * c + k
                value = X.data[w]
                record((site, X.number, w, o, v))
                value_of(value)
                return value
            if -a <= i < a and -b <= j < b and -c <= k < c:
                return ld3(X, site, i % a, j % b, k % c, o, v)
        except (AttributeError, TypeError, ValueError):  # ValueError: X has not 3 dimensions
            pass
        return outside(X, site, (i, j, k), o, v)

    def st3(X: Any, site: int, i: Any, j: Any, k: Any, value: Any, o: int, v: int) -> None:
        try:
            a, b, c = X.shape
            if 0 <= i < a and 0 <= j < b and 0 <= k < c:
                w = (i * b + j) * c + k
                data = X.data
                data[w] = value
                record((site, X.number, w, o, v))
                value_of(data[w])
                return
            if -a <= i < a and -b <= j < b and -c <= k < c:
                return st3(X, site, i % a, j % b, k % c, value, o, v)
        except (AttributeError, TypeError, OverflowError, ValueError):
            _check_value(X, value)
        outside(X, site, (i, j, k), o, v)

    return ld3, st3


def f32(x: Any) -> float:
    F32_BUFFER[0] = x
    return F32_BUFFER[0]


ELEMENT: dict[str, Callable[[Any], Any]] = {
    "f": f32,
    "d": float,
    "i": to_int32,
    "q": to_int64,
}  # a value as an array of that typecode holds it


def pow_(a: Any, b: Any) -> Any:
    if past_64_bits(True, a, b):
        raise KernelError(f"{a} ** {b} does not fit in 64 bits (±2**63)")
    return launch_int(a**b)


def lshift(a: Any, b: Any) -> Any:
    if past_64_bits(False, a, b):
        raise KernelError(f"{a} << {b} does not fit in 64 bits (±2**63)")
    return launch_int(a << b)


def _combine(X: Any, how: int, old: Any, value: Any) -> Any:
    """The value an atomic leaves (ATOMIC_OPERATIONS[how]), in the array's element type: float32 arrays round
    the operand to float32 first, integer arrays wrap to their width (pysim.play.intrinsics). A float add on
    global memory flushes denormals to zero, inputs and result ("atomic single-precision floating-point adds
    on global memory always operate in flush-to-zero mode", CUDA C++ Programming Guide, Floating-Point
    Standard); max and min are Python's, as in Numba's simulator; exch and cas take integers only (Numba's
    CUDA target types them for int32/int64, `numba/cuda/cudadecl.py`), so on a float array they stop the run."""
    code = X.data.typecode if isinstance(X, Array) else "f"
    if how in (3, 4) and code not in "iq":
        name = ATOMIC_OPERATIONS[how]
        raise KernelError(f"cuda.atomic.{name} needs an int32 or int64 array; {X.name} holds floats")
    if how == 4:
        compare, value = value
        return ELEMENT[code](value) if old == ELEMENT[code](compare) else old
    value = ELEMENT[code](value)
    if how == 1:
        return max(old, value)
    if how == 2:
        return min(old, value)
    if how == 3:
        return value
    if code != "f" or X.space != "global":
        return ELEMENT[code](old + value)
    old, value = (0.0 if abs(x) < FLUSH_BELOW else x for x in (old, value))
    total = old + value
    return math.copysign(0.0, total) if abs(total) < FLUSH_BELOW else total


def _check_value(X: Any, v: Any) -> None:
    """Why a store failed, when the value is to blame (`outside` explains a bad array or index)."""
    if isinstance(X, Array) and not isinstance(v, (int, float)):
        raise KernelError(f"{X.name} holds float32 numbers; cannot store {v!r}")
    if isinstance(X, Array) and isinstance(v, int) and abs(v) >= 2**128:
        raise KernelError(f"{v} does not fit in float32")
