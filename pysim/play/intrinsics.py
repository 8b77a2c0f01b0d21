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
import struct
from array import array
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


_F32 = array("f", [0.0])  # rounds what is stored in it to float32 (round to nearest even)


def fma32(x: float, y: float, z: float) -> float:
    """`fma.rn.f32(x, y, z)` bit for bit: x·y + z, rounded once to float32 (x, y, z hold float32 values).

    x·y is exact in float64 (two 24-bit significands need 48 of its 53 bits) and TwoSum gives the exact error
    of s = x·y + z in float64; rounding s *to odd* (one ulp toward the error when s is even) keeps the sticky
    bit, and a float64 rounded to odd then to float32 is the exact sum rounded to float32, as 53 ≥ 24 + 2
    (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
    odd", IEEE Trans. Computers 57(4), 2008). Rounding s to float32 directly could round twice."""
    p = x * y
    s = p + z
    if math.isfinite(s):
        b = s - p
        error = (p - (s - b)) + (z - b)
        if error and not struct.unpack("<Q", struct.pack("<d", s))[0] & 1:
            s = math.nextafter(s, math.inf if error > 0 else -math.inf)
    _F32[0] = s
    return _F32[0]


def fma32_addend_first(z: float, x: float, y: float) -> float:
    """`fma32(x, y, z)` for `z + x*y` and `acc += x*y`, whose addend Python evaluates before the factors."""
    return fma32(x, y, z)


def fma(a: float, b: float, c: float, single: bool) -> float:
    """`cuda.fma`: a·b + c rounded once: to float32 when `single` (every operand float32), else to float64."""
    if single:
        return fma32(a, b, c)
    if not all(math.isfinite(x) for x in (a, b, c)):
        return a * b + c  # inf and NaN propagate as the hardware's fma does
    return float(Fraction(a) * Fraction(b) + Fraction(c))  # Fraction -> float rounds once, to nearest even


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
