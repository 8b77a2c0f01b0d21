"""Constant memory: module-level NumPy arrays a kernel reads, directly or through `cuda.const.array_like`.

Numba places every module-level NumPy array a kernel names in the constant address space, its bytes frozen
into the compiled kernel (`numba/cuda/target.py`, `make_constant_array`); `cuda.const.array_like(W)` hands
back that same array (its lowering is a no-op, `numba/cuda/cudaimpl.py`; the CUDA simulator returns W). So
`W[i]` and `c = cuda.const.array_like(W)` then `c[i]` both read constant memory, and a store into either does
not compile (Numba types a global array read-only): the playground refuses it, naming the line.

A playground file may define one, after `import numpy as np`, as

- `W = np.array([0.5, 1.0, 2.0], dtype=np.float32)`: a list or tuple of numbers (module constants and
  arithmetic allowed), or a list of equally long lists for a 2-D array;
- `R = np.arange(stop, dtype=np.int32)`, or `np.arange(start, stop[, step], ...)`;

with dtype `np.float32`, `np.float64`, `np.int32` or `np.int64`, or none (NumPy's choice: float64 when a
value is a float, else int64). It holds at most 64 KB, CUDA's constant memory (Programming Guide, "Technical
Specifications per Compute Capability": "Total amount of constant memory 64 KB").

Counting: a constant read is neither a global nor a shared load, so SPEC §2's counters do not see it; the
run's metrics count `constant_loads` (lanes), `constant_requests` (warp instructions) and `constant_passes`,
the requests the constant cache serves them in: "A request is then split into as many separate requests as
there are different memory addresses in the initial request, decreasing throughput by a factor equal to the
number of separate requests" (CUDA C++ Programming Guide, "Device Memory Accesses", Constant Memory).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.bulk import distinct_per_group, groups
from ..core.constants import WARP_SIZE
from .columns import Row
from .program import fail
from .subset import attribute_chain, bindings

CONSTANT_LIMIT_BYTES = 64 * 1024
NUMPY = "np"  # `import numpy as np`, the one way a file names NumPy
MAKERS = ("array", "arange")
ARRAY_LIKE = ["cuda", "const", "array_like"]
NUMPY_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}


@dataclass(frozen=True)
class ConstantArray:
    """A module-level NumPy array the kernel may read from constant memory."""

    name: str
    line: int
    dtype: str  # float32 | float64 | int32 | int64
    values: np.ndarray = field(compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.values.shape)


def is_maker(node: ast.expr) -> bool:
    """`np.array(...)` or `np.arange(...)`."""
    chain = (attribute_chain(node.func) if isinstance(node, ast.Call) else None) or []
    return len(chain) == 2 and chain[0] == NUMPY and chain[1] in MAKERS


def constant_array(name: str, call: ast.Call, value: Any) -> ConstantArray:
    """The array `name = np.array(...)` / `np.arange(...)` makes; `value` evaluates a constant expression
    (pysim.play.evaluate). Refuses, naming the line, what is not one of the module docstring's forms."""
    how = (attribute_chain(call.func) or [])[-1]
    arguments = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords}
    if set(keywords) - {"dtype"} or any(isinstance(a, ast.Starred) for a in arguments):
        raise fail(call, f"np.{how} takes its values and dtype=np.float32 (or float64, int32, int64) here")
    if how == "array" and len(arguments) == 2 and "dtype" not in keywords:
        keywords["dtype"] = arguments.pop()
    dtype = _dtype(call, keywords.get("dtype"))
    if how == "array":
        if len(arguments) != 1:
            raise fail(call, "np.array takes one list of numbers: np.array([1.0, 2.0], dtype=np.float32)")
        data: Any = _numbers(arguments[0], value)
    else:
        if not 1 <= len(arguments) <= 3:
            raise fail(call, "np.arange takes stop, or start, stop and step: np.arange(16, dtype=np.int32)")
        bounds = [value(a) for a in arguments]
        if any(isinstance(b, (tuple, bool)) for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
            raise fail(call, "np.arange takes numbers, and a step that is not 0")
        start, stop, step = ([0, *bounds, 1] if len(bounds) == 1 else [*bounds, 1])[:3]
        # Counted before NumPy makes it; an endless span (np.arange(0, 1e308, 1e-308)) is past any limit.
        span = max(0.0, (stop - start) / step)
        count = math.ceil(span) if math.isfinite(span) else CONSTANT_LIMIT_BYTES + 1
        _check_size(call, count, dtype or ("float64" if any(isinstance(b, float) for b in bounds) else "int64"))
        data = np.arange(start, stop, step)
    try:
        with np.errstate(over="ignore"):  # a float past float32's range becomes inf: refused below
            values = np.array(data, dtype=NUMPY_DTYPES[dtype] if dtype else None)
    except OverflowError as error:
        raise fail(call, f"a value does not fit in {dtype}: {error}") from None
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise fail(call, f"a value does not fit in {values.dtype.name} (it would be infinite)")
    if values.dtype.name not in NUMPY_DTYPES:
        raise fail(call, f"a constant array holds float32, float64, int32 or int64 (this one is {values.dtype.name})")
    if values.size == 0 or values.ndim not in (1, 2):
        raise fail(call, "a constant array has one or two dimensions and at least one element")
    _check_size(call, values.size, values.dtype.name)
    values.flags.writeable = False
    return ConstantArray(name, call.lineno, values.dtype.name, values)


def _dtype(call: ast.Call, node: ast.expr | None) -> str | None:
    if node is None:
        return None
    chain = attribute_chain(node) or []
    if len(chain) == 2 and chain[0] == NUMPY and chain[1] in NUMPY_DTYPES:
        return chain[1]
    raise fail(call, "pass dtype=np.float32, np.float64, np.int32 or np.int64")


def _numbers(node: ast.expr, value: Any) -> list[Any]:
    """A list or tuple of numbers, or of equally long lists of numbers (a 2-D array)."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise fail(node, "np.array takes a list of numbers here: np.array([1.0, 2.0], dtype=np.float32)")
    if node.elts and all(isinstance(item, (ast.List, ast.Tuple)) for item in node.elts):
        rows = [_numbers(item, value) for item in node.elts]
        if len({len(row) for row in rows}) != 1 or any(isinstance(x, list) for row in rows for x in row):
            raise fail(node, "the rows of a 2-D constant array are lists of numbers of one length")
        return rows
    found = [value(item) for item in node.elts]
    if any(isinstance(x, (tuple, bool)) for x in found):
        raise fail(node, "a constant array holds numbers")
    return found


def _check_size(call: ast.Call, count: int, dtype: str) -> None:
    size = count * np.dtype(NUMPY_DTYPES[dtype]).itemsize
    if size > CONSTANT_LIMIT_BYTES:
        raise fail(call, f"this constant array takes {size:,} bytes; constant memory holds 65,536 (64 KB)")


def constant_names(function: ast.FunctionDef, arrays: dict[str, ConstantArray]) -> dict[str, str]:
    """Each name the kernel may read constant memory through: the module's arrays, and the names bound to
    `cuda.const.array_like(W)`, with the module array each reads. Such a name may hold nothing else."""
    found = {name: name for name in arrays}
    aliases, other = bindings(
        function, lambda value: isinstance(value, ast.Call) and attribute_chain(value.func) == ARRAY_LIKE
    )
    for node in aliases:
        value = cast(ast.Call, node.value)
        source = value.args[0] if len(value.args) == 1 and not value.keywords else None
        if not (isinstance(source, ast.Name) and source.id in arrays):
            raise fail(
                value,
                "cuda.const.array_like takes a module-level NumPy array (W = np.array([...], "
                "dtype=np.float32) above the kernel); on A, B or C it would hand back global memory",
            )
        target = cast(ast.Name, node.targets[0]).id
        if found.setdefault(target, source.id) != source.id:
            raise fail(node, f"{target!r} holds the constant array {found[target]}; use another name")
    for name in sorted(set(found) & set(other)):
        raise fail(other[name], f"{name!r} is constant memory ({found[name]}): it cannot be assigned")
    return found


def read_only(node: ast.AST, name: str) -> Exception:
    """The refusal of a store into constant array `name`."""
    return fail(
        node,
        f"{name} is constant memory (a module-level NumPy array, frozen into the kernel): it cannot be written, "
        "and Numba refuses to compile the store. Copy what you change into a local or shared array",
    )


def constant_reads(rows: np.ndarray, arrays: int) -> tuple[int, int, int]:
    """(loads, warp instructions, passes) of a chunk's constant-memory rows: the lanes of one warp reading one
    site in one iteration are one instruction, taking one pass per distinct word (the module docstring)."""
    if not len(rows):
        return (0, 0, 0)
    position, thread, site, array, vector = (
        rows[:, column].astype(np.intp) for column in (Row.POSITION, Row.THREAD, Row.SITE, Row.ARRAY, Row.VECTOR)
    )
    of_row, count, _ = groups(position, site * arrays + array, vector, thread // WARP_SIZE)
    passes = distinct_per_group(of_row, count, rows[:, Row.WORD].astype(np.int64))
    return len(rows), count, int(passes.sum())
