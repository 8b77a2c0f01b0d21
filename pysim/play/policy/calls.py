"""The round-three calls and names of the kernel subset (SPEC §7; `pysim.play.intrinsics`): tuples from
`cuda.grid`/`cuda.gridsize`, `math.*`, `cuda.fma`, `cuda.laneid`, `cuda.warpsize` and the warp primitives.
`KernelPolicy` asks here first; what is neither here nor in its own vocabulary is refused, naming the form."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import cast

from ..intrinsics import MATH_FUNCTIONS, WARP_CALLS
from ..program import fail
from ..subset import attribute_chain, bindings

GRIDS = (["cuda", "grid"], ["cuda", "gridsize"])
WARP_NAMES = ("laneid", "warpsize")  # cuda.<name>: whole numbers
ACCEPTED_CALLS = (
    "range, min, max, abs, int, float, float32, int32, int64, float64, len, math.<function>, cuda.grid, cuda.gridsize, cuda.fma, "
    "cuda.syncthreads, cuda.syncwarp, cuda.shfl_sync, cuda.shfl_up_sync, cuda.shfl_down_sync, "
    "cuda.shfl_xor_sync, cuda.ballot_sync, cuda.all_sync, cuda.any_sync, cuda.atomic.add/max/min, "
    "cuda.shared.array, cuda.local.array, cuda.const.array_like"
)


def grid_dimensions(node: ast.expr) -> int | None:
    """n of `cuda.grid(n)` / `cuda.gridsize(n)` (None for any other expression); refuses n outside 1 to 3."""
    if not (isinstance(node, ast.Call) and attribute_chain(node.func) in GRIDS):
        return None
    name = ".".join(attribute_chain(node.func) or [])
    if node.keywords or len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
        raise fail(node, f"{name} takes the number of dimensions: {name}(1), {name}(2) or {name}(3)")
    n = node.args[0].value
    if n not in (1, 2, 3) or isinstance(n, bool):
        raise fail(node, f"{name} takes the number of dimensions: {name}(1), {name}(2) or {name}(3)")
    return n  # type: ignore[return-value]  # 1, 2 or 3


def tuple_names(function: ast.FunctionDef) -> dict[str, int]:
    """Names bound to `cuda.grid(n)` or `cuda.gridsize(n)`, n = 2 or 3, with n (read as `pos[0]`, `pos[1]`);
    such a name may hold nothing else, so `pos[0]` is always a tuple's item, never an array's element."""
    tuples: dict[str, int] = {}
    found, other = bindings(function, lambda value: (grid_dimensions(value) or 1) > 1)
    for node in found:
        name, n = cast(ast.Name, node.targets[0]).id, cast(int, grid_dimensions(node.value))
        if tuples.setdefault(name, n) != n:
            raise fail(node, f"{name!r} holds cuda.grid({tuples[name]})'s tuple; give the other value another name")
    for name in sorted(set(tuples) & set(other)):
        raise fail(other[name], f"{name!r} holds cuda.grid({tuples[name]})'s tuple; give the other value another name")
    return tuples


def check_tuple_item(node: ast.Subscript, n: int) -> None:
    """`pos[0]` to `pos[n - 1]` of a tuple name bound to a cuda.grid(n)."""
    index = node.slice
    if not (isinstance(index, ast.Constant) and index.value in range(n) and not isinstance(index.value, bool)):
        items = ", ".join(f"pos[{i}] ({axis})" for i, axis in zip(range(n), "xyz"))
        raise fail(node, f"index the tuple of cuda.grid({n}) with 0 to {n - 1}: {items}")


def check_call(node: ast.Call, modules: frozenset[str], visit: Callable[[ast.AST], None]) -> bool:
    """Check a round-three call; False when `node` is none of them (the kernel policy goes on)."""
    chain = attribute_chain(node.func) or []
    if chain in (["int32"], ["int64"], ["float64"]):
        if chain[0] not in modules:
            raise fail(node, f"import {chain[0]}: `from numba import cuda, {chain[0]}`")
        _arguments(node, 1, chain[0], visit)
        return True
    if chain[:1] == ["math"] and len(chain) == 2:
        if "math" not in modules:
            raise fail(node, "import math first: `import math` at the top of the file")
        if chain[1] == "fma":
            raise fail(node, "math.fma is not part of Numba's CUDA target: use cuda.fma(a, b, c)")
        arity = MATH_FUNCTIONS.get(chain[1])
        if arity is None:
            raise fail(node, f"math.{chain[1]} is not supported by the playground (math.sqrt, exp, log, sin, ... are)")
        _arguments(node, arity, f"math.{chain[1]}", visit)
        return True
    if chain == ["cuda", "fma"]:
        _arguments(node, 3, "cuda.fma", visit)
        return True
    if len(chain) == 2 and chain[0] == "cuda" and chain[1] in WARP_CALLS:
        arity = WARP_CALLS[chain[1]]
        if chain[1] == "syncwarp":
            raise fail(node, "cuda.syncwarp() must stand on a line of its own")
        _arguments(node, arity, f"cuda.{chain[1]}", visit)
        return True
    return False


def check_syncwarp(node: ast.Call, visit: Callable[[ast.AST], None]) -> None:
    """`cuda.syncwarp()` or `cuda.syncwarp(mask)`, standing alone."""
    if node.keywords or len(node.args) > 1:
        raise fail(node, "cuda.syncwarp takes at most a mask: cuda.syncwarp() or cuda.syncwarp(0xffffffff)")
    for arg in node.args:
        visit(arg)


def _arguments(node: ast.Call, count: int, name: str, visit: Callable[[ast.AST], None]) -> None:
    if node.keywords or len(node.args) != count or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise fail(node, f"{name} takes {count} argument{'s' if count > 1 else ''}")
    for arg in node.args:
        visit(arg)
