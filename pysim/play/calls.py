"""The calls of a checked kernel, rewritten (`pysim.play.rewrite.KernelRewriter` inherits this): atomics,
`cuda.grid`/`cuda.gridsize`, `len`, the builtins, `math.*` and `cuda.fma` (`pysim.play.intrinsics`), and the
warp primitives.

A warp primitive is a `yield` of the thread's request inside the expression that uses its result:
`(yield (line, call, vector, kind, mask, value, argument))`. The scheduler (`pysim.play.warps`) gathers the
lanes of a warp that reach the same call in the same iteration of the loops around it (the converged
schedule of `pysim.play.counting`), checks their masks, and sends each lane its result. A barrier's
`yield` has two items, so the scheduler tells the two apart by length.
"""

from __future__ import annotations

import ast
from typing import cast

from . import nodes
from .guards import ATOMIC_OPERATIONS
from .intrinsics import COLLECTIVES, FULL_MASK, WARP_SIZE
from .numba_types import F32, NumbaTypes
from .policy import ALLOCATIONS, allocation_arguments
from .subset import attribute_chain, bindings


def _product(*names: str) -> ast.expr:
    found: ast.expr = nodes.load(names[0])
    for name in names[1:]:
        found = ast.BinOp(left=found, op=ast.Mult(), right=nodes.load(name))
    return found


def _plus(left: ast.expr, right: ast.expr) -> ast.expr:
    return ast.BinOp(left=left, op=ast.Add(), right=right)


GRID = {  # cuda.grid(n) and cuda.gridsize(n), per axis, from the thread's variables
    "grid": (("_pl_bx", "_pl_bdx", "_pl_tx"), ("_pl_by", "_pl_bdy", "_pl_ty"), ("_pl_bz", "_pl_bdz", "_pl_tz")),
    "gridsize": (("_pl_bdx", "_pl_gdx"), ("_pl_bdy", "_pl_gdy"), ("_pl_bdz", "_pl_gdz")),
}


def grid_axis(name: str, axis: int) -> ast.expr:
    """cuda.grid's axis (blockIdx · blockDim + threadIdx) or cuda.gridsize's (blockDim · gridDim)."""
    parts = GRID[name][axis]
    if name == "grid":
        return _plus(_product(parts[0], parts[1]), nodes.load(parts[2]))
    return _product(*parts)


def lane() -> ast.expr:
    """cuda.laneid: the linear thread id (tx + ty·blockDim.x + tz·blockDim.x·blockDim.y) modulo the warp size."""
    linear = _plus(_plus(nodes.load("_pl_tx"), _product("_pl_ty", "_pl_bdx")), _product("_pl_tz", "_pl_bdx", "_pl_bdy"))
    return ast.BinOp(left=linear, op=ast.Mod(), right=nodes.constant(WARP_SIZE))


def array_dtypes(function: ast.FunctionDef) -> dict[str, str]:
    """The dtype of each name bound only to `cuda.shared.array(shape, dtype)` / `cuda.local.array`."""
    allocations, other = bindings(
        function, lambda value: isinstance(value, ast.Call) and attribute_chain(value.func) in ALLOCATIONS
    )
    found = {
        cast(ast.Name, node.targets[0]).id: cast(ast.Name, allocation_arguments(cast(ast.Call, node.value))["dtype"]).id
        for node in allocations
    }
    return {name: dtype for name, dtype in found.items() if name not in other}


def fused(node: ast.stmt) -> int:
    """The `cuda.fma(a, b, c)` calls of `node` (not of the statements nested in it): a multiply-add each."""
    roots = [getattr(node, "value", None) if not isinstance(node, (ast.If, ast.While)) else node.test]
    return sum(
        isinstance(inner, ast.Call) and attribute_chain(inner.func) == ["cuda", "fma"]
        for root in roots
        if root is not None
        for inner in ast.walk(root)
    )


def is_collective(node: ast.AST) -> bool:
    """A warp primitive call (`cuda.shfl_down_sync(...)`, `cuda.syncwarp()`, ...)."""
    if not isinstance(node, ast.Call):
        return False
    chain = attribute_chain(node.func) or []
    return len(chain) == 2 and chain[0] == "cuda" and chain[1] in COLLECTIVES


class CallRewrites:
    """The rewrite of calls; the rewriter provides `expr`, `new_site`, `_site_arguments`, `types`, the current
    vector's variable (`_vector_name`) and the collectives' count."""

    types: NumbaTypes
    collectives: int
    _dtypes: dict[str, str]  # the dtype of each name holding a shared or local array

    def expr(self, node: ast.expr) -> ast.expr:
        raise NotImplementedError

    def new_site(self, node: ast.expr, op: str, array: str, atomic: bool = False) -> int:
        raise NotImplementedError

    def _site_arguments(self) -> list[ast.expr]:
        raise NotImplementedError

    def _vector_name(self) -> str:
        raise NotImplementedError

    def atomic(self, node: ast.Call) -> ast.expr:
        """`cuda.atomic.add(X, (i, j), v)` (max, min, exch, cas; a 1-D X takes one index): one read-modify-write that
        no other thread can split, recorded as a load and a store of the element, both sites `atomic`."""
        how = (attribute_chain(node.func) or [])[-1]
        array, index, *values = node.args
        rewritten = [self.expr(item) for item in values]
        value = ast.Tuple(elts=rewritten, ctx=ast.Load()) if how == "cas" else rewritten[0]  # cas: (old, value)
        indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        name = cast(ast.Name, array).id
        load, store = self.new_site(node, "load", name, atomic=True), self.new_site(node, "store", name, atomic=True)
        arguments = [
            nodes.load(name),
            nodes.constant(load),
            nodes.constant(store),
            nodes.constant(ATOMIC_OPERATIONS.index(how)),
        ]
        return nodes.call(
            f"_pl_at{len(indices)}",
            *arguments,
            *[self.expr(i) for i in indices],
            value,
            *self._site_arguments(),
        )

    def _converted(self, array: str, value: ast.expr) -> ast.expr:
        """A value stored into an integer array, converted as Numba's store does (truncated, wrapped)."""
        dtype = self._dtypes.get(array, "float32")
        return nodes.call(f"_pl_{dtype}", value) if dtype in ("int32", "int64") else value

    def collective(self, node: ast.Call) -> ast.expr:
        """A warp primitive: the thread's request, yielded; the scheduler sends back the result."""
        kind = (attribute_chain(node.func) or [])[-1]
        args = [self.expr(arg) for arg in node.args]
        if kind == "syncwarp":
            args = args or [nodes.constant(FULL_MASK)]
        mask, value, argument = (args + [nodes.constant(0)] * 3)[:3]
        request = ast.Tuple(
            elts=[
                nodes.constant(node.lineno),
                nodes.constant(self.collectives),
                nodes.load(self._vector_name()),
                nodes.constant(COLLECTIVES.index(kind)),
                mask,
                value,
                argument,
            ],
            ctx=ast.Load(),
        )
        self.collectives += 1
        return ast.Yield(value=request)

    def call(self, node: ast.Call) -> ast.expr:
        """cuda.grid/gridsize(1), (2) and (3), len(X), math.*, cuda.fma, warp primitives and the builtins."""
        chain = attribute_chain(node.func) or []
        if chain in (["cuda", "grid"], ["cuda", "gridsize"]):
            n = cast(int, cast(ast.Constant, node.args[0]).value)  # 1, 2 or 3 (pysim.play.policy.calls)
            axes = [grid_axis(chain[1], axis) for axis in range(n)]
            return axes[0] if n == 1 else ast.Tuple(elts=axes, ctx=ast.Load())
        if is_collective(node):
            return self.collective(node)
        if chain == ["cuda", "const", "array_like"]:  # the module's array itself, as in Numba (pysim.play.constants)
            return nodes.load(cast(ast.Name, node.args[0]).id)
        if chain[:1] == ["math"] or chain == ["cuda", "fma"]:
            rounded = self.types.of(node) == F32
            args = [self.expr(arg) for arg in node.args]
            if chain[1] == "fma":
                return nodes.call("_pl_fma", *args, nodes.constant(int(rounded)))
            computed = nodes.call(f"_pl_m_{chain[1]}", *args)
            return nodes.call("_pl_f32", computed) if rounded else computed
        name = cast(ast.Name, node.func).id
        if name == "len":  # Numba's len() of an array is its first extent
            shape = ast.Attribute(value=nodes.load(cast(ast.Name, node.args[0]).id), attr="shape", ctx=ast.Load())
            return ast.Subscript(value=shape, slice=nodes.constant(0), ctx=ast.Load())
        runtime_name = {"float32": "_pl_f32", "int32": "_pl_int32", "int64": "_pl_int64", "float64": "_pl_float64"}.get(
            name, name
        )
        return nodes.call(runtime_name, *[self.expr(arg) for arg in node.args])
