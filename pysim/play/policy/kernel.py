"""The kernel's body: the statements and expressions a teaching kernel needs, checked in the rewrite's order."""

from __future__ import annotations

import ast
import math

from ...core.constants import WORD_BYTES
from ..constants import ARRAY_LIKE, constant_names, read_only
from ..evaluate import ConstantEvaluator
from ..guards import ATOMIC_OPERATIONS
from ..intrinsics import DTYPE_BYTES, DTYPES, counting_barrier
from ..limits import LOCAL_LIMIT_BYTES
from ..program import fail
from ..subset import (
    BINARY_OPS,
    CALLABLE_BUILTINS,
    COMPARE_OPS,
    SPECIALS,
    UNARY_OPS,
    attribute_chain,
    describe,
    is_atomic,
    is_docstring,
)
from . import ALLOCATIONS, MAX_EXTENT, allocation_arguments, allocation_shape, check_name, refuse_call
from .calls import (
    ACCEPTED_CALLS,
    WARP_NAMES,
    check_call,
    check_syncwarp,
    check_tuple_item,
    grid_dimensions,
    tuple_names,
)


class KernelPolicy(ast.NodeVisitor):
    """The kernel's body: statements and expressions in the order the rewrite meets them, so a file with
    several mistakes is refused at the first."""

    def __init__(self, evaluator: ConstantEvaluator, uses_float32: bool, modules: frozenset[str] = frozenset()) -> None:
        self.evaluator = evaluator
        self.uses_float32 = uses_float32
        self.modules = modules  # modules the file imports (`math`)
        self.tuples: dict[str, int] = {}  # names holding cuda.grid(n)'s tuple, with n (pysim.play.policy.calls)
        self.constant: dict[str, str] = {}  # names reading constant memory, with their array (pysim.play.constants)
        self.dynamic: set[str] = set()  # dtypes of the dynamic shared arrays (shape 0)
        self.loops = 0  # loops around the statement being checked
        self.local_words = 0  # words of the local arrays allocated so far (LOCAL_LIMIT_BYTES)

    def check(self, function: ast.FunctionDef) -> None:
        self.tuples = tuple_names(function)
        self.constant = constant_names(function, self.evaluator.arrays)
        self.block(function.body, docstring_allowed=True)

    def block(self, statements: list[ast.stmt], docstring_allowed: bool = False) -> None:
        for index, statement in enumerate(statements):
            if not (docstring_allowed and index == 0 and is_docstring(statement)):
                self.visit(statement)

    def generic_visit(self, node: ast.AST) -> None:
        raise fail(node, f"{describe(node)} is not part of the kernel subset (SPEC §5)")

    # statements
    def visit_Expr(self, node: ast.Expr) -> None:
        value = node.value
        if attribute_chain(value.func if isinstance(value, ast.Call) else value) == ["cuda", "syncthreads"]:
            if not isinstance(value, ast.Call):
                raise fail(node, "call the barrier: cuda.syncthreads()")
            if value.args or value.keywords:
                raise fail(node, "cuda.syncthreads() takes no arguments")
            return
        if isinstance(value, ast.Call) and attribute_chain(value.func) == ["cuda", "syncwarp"]:
            check_syncwarp(value, self.visit)
            return
        if is_docstring(node):
            raise fail(node, "a string here does nothing; use a # comment")
        if is_atomic(value):
            self.atomic(value)  # type: ignore[arg-type]  # a Call
            return
        if isinstance(value, ast.Call):
            refuse_call(value)
        raise fail(
            node,
            "an expression on its own does nothing here (only cuda.syncthreads(), cuda.syncwarp() and "
            "cuda.atomic.add/max/min may stand alone)",
        )

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise fail(node, "assign one target at a time (`a = b = 0` is not in the subset)")
        target, value = node.targets[0], node.value
        if self.allocation(value, target):
            return
        atomic = is_atomic(value)
        if atomic and not isinstance(target, ast.Name):
            raise fail(node, "keep the old value of an atomic in a variable: old = cuda.atomic.add(...)")
        if isinstance(target, ast.Subscript):
            for index in self.subscript(target, store=True):
                self.visit(index)
            self.visit(value)
            return
        if isinstance(value, ast.Call) and attribute_chain(value.func) == ARRAY_LIKE:
            if not isinstance(target, ast.Name):
                raise fail(node, "name the constant array: c = cuda.const.array_like(W)")
            self.assignable(target)  # its argument is checked by constant_names
            return
        if counting_barrier(value) is not None:
            if not isinstance(target, ast.Name) or len(value.args) != 1 or value.keywords:  # type: ignore[attr-defined]
                raise fail(node, "assign the barrier's result to a variable: n = cuda.syncthreads_count(predicate)")
            self.assignable(target)
            self.visit(value.args[0])  # type: ignore[attr-defined]
            return
        self.store_target(target)
        if isinstance(target, ast.Name) and (grid_dimensions(value) or 1) > 1:
            return  # pos = cuda.grid(2), read as pos[0] and pos[1]
        if atomic:
            self.atomic(value)  # type: ignore[arg-type]  # a Call
        elif isinstance(target, ast.Tuple):
            self.unpacked(target, value)
        else:
            self.visit(value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.op, BINARY_OPS) or isinstance(node.op, (ast.Pow, ast.LShift)):
            raise fail(node, "this augmented operator is not part of the kernel subset (write x = x ** y)")
        if isinstance(node.target, ast.Name):
            self.assignable(node.target)
        elif isinstance(node.target, ast.Subscript):
            for index in self.subscript(node.target, store=True):
                self.visit(index)
        else:
            raise fail(node, "`+=` needs a variable or an array element on the left")
        self.visit(node.value)

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        self.block(node.body)
        self.block(node.orelse)

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise fail(node, "for ... else is not part of the kernel subset")
        if not isinstance(node.target, ast.Name):
            raise fail(node, "a for loop takes one variable: `for k in range(...)`")
        check_name(node, node.target.id)
        iterator = node.iter
        if not (
            isinstance(iterator, ast.Call)
            and isinstance(iterator.func, ast.Name)
            and iterator.func.id == "range"
            and 1 <= len(iterator.args) <= 3
            and not iterator.keywords
        ):
            raise fail(node, "a for loop must run over range(...) (1 to 3 arguments)")
        for arg in iterator.args:
            self.visit(arg)
        self.loops += 1
        self.block(node.body)
        self.loops -= 1

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            raise fail(node, "while ... else is not part of the kernel subset")
        self.loops += 1  # the test is evaluated in every iteration, inside the loop
        self.visit(node.test)
        self.block(node.body)
        self.loops -= 1

    def visit_Break(self, node: ast.Break | ast.Continue) -> None:
        if not self.loops:
            raise fail(node, f"{type(node).__name__.lower()} outside a loop")

    def visit_Continue(self, node: ast.Continue) -> None:
        self.visit_Break(node)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            raise fail(node, "a kernel returns nothing: write results into C")

    def allocation(self, value: ast.expr, target: ast.expr) -> bool:
        """Check `target = cuda.shared.array(...)` or `cuda.local.array(...)`; False when `value` is neither."""
        if not isinstance(value, ast.Call):
            return False
        chain = attribute_chain(value.func)
        if chain not in ALLOCATIONS:
            return False
        kind = chain[1]
        if not isinstance(target, ast.Name):
            raise fail(value, f"give the {kind} array a name: `tile = cuda.{kind}.array(...)`")
        self.assignable(target)
        arguments = allocation_arguments(value)
        if len(value.args) > 2 or set(arguments) != {"shape", "dtype"}:
            raise fail(value, f"cuda.{kind}.array takes (shape, dtype), e.g. cuda.{kind}.array((T, T), float32)")
        dtype = arguments["dtype"]
        if not (isinstance(dtype, ast.Name) and dtype.id in DTYPES):
            raise fail(value, "pass float32, float64, int32 or int64 as the dtype")
        if dtype.id not in self.modules:
            raise fail(value, f"import {dtype.id}: `from numba import cuda, {dtype.id}`")
        shape = allocation_shape(self.evaluator, value)
        if not 1 <= len(shape) <= 3 or any(isinstance(extent, bool) or not isinstance(extent, int) for extent in shape):
            raise fail(value, "the shape must be one, two or three whole numbers, e.g. (T, T)")
        if kind == "shared" and shape == (0,):  # dynamic: sized by launch() (pysim.play.launch)
            self.dynamic.add(dtype.id)
            if len(self.dynamic) > 1:
                raise fail(value, "dynamic shared arrays of different dtypes alias the same bytes: use one dtype")
            return True
        if any(extent < 1 for extent in shape):
            raise fail(value, f"every extent of the shape must be at least 1 (got {shape})")
        if any(extent > MAX_EXTENT for extent in shape):
            raise fail(value, f"the shape {shape} is too large")
        if kind == "local":
            self.local_words += math.prod(shape) * DTYPE_BYTES[dtype.id] // WORD_BYTES  # 32-bit words
            if WORD_BYTES * self.local_words > LOCAL_LIMIT_BYTES:
                raise fail(
                    value,
                    f"the kernel's local arrays hold {WORD_BYTES * self.local_words:,} bytes per thread; "
                    f"CUDA allows at most {LOCAL_LIMIT_BYTES:,} (512 KB)",
                )
        return True

    def store_target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.assignable(target)
        elif isinstance(target, ast.Tuple) and all(isinstance(item, ast.Name) for item in target.elts):
            for item in target.elts:
                self.assignable(item)  # type: ignore[arg-type]
        else:
            raise fail(target, "assign to a variable, a tuple of variables or an array element")

    def assignable(self, target: ast.Name) -> None:
        check_name(target, target.id)
        if target.id in ("cuda", "float32", "math", *CALLABLE_BUILTINS) or target.id in self.evaluator.constants:
            raise fail(target, f"{target.id!r} cannot be assigned in the kernel")

    def unpacked(self, target: ast.Tuple, value: ast.expr) -> None:
        """The right side of `a, b = ...`: a tuple of as many values, `X.shape` or `cuda.grid(n)`. Tuples live
        only here (and in shapes), so none can grow: `t = t + t` has no tuple to start from."""
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(target.elts):
                raise fail(value, f"{len(target.elts)} names but {len(value.elts)} values")
            for item in value.elts:
                self.visit(item)
        elif isinstance(value, ast.Attribute) and value.attr == "shape":
            self.shape(value)
        elif (n := grid_dimensions(value) or 1) > 1:
            if len(target.elts) != n:
                raise fail(value, f"{len(target.elts)} names but {n} values")
        else:
            raise fail(value, "unpack a tuple of values, X.shape or cuda.grid(2): `M, K = A.shape`")

    # expressions
    def visit_Constant(self, node: ast.Constant) -> None:
        if type(node.value) not in (int, float, bool):
            raise fail(node, "only numbers (and True/False) are allowed in a kernel")

    def visit_Name(self, node: ast.Name) -> None:
        check_name(node, node.id)
        if node.id == "cuda":
            raise fail(node, "use cuda.threadIdx.x, cuda.blockIdx.y, cuda.grid(2), ... (not `cuda` alone)")
        if node.id in CALLABLE_BUILTINS:
            raise fail(node, f"{node.id} can only be called")
        if node.id in self.tuples:
            raise fail(
                node, f"{node.id} is cuda.grid({self.tuples[node.id]})'s tuple: read {node.id}[0], {node.id}[1], ..."
            )
        if node.id == "math":
            raise fail(node, "call a function of math: math.sqrt(x), ...")
        if node.id in self.constant:
            raise fail(
                node, f"{node.id} is a constant array: read its elements ({node.id}[i]), its shape or len({node.id})"
            )

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if not isinstance(node.op, BINARY_OPS):
            raise fail(node, "this operator is not part of the kernel subset")
        self.visit(node.left)
        self.visit(node.right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if not isinstance(node.op, UNARY_OPS):
            raise fail(node, "this operator is not part of the kernel subset")
        self.visit(node.operand)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        for value in node.values:
            self.visit(value)

    def visit_Compare(self, node: ast.Compare) -> None:
        if not all(isinstance(op, COMPARE_OPS) for op in node.ops):
            raise fail(node, "compare with <, <=, >, >=, == or != (not `in` or `is`)")
        for operand in (node.left, *node.comparators):
            self.visit(operand)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        for part in (node.test, node.body, node.orelse):
            self.visit(part)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        raise fail(node, "a tuple is only for unpacking (`a, b = x, y`) and for shapes")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = attribute_chain(node)
        if chain and len(chain) == 3 and chain[0] == "cuda" and chain[1] in SPECIALS:
            if chain[2] not in ("x", "y", "z"):
                raise fail(node, f"cuda.{chain[1]} has .x, .y and .z, not .{chain[2]}")
            return
        if chain and len(chain) == 2 and chain[0] == "cuda" and chain[1] in WARP_NAMES:
            return
        if node.attr == "shape":
            self.shape(node)  # refuses what is not an array's shape
            raise fail(
                node, f"{'.'.join(chain or [])} is a tuple: unpack it (`M, K = A.shape`) or index it (A.shape[0])"
            )
        shown = ".".join(chain) if chain else f"….{node.attr}"
        raise fail(node, f"{shown} is not part of the kernel subset (SPEC §5)")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.tuples:
            check_tuple_item(node, self.tuples[node.value.id])
            return
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            if isinstance(node.slice, (ast.Tuple, ast.Slice)):
                raise fail(node, "index .shape with one number: A.shape[0]")
            self.shape(node.value)
            self.visit(node.slice)
            return
        for index in self.subscript(node):
            self.visit(index)

    def visit_Call(self, node: ast.Call) -> None:
        self.call(node)

    def subscript(self, node: ast.Subscript, store: bool = False) -> list[ast.expr]:
        """The indices of `X[i, j]`, `X[i][j]`, `X[i]` or `X[i, j, k]` of a named array; a `store` into
        constant memory is refused."""
        value, index = node.value, node.slice
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            if isinstance(value.slice, ast.Tuple) or isinstance(index, ast.Tuple):
                raise fail(node, "index an array as X[row, col] (or X[row][col])")
            indices = [value.slice, index]
            value = value.value
        elif isinstance(value, ast.Name):
            indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Subscript):
            raise fail(node, "index a 3-D array as X[i, j, k]")
        else:
            raise fail(node, "only named arrays can be indexed (X[row, col])")
        if not 1 <= len(indices) <= 3:
            raise fail(node, "arrays have one, two or three dimensions: X[i], X[row, col] or X[i, j, k]")
        for item in indices:
            if isinstance(item, (ast.Slice, ast.Starred)):
                raise fail(node, "slices are not part of the kernel subset: index one element at a time")
        check_name(node, value.id)
        if value.id in ("cuda", "float32"):
            raise fail(node, f"{value.id!r} is not an array")
        if store and value.id in self.constant:
            raise read_only(node, value.id)
        return indices

    def shape(self, node: ast.Attribute) -> None:
        """`X.shape` of a named array."""
        chain = attribute_chain(node)
        if not (chain and len(chain) == 2 and chain[1] == "shape" and chain[0] != "cuda"):
            raise fail(node, f"{'.'.join(chain) if chain else '….shape'} is not part of the kernel subset (SPEC §5)")
        check_name(node, chain[0])

    def atomic(self, node: ast.Call) -> None:
        """`cuda.atomic.add(X, (i, j), v)` (or max, min, exch; cas takes (X, index, old, v); a 1-D X takes one
        index)."""
        how = (attribute_chain(node.func) or [])[-1]
        if how in ("inc", "dec"):
            raise fail(node, f"cuda.atomic.{how} is not in the playground: Numba runs it on uint32/uint64 arrays only")
        if how not in ATOMIC_OPERATIONS:
            raise fail(
                node, f"cuda.atomic.{how} is not in the playground (cuda.atomic.add, max, min, exch and cas are)"
            )
        values = 2 if how == "cas" else 1
        if node.keywords or len(node.args) != 2 + values or not isinstance(node.args[0], ast.Name):
            shape = "(array, index, old, value)" if how == "cas" else "(array, index, value)"
            raise fail(node, f"cuda.atomic.{how} takes {shape}, e.g. cuda.atomic.{how}(C, (row, col), x)")
        array, index, *value = node.args
        indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        if not 1 <= len(indices) <= 3 or any(isinstance(i, (ast.Slice, ast.Starred, ast.Tuple)) for i in indices):
            raise fail(
                node, f"cuda.atomic.{how} takes one index for a 1-D array, (row, col) for a 2-D one or (i, j, k)"
            )
        check_name(node, array.id)  # type: ignore[attr-defined]
        if array.id in self.constant:  # type: ignore[attr-defined]
            raise read_only(node, array.id)  # type: ignore[attr-defined]
        for item in (*indices, *value):
            self.visit(item)

    def call(self, node: ast.Call) -> None:
        if node.keywords:
            raise fail(node, "keyword arguments are not part of the kernel subset here")
        chain = attribute_chain(node.func)
        dimensions = grid_dimensions(node)
        if dimensions is not None:
            if dimensions > 1:
                raise fail(
                    node, f"{'.'.join(chain or [])}({dimensions}) is a tuple: `col, row = ...(2)` or `pos = ...(2)`"
                )
            return
        if counting_barrier(node) is not None:
            raise fail(
                node, f"{'.'.join(chain or [])} is a barrier: assign it on a line of its own, n = ...(predicate)"
            )
        if check_call(node, self.modules, self.visit):
            return
        if chain in ALLOCATIONS:
            kind = chain[1]
            raise fail(node, f"allocate {kind} arrays in an assignment of their own: tile = cuda.{kind}.array(...)")
        if chain == ["cuda", "syncthreads"]:
            raise fail(node, "cuda.syncthreads() must stand on a line of its own")
        if chain == ARRAY_LIKE:
            raise fail(node, "name the constant array on a line of its own: c = cuda.const.array_like(W)")
        if is_atomic(node):
            raise fail(node, "an atomic stands on a line of its own, or as `old = cuda.atomic.add(...)`")
        if isinstance(node.func, ast.Name) and node.func.id == "len":
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
                raise fail(node, "len takes one array: len(A) is A.shape[0]")
            check_name(node, node.args[0].id)
            return
        refuse_call(node)
        if not (isinstance(node.func, ast.Name) and node.func.id in CALLABLE_BUILTINS):
            shown = ".".join(chain) if chain else "this"
            raise fail(
                node,
                f"{shown}() is not supported by the playground; the calls it accepts: {ACCEPTED_CALLS}",
            )
        name = node.func.id
        if name == "range":
            raise fail(node, "range(...) may only drive a for loop")
        if name == "float32" and not self.uses_float32:
            raise fail(node, "import float32: `from numba import cuda, float32`")
        if name in ("min", "max") and len(node.args) < 2:
            raise fail(node, f"{name} takes two or more numbers")
        if name in ("abs", "int", "float", "float32") and len(node.args) != 1:
            raise fail(node, f"{name} takes one number")
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            raise fail(node, "*arguments are not part of the kernel subset")
        for arg in node.args:
            self.visit(arg)
