"""The round-three calls of the subset (SPEC §7): `cuda.grid`/`cuda.gridsize` as tuples, `math.*`, `cuda.fma`
and the warp primitives, with Numba's CUDA types and the runtime functions that compute them.

Types follow Numba's CUDA typing (`numba/cuda/cudamath.py`, `cudadecl.py`): a math function of float32
arguments is float32 (`math.floor(float32)` too: on the CUDA target floor, ceil and trunc keep the float's
type), of anything else float64; `math.isnan`/`isinf`/`isfinite` are bools. Python computes every math
function in float64 and the rewrite rounds a float32 result once (`_pl_f32`): correctly rounded, where the
GPU's libdevice is correctly rounded for sqrt, fabs, floor, ceil, trunc, copysign and fmod and within its
documented ulp bound for the rest (CUDA C++ Programming Guide, "Mathematical Functions": expf 2 ulp, logf
1 ulp, sinf 2 ulp, ...). A domain error is NaN and an overflow infinity, as on the GPU, never an exception.

`cuda.fma(a, b, c)` rounds once (`fma.rn`), and counts as a multiply-add (SPEC §2 `fma`). `math.fma` is not
part of Numba's CUDA target: the policy names `cuda.fma` instead.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .subset import attribute_chain

WARP_SIZE = 32
FULL_MASK = (1 << WARP_SIZE) - 1

# Numba's number types a file may import (`from numba import cuda, float32, int32`) as array dtypes and
# conversions: the array's typecode (`array.array`), and the type its elements have in arithmetic (an
# int32 element takes part as an int64, as Numba widens integer arithmetic to int64).
DTYPES = {"float32": ("f", "float32"), "float64": ("d", "float64"), "int32": ("i", "int64"), "int64": ("q", "int64")}
DTYPE_BYTES = {"float32": 4, "int32": 4, "float64": 8, "int64": 8}
WIDE = frozenset({"float64", "int64"})  # 8-byte elements: two banks a word, which the bank count does not model

# math.<name> -> how many arguments; every one is typed as above.
MATH_FUNCTIONS = {
    **dict.fromkeys(
        (
            "sqrt",
            "exp",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "erf",
            "erfc",
            "fabs",
            "floor",
            "ceil",
            "trunc",
        ),
        1,
    ),
    **dict.fromkeys(("pow", "atan2", "hypot", "copysign", "fmod"), 2),
    **dict.fromkeys(("isnan", "isinf", "isfinite"), 1),
}
MATH_BOOLEANS = frozenset({"isnan", "isinf", "isfinite"})
NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2", "pow": "power"}

# cuda.<name> of a warp, with its arguments: (mask, value, lane or delta) for the shuffles.
SHUFFLES = ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync")
VOTES = ("ballot_sync", "all_sync", "any_sync")
WARP_CALLS = {**dict.fromkeys(SHUFFLES, 3), **dict.fromkeys(VOTES, 2), "syncwarp": 1}
COLLECTIVES = (*SHUFFLES, *VOTES, "syncwarp")  # numbered as the runtime's `kind`
COUNTING_BARRIERS = ("syncthreads_count", "syncthreads_and", "syncthreads_or")  # numbered as `tally`'s `how`


def counting_barrier(node: ast.AST) -> int | None:
    """The number of `cuda.syncthreads_count/and/or(p)` in COUNTING_BARRIERS; None for any other node."""
    if not isinstance(node, ast.Call):
        return None
    chain = attribute_chain(node.func) or []
    if len(chain) == 2 and chain[0] == "cuda" and chain[1] in COUNTING_BARRIERS:
        return COUNTING_BARRIERS.index(chain[1])
    return None


def math_type(name: str, args: list[str]) -> str:
    """Numba's CUDA type of `math.<name>(args)`: bool, float32 when every argument is float32, else float64."""
    if name in MATH_BOOLEANS:
        return "bool"
    return "float32" if args and all(arg == "float32" for arg in args) else "float64"


def call_type(chain: list[str], args: list[str]) -> str | None:
    """Numba's type of a round-three call (None for any other call): `math.*`, `cuda.fma` and the warp
    primitives (a shuffle returns its value's type, a ballot a whole number)."""
    if chain[:1] == ["math"] and len(chain) == 2:
        return math_type(chain[1], args)
    if len(chain) != 2 or chain[0] != "cuda":
        return None
    name = chain[1]
    if name == "fma":
        return math_type(name, args)
    if name in SHUFFLES:
        return args[1] if len(args) == 3 else None
    if name == "ballot_sync":
        return "int64"
    return "bool" if name in ("all_sync", "any_sync") else None


def _safe(name: str) -> Callable[..., Any]:
    """`math.<name>` as the GPU computes it: where Python raises (a domain error, an overflow), NumPy's
    float64 function gives the IEEE result (NaN, ±infinity); elsewhere Python's, as Numba's simulator."""
    function = getattr(math, name)
    if name in MATH_BOOLEANS:
        return function  # never raises on a number

    def computed(*args: Any) -> float:
        try:
            return float(function(*args))
        except (ValueError, OverflowError):
            import numpy as np  # only here: the page's first import of this module stays NumPy-free

            with np.errstate(all="ignore"):
                return float(getattr(np, NUMPY_NAMES.get(name, name))(*map(np.float64, args)))

    return computed


def fma(a: float, b: float, c: float, single: bool) -> float:
    """a·b + c rounded once: to float32 when `single` (every operand float32), else to float64."""
    if not all(math.isfinite(x) for x in (a, b, c)):
        return a * b + c  # inf and NaN propagate as the hardware's fma does
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if not single:
        return float(exact)  # Fraction -> float rounds once, to nearest even
    return _round_to_float32(exact, a * b + c)


def _round_to_float32(exact: Fraction, near: float) -> float:
    """The float32 nearest `exact` (ties to even), found among the neighbours of `near`'s float32 rounding."""
    import numpy as np  # only here: the page's first import of this module stays NumPy-free

    guess = np.float32(near)
    if not np.isfinite(guess):
        return float(guess)
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    finite = [c for c in candidates if np.isfinite(c)]
    if exact == 0:
        return math.copysign(0.0, near)
    return float(min(finite, key=lambda c: (abs(Fraction(float(c)) - exact), int(c.view(np.int32)) & 1)))


def to_int32(x: Any) -> int:
    """int32(x) and a store into an int32 array: truncated toward zero, wrapped to 32 bits (as Numba's
    conversion and the GPU's store do)."""
    return (int(x) + (1 << 31)) % (1 << 32) - (1 << 31)


def to_int64(x: Any) -> int:
    """int64(x) and a store into an int64 array: truncated toward zero, wrapped to 64 bits."""
    return (int(x) + (1 << 63)) % (1 << 64) - (1 << 63)


def math_namespace() -> dict[str, Any]:
    """The runtime names of the math functions (`_pl_m_<name>`), of `cuda.fma` (`_pl_fma`) and of the number
    conversions (`_pl_int32`, `_pl_int64`, `_pl_float64`)."""
    found: dict[str, Any] = {f"_pl_m_{name}": _safe(name) for name in MATH_FUNCTIONS}
    found.update(_pl_fma=fma, _pl_int32=to_int32, _pl_int64=to_int64, _pl_float64=float)
    return found
