"""The SPEC §5 subset's vocabulary: the names, operators and calls a playground file may use, and how the
page names a node kind. What is refused, and why, is `pysim.play.policy`; the rewrite
(`pysim.play.rewrite`) and Numba's types (`pysim.play.numba_types`) read the same names.

A student's file is Numba-CUDA: `from numba import cuda, float32`, module-level integer constants,
`@cuda.jit def kernel(A, B, C)` and `def launch(M, N, K)`. Round three (SPEC §7) adds, each with Numba's
semantics (tests/unit/test_play_subset3.py):

- `cuda.grid(n)` / `cuda.gridsize(n)` for n = 1, 2, 3, unpacked or kept (`pos = cuda.grid(2)`, `pos[0]`);
- 3-D blocks and grids: `.z` of `threadIdx`/`blockIdx`/`blockDim`/`gridDim`, launch() returning 3-tuples; warps
  fill x, then y, then z (tests/unit/test_play_blocks_3d.py);
- `@cuda.jit(device=True)` functions, inlined (`pysim.play.inline`): one return, last; no recursion;
- `import math` and `math.<function>` (`pysim.play.intrinsics.MATH_FUNCTIONS`), `cuda.fma` (one rounding,
  counted as a multiply-add);
- `cuda.laneid`, `cuda.warpsize`, `cuda.syncwarp`, `cuda.shfl_sync`/`shfl_up_sync`/`shfl_down_sync`/
  `shfl_xor_sync`, `cuda.ballot_sync`/`all_sync`/`any_sync`, their masks checked (`pysim.play.warps`);
- `int32`, `int64` and `float64` shared and local arrays, and those conversions; an 8-byte shared element is an
  LDS.64 whose banks follow `pysim.core.banks`' 64-bit rule (two half-warp phases); arrays of one, two or three
  dimensions (`X[i, j, k]`, row-major);
- `n = cuda.syncthreads_count(p)` (and `_and`, `_or`); `cuda.atomic.exch` and `cuda.atomic.cas`;
- dynamic shared memory: `cuda.shared.array(0, dtype)`, sized by `launch()` returning
  `(grid, block, 0, bytes)` (Numba's `kernel[grid, block, stream, bytes]`); every such array is the same memory;
- constant memory: `import numpy as np`, module-level `W = np.array([...], dtype=np.float32)` or
  `np.arange(...)`, read as `W[i]` or through `c = cuda.const.array_like(W)` (`pysim.play.constants`).

Refused, naming the form: arrays of four or more dimensions, `cuda.atomic.inc/dec` (Numba's uint32/uint64
only), `math.fma`, a store into constant memory.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

# Prefix of every name the rewrite adds; a student's names may not use it.
RESERVED = "_pl_"
SPECIALS = {  # per axis x, y, z
    "threadIdx": ("_pl_tx", "_pl_ty", "_pl_tz"),
    "blockIdx": ("_pl_bx", "_pl_by", "_pl_bz"),
    "blockDim": ("_pl_bdx", "_pl_bdy", "_pl_bdz"),
    "gridDim": ("_pl_gdx", "_pl_gdy", "_pl_gdz"),
}
THREAD_ARGS = ("_pl_e", *(name for names in SPECIALS.values() for name in names))
CALLABLE_BUILTINS = frozenset({"range", "min", "max", "abs", "int", "float", "float32"})
BINARY_OPS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.LShift,
    ast.RShift,
    ast.BitAnd,
    ast.BitOr,
    ast.BitXor,
)
UNARY_OPS = (ast.USub, ast.UAdd, ast.Not, ast.Invert)
COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
SUBSET = (
    "the playground accepts the Numba-CUDA subset of SPEC §5 and §7: `import math`, `import numpy as np`, "
    "`from numba import cuda, float32`, integer constants, constant arrays (`W = np.array([...], "
    "dtype=np.float32)`), `@cuda.jit(device=True)` functions, `@cuda.jit def kernel(A, B, C)` and "
    "`def launch(M, N, K)`"
)
# Calls a CUDA programmer reaches for that the playground does not model, and why (policy.refuse_call).
REFUSED_CALLS = {
    "print": "print is not available: a GPU has no console here; look at C, the counters and the thread steps",
    "cuda.activemask": "cuda.activemask() is not supported: pass the mask of the lanes you mean (0xffffffff: all 32)",
}


def describe(node: ast.AST) -> str:
    names = {
        ast.Lambda: "a lambda",
        ast.ListComp: "a list comprehension",
        ast.GeneratorExp: "a generator expression",
        ast.DictComp: "a dict comprehension",
        ast.SetComp: "a set comprehension",
        ast.List: "a list",
        ast.Dict: "a dict",
        ast.Set: "a set",
        ast.JoinedStr: "an f-string",
        ast.Starred: "a starred expression",
        ast.NamedExpr: "the := operator",
        ast.Slice: "a slice (`:`)",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.YieldFrom: "yield from",
        ast.With: "a with statement",
        ast.Try: "a try statement",
        ast.Raise: "raise",
        ast.Global: "global",
        ast.Nonlocal: "nonlocal",
        ast.Delete: "del",
        ast.Assert: "assert",
        ast.ClassDef: "a class",
        ast.FunctionDef: "a nested function",
        ast.Import: "import",
        ast.ImportFrom: "import",
        ast.AnnAssign: "an annotated assignment",
    }
    return names.get(type(node), type(node).__name__)


def attribute_chain(node: ast.AST) -> list[str] | None:
    """`cuda.threadIdx.x` -> ["cuda", "threadIdx", "x"]; None when the chain does not start at a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def is_atomic(node: ast.AST) -> bool:
    """`cuda.atomic.<anything>(...)`."""
    return isinstance(node, ast.Call) and (attribute_chain(node.func) or [])[:2] == ["cuda", "atomic"]


def bindings(
    function: ast.FunctionDef, chosen: Callable[[ast.expr], bool]
) -> tuple[list[ast.Assign], dict[str, ast.Name]]:
    """The assignments `name = value` of `function` whose value is `chosen`, and every other name it stores to
    (with its first store): a name bound to a grid tuple, an array or constant memory may hold nothing else."""
    found: list[ast.Assign] = []
    other: dict[str, ast.Name] = {}
    bound: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if chosen(node.value):
                found.append(node)
                bound.add(id(node.targets[0]))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in bound:
            other.setdefault(node.id, node)
    return found, other
