"""Rewrite a checked kernel (an AST transform) into a Python generator that one simulated thread runs.

The body is checked against the subset as it is rewritten (refusals name the line):

- `cuda.syncthreads()` becomes `yield`, so the scheduler can run every thread
  of a block up to the barrier before any thread passes it;
- every array subscript becomes a call into the runtime (`pysim.play.runtime`)
  that checks the index and records the access: a *site* number names the
  subscript (and whether it loads or stores), so a warp instruction can later
  be identified as (site, per-thread occurrence);
- every statement first records a *statement event* (its number), which gives
  the per-thread line stepping and the step budget; loop bodies begin with a
  budget check, so a runaway loop stops;
- `cuda.threadIdx.x` etc. become plain variables set per thread, and
  `cuda.shared.array` / `cuda.local.array` become runtime allocations whose
  constant shapes are known before the run (so shared-memory size is checked
  up front, as a CUDA compiler would).
"""

from __future__ import annotations

import ast
import re

from .program import Allocation, ProgramError, Site, Statement
from .subset import (
    BINARY_OPS,
    CALLABLE_BUILTINS,
    COMPARE_OPS,
    SPECIALS,
    THREAD_ARGS,
    UNARY_OPS,
    ConstantEvaluator,
    attribute_chain,
    check_name,
    describe,
    fail,
    is_docstring,
)


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _num(value: int) -> ast.Constant:
    return ast.Constant(value=value)


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _event(number: int, node: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Expr(_call("_pl_e", _num(number))), node)


def _same(a: ast.AST, b: ast.AST) -> bool:
    """The same expression, whether read or written (`acc` in `acc = acc + x * y`)."""
    strip = re.compile(r",? ?ctx=\w+\(\)")
    return strip.sub("", ast.dump(a)) == strip.sub("", ast.dump(b))


def _is_product(node: ast.expr) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)


def _fma_product(node: ast.stmt) -> ast.BinOp | None:
    """The product of a multiply-add statement (`acc += x * y`, `acc = acc + x * y`, `acc = x * y + acc`)."""
    if isinstance(node, ast.AugAssign):
        return node.value if isinstance(node.op, ast.Add) and _is_product(node.value) else None  # type: ignore[return-value]
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        value = node.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            for acc, product in ((value.left, value.right), (value.right, value.left)):
                if _same(acc, node.targets[0]) and _is_product(product):
                    return product  # type: ignore[return-value]
    return None


class KernelRewriter:
    """Check the kernel body against the subset and rewrite it into a per-thread generator."""

    def __init__(self, evaluator: ConstantEvaluator, uses_float32: bool) -> None:
        self.evaluator = evaluator
        self.uses_float32 = uses_float32
        self.sites: list[Site] = []
        self.statements: list[Statement] = []
        self.allocations: list[Allocation] = []
        self.barriers: set[int] = set()
        self._fma_factors: set[int] = set()  # id() of factor nodes of multiply-adds
        self._loop_depth = 0

    def rewrite(self, function: ast.FunctionDef) -> ast.FunctionDef:
        body = self.block(function.body, docstring_allowed=True)
        # A generator even without a barrier: `return` then an unreachable `yield`.
        body += [ast.Return(value=None), ast.Expr(ast.Yield(value=_num(-1)))]
        args = [ast.arg(arg=arg.arg) for arg in function.args.args] + [ast.arg(arg=name) for name in THREAD_ARGS]
        generator = ast.FunctionDef(
            name="kernel",
            args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=body,
            decorator_list=[],
            returns=None,
            # Python 3.12 added the field (Pyodide runs 3.12) and compile() wants it there; mypy checks
            # against 3.11 (pyproject's python_version), whose FunctionDef has no such argument.
            type_params=[],  # type: ignore[call-arg]
        )
        return ast.copy_location(generator, function)

    # statements
    def block(self, statements: list[ast.stmt], docstring_allowed: bool = False) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            if docstring_allowed and index == 0 and is_docstring(statement):
                continue
            out.extend(self.statement(statement))
        return out or [ast.Pass()]

    def _new_statement(self, node: ast.stmt, kind: str, fma: bool = False) -> int:
        number = len(self.statements)
        self.statements.append(Statement(number, node.lineno, node.end_lineno or node.lineno, kind, fma))
        return number

    def _tick(self, node: ast.AST) -> ast.stmt:
        return ast.copy_location(ast.Expr(_call("_pl_tick")), node)

    def statement(self, node: ast.stmt) -> list[ast.stmt]:
        if isinstance(node, ast.Expr):
            if attribute_chain(node.value.func if isinstance(node.value, ast.Call) else node.value) == [
                "cuda",
                "syncthreads",
            ]:
                call = node.value
                if call.args or call.keywords:  # type: ignore[attr-defined]
                    raise fail(node, "cuda.syncthreads() takes no arguments")
                number = self._new_statement(node, "barrier")
                self.barriers.add(number)
                return [_event(number, node), ast.copy_location(ast.Expr(ast.Yield(value=_num(number))), node)]
            if is_docstring(node):
                raise fail(node, "a string here does nothing; use a # comment")
            raise fail(node, "an expression on its own does nothing here (only cuda.syncthreads() may stand alone)")
        if isinstance(node, ast.Assign):
            return self.assign(node)
        if isinstance(node, ast.AugAssign):
            return self.augassign(node)
        if isinstance(node, ast.If):
            number = self._new_statement(node, "if")
            test = self.expr(node.test)
            body = self.block(node.body)
            orelse = self.block(node.orelse) if node.orelse else []
            return [_event(number, node), ast.copy_location(ast.If(test=test, body=body, orelse=orelse), node)]
        if isinstance(node, ast.For):
            return self.for_loop(node)
        if isinstance(node, ast.While):
            # while test: body  ->  while True: tick; event; if not test: break; body
            # so the test's loads belong to the while line, evaluated once per iteration.
            if node.orelse:
                raise fail(node, "while ... else is not part of the kernel subset")
            number = self._new_statement(node, "while")
            test = self.expr(node.test)
            self._loop_depth += 1
            leave = ast.copy_location(
                ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[ast.Break()], orelse=[]), node
            )
            body = [self._tick(node), _event(number, node), leave, *self.block(node.body)]
            self._loop_depth -= 1
            return [ast.copy_location(ast.While(test=ast.Constant(value=True), body=body, orelse=[]), node)]
        if isinstance(node, (ast.Break, ast.Continue)):
            if not self._loop_depth:
                raise fail(node, f"{type(node).__name__.lower()} outside a loop")
            number = self._new_statement(node, type(node).__name__.lower())
            return [_event(number, node), node]
        if isinstance(node, ast.Pass):
            return [node]
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                raise fail(node, "a kernel returns nothing: write results into C")
            number = self._new_statement(node, "return")
            return [_event(number, node), ast.copy_location(ast.Return(value=None), node)]
        raise fail(node, f"{describe(node)} is not part of the kernel subset (SPEC §5)")

    def for_loop(self, node: ast.For) -> list[ast.stmt]:
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
        number = self._new_statement(node, "for")
        args = [self.expr(arg) for arg in iterator.args]
        self._loop_depth += 1
        body = [self._tick(node), *self.block(node.body)]
        self._loop_depth -= 1
        loop = ast.For(
            target=ast.Name(id=node.target.id, ctx=ast.Store()),
            iter=ast.copy_location(_call("range", *args), iterator),
            body=body,
            orelse=[],
        )
        return [_event(number, node), ast.copy_location(loop, node)]

    def assign(self, node: ast.Assign) -> list[ast.stmt]:
        if len(node.targets) != 1:
            raise fail(node, "assign one target at a time (`a = b = 0` is not in the subset)")
        target, value = node.targets[0], node.value
        allocation = self.allocation(value, target)
        if allocation is not None:
            number = self._new_statement(node, "allocate")
            call = _call("_pl_shared" if allocation.space == "shared" else "_pl_local", _num(allocation.number))
            assign = ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())], value=call)  # type: ignore[attr-defined]
            return [_event(number, node), ast.copy_location(assign, node)]
        product = _fma_product(node)
        if product is not None:
            self._mark_factors([product.left, product.right])
        number = self._new_statement(node, "assign", product is not None)
        if isinstance(target, ast.Subscript):
            array, indices = self.subscript_parts(target)
            site = self.new_site(target, "store", array)
            call = _call(
                f"_pl_st{len(indices)}",
                _name("_pl_e"),
                _name(array),
                _num(site),
                *[self.expr(i) for i in indices],
                self.expr(value),
            )
            return [_event(number, node), ast.copy_location(ast.Expr(call), node)]
        new_target = self.store_target(target)
        return [_event(number, node), ast.copy_location(ast.Assign(targets=[new_target], value=self.expr(value)), node)]

    def store_target(self, target: ast.expr) -> ast.expr:
        if isinstance(target, ast.Name):
            self.check_assignable(target)
            return ast.Name(id=target.id, ctx=ast.Store())
        if isinstance(target, ast.Tuple) and all(isinstance(item, ast.Name) for item in target.elts):
            for item in target.elts:
                self.check_assignable(item)  # type: ignore[arg-type]
            return ast.Tuple(elts=[ast.Name(id=item.id, ctx=ast.Store()) for item in target.elts], ctx=ast.Store())  # type: ignore[attr-defined]
        raise fail(target, "assign to a variable, a tuple of variables or an array element")

    def check_assignable(self, target: ast.Name) -> None:
        check_name(target, target.id)
        if target.id in ("cuda", "float32", *CALLABLE_BUILTINS) or target.id in self.evaluator.constants:
            raise fail(target, f"{target.id!r} cannot be assigned in the kernel")

    def augassign(self, node: ast.AugAssign) -> list[ast.stmt]:
        if not isinstance(node.op, BINARY_OPS) or isinstance(node.op, (ast.Pow, ast.LShift)):
            raise fail(node, "this augmented operator is not part of the kernel subset (write x = x ** y)")
        product = _fma_product(node)
        if product is not None:
            self._mark_factors([product.left, product.right])
        number = self._new_statement(node, "augassign", product is not None)
        if isinstance(node.target, ast.Name):
            self.check_assignable(node.target)
            new = ast.AugAssign(
                target=ast.Name(id=node.target.id, ctx=ast.Store()), op=node.op, value=self.expr(node.value)
            )
            return [_event(number, node), ast.copy_location(new, node)]
        if not isinstance(node.target, ast.Subscript):
            raise fail(node, "`+=` needs a variable or an array element on the left")
        # X[i, j] += v  ->  _pl_k0 = i; _pl_k1 = j; st(X, k0, k1, ld(X, k0, k1) + v): indices evaluated once.
        array, indices = self.subscript_parts(node.target)
        temps = [f"_pl_k{index}" for index in range(len(indices))]
        out: list[ast.stmt] = [_event(number, node)]
        for temp, index in zip(temps, indices):
            out.append(
                ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=self.expr(index)), node
                )
            )
        load_site = self.new_site(node.target, "load", array)
        store_site = self.new_site(node.target, "store", array)
        load = _call(f"_pl_ld{len(indices)}", _name("_pl_e"), _name(array), _num(load_site), *map(_name, temps))
        value = ast.BinOp(left=load, op=node.op, right=self.expr(node.value))
        call = _call(f"_pl_st{len(indices)}", _name("_pl_e"), _name(array), _num(store_site), *map(_name, temps), value)
        out.append(ast.copy_location(ast.Expr(call), node))
        return out

    def _mark_factors(self, factors: list[ast.expr]) -> None:
        for factor in factors:
            self._fma_factors.add(id(factor))

    # allocations
    def allocation(self, value: ast.expr, target: ast.expr) -> Allocation | None:
        if not isinstance(value, ast.Call):
            return None
        chain = attribute_chain(value.func)
        if chain not in (["cuda", "shared", "array"], ["cuda", "local", "array"]):
            return None
        if not isinstance(target, ast.Name):
            raise fail(value, f"give the {chain[1]} array a name: `tile = cuda.{chain[1]}.array(...)`")
        self.check_assignable(target)
        arguments = dict(zip(("shape", "dtype"), value.args))
        for keyword in value.keywords:
            if keyword.arg not in ("shape", "dtype") or keyword.arg in arguments:
                raise fail(value, f"cuda.{chain[1]}.array takes (shape, dtype)")
            arguments[keyword.arg] = keyword.value
        if len(value.args) > 2 or set(arguments) != {"shape", "dtype"}:
            raise fail(
                value, f"cuda.{chain[1]}.array takes (shape, dtype), e.g. cuda.{chain[1]}.array((T, T), float32)"
            )
        if not (isinstance(arguments["dtype"], ast.Name) and arguments["dtype"].id == "float32"):
            raise fail(value, "the playground's arrays hold float32: pass float32 as the dtype")
        if not self.uses_float32:
            raise fail(value, "import float32: `from numba import cuda, float32`")
        try:
            shape = self.evaluator.value(arguments["shape"])
        except ProgramError as error:
            raise ProgramError(
                value.lineno, f"the shape must be a constant (numbers and module-level constants): {error.message}"
            ) from None
        shape = shape if isinstance(shape, tuple) else (shape,)
        if not 1 <= len(shape) <= 2 or any(isinstance(extent, bool) or not isinstance(extent, int) for extent in shape):
            raise fail(value, "the shape must be one or two whole numbers, e.g. (T, T)")
        if any(extent < 1 for extent in shape):
            raise fail(value, f"every extent of the shape must be at least 1 (got {shape})")
        if any(extent > 1 << 20 for extent in shape):
            raise fail(value, f"the shape {shape} is too large")
        space = "shared" if chain[1] == "shared" else "register"
        allocation = Allocation(len(self.allocations), value.lineno, target.id, space, tuple(shape))
        self.allocations.append(allocation)
        return allocation

    # expressions
    def subscript_parts(self, node: ast.Subscript) -> tuple[str, list[ast.expr]]:
        """`X[i, j]`, `X[i][j]` or `X[i]` -> ("X", [i, j]) / ("X", [i])."""
        value, index = node.value, node.slice
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            if isinstance(value.slice, ast.Tuple) or isinstance(index, ast.Tuple):
                raise fail(node, "index an array as X[row, col] (or X[row][col])")
            indices = [value.slice, index]
            value = value.value
        elif isinstance(value, ast.Name):
            indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        else:
            raise fail(node, "only named arrays can be indexed (X[row, col])")
        if not 1 <= len(indices) <= 2:
            raise fail(node, "arrays have one or two dimensions: X[i] or X[row, col]")
        for item in indices:
            if isinstance(item, (ast.Slice, ast.Starred)):
                raise fail(node, "slices are not part of the kernel subset: index one element at a time")
        check_name(node, value.id)
        if value.id in ("cuda", "float32"):
            raise fail(node, f"{value.id!r} is not an array")
        return value.id, indices

    def new_site(self, node: ast.expr, op: str, array: str) -> int:
        number = len(self.sites)
        fma_operand = id(node) in self._fma_factors
        self.sites.append(Site(number, node.lineno, node.col_offset, op, array, fma_operand))
        return number

    def expr(self, node: ast.expr) -> ast.expr:
        new = self._expr(node)
        return ast.copy_location(new, node)

    def _expr(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Constant):
            if type(node.value) not in (int, float, bool):
                raise fail(node, "only numbers (and True/False) are allowed in a kernel")
            return node
        if isinstance(node, ast.Name):
            check_name(node, node.id)
            if node.id == "cuda":
                raise fail(node, "use cuda.threadIdx.x, cuda.blockIdx.y, cuda.grid(2), ... (not `cuda` alone)")
            if node.id in CALLABLE_BUILTINS:
                raise fail(node, f"{node.id} can only be called")
            return ast.Name(id=node.id, ctx=ast.Load())
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, BINARY_OPS):
                raise fail(node, "this operator is not part of the kernel subset")
            if isinstance(node.op, (ast.Pow, ast.LShift)):  # guarded: 10 ** 10 ** 9 would freeze the page
                name = "_pl_pow" if isinstance(node.op, ast.Pow) else "_pl_lshift"
                return _call(name, self.expr(node.left), self.expr(node.right))
            return ast.BinOp(left=self.expr(node.left), op=node.op, right=self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, UNARY_OPS):
                raise fail(node, "this operator is not part of the kernel subset")
            return ast.UnaryOp(op=node.op, operand=self.expr(node.operand))
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(op=node.op, values=[self.expr(value) for value in node.values])
        if isinstance(node, ast.Compare):
            if not all(isinstance(op, COMPARE_OPS) for op in node.ops):
                raise fail(node, "compare with <, <=, >, >=, == or != (not `in` or `is`)")
            return ast.Compare(
                left=self.expr(node.left), ops=node.ops, comparators=[self.expr(c) for c in node.comparators]
            )
        if isinstance(node, ast.IfExp):
            return ast.IfExp(test=self.expr(node.test), body=self.expr(node.body), orelse=self.expr(node.orelse))
        if isinstance(node, ast.Tuple):
            return ast.Tuple(elts=[self.expr(item) for item in node.elts], ctx=ast.Load())
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                if isinstance(node.slice, (ast.Tuple, ast.Slice)):
                    raise fail(node, "index .shape with one number: A.shape[0]")
                return ast.Subscript(value=self.attribute(node.value), slice=self.expr(node.slice), ctx=ast.Load())
            array, indices = self.subscript_parts(node)
            site = self.new_site(node, "load", array)
            return _call(
                f"_pl_ld{len(indices)}", _name("_pl_e"), _name(array), _num(site), *[self.expr(i) for i in indices]
            )
        if isinstance(node, ast.Call):
            return self.call(node)
        raise fail(node, f"{describe(node)} is not part of the kernel subset (SPEC §5)")

    def attribute(self, node: ast.Attribute) -> ast.expr:
        chain = attribute_chain(node)
        if chain and len(chain) == 3 and chain[0] == "cuda" and chain[1] in SPECIALS:
            if chain[2] not in ("x", "y"):
                raise fail(node, f"cuda.{chain[1]}.{chain[2]}: the playground's blocks and grids are 2-D (.x and .y)")
            return _name(SPECIALS[chain[1]][chain[2] == "y"])
        if chain and len(chain) == 2 and chain[1] == "shape" and chain[0] != "cuda":
            check_name(node, chain[0])
            return ast.Attribute(value=_name(chain[0]), attr="shape", ctx=ast.Load())
        shown = ".".join(chain) if chain else f"….{node.attr}"
        raise fail(node, f"{shown} is not part of the kernel subset (SPEC §5)")

    def call(self, node: ast.Call) -> ast.expr:
        if node.keywords:
            raise fail(node, "keyword arguments are not part of the kernel subset here")
        chain = attribute_chain(node.func)
        if chain == ["cuda", "grid"]:
            if len(node.args) != 1 or not (isinstance(node.args[0], ast.Constant) and node.args[0].value in (1, 2)):
                raise fail(node, "cuda.grid takes the number of dimensions: cuda.grid(1) or cuda.grid(2)")
            x = ast.BinOp(
                left=ast.BinOp(left=_name("_pl_bx"), op=ast.Mult(), right=_name("_pl_bdx")),
                op=ast.Add(),
                right=_name("_pl_tx"),
            )
            if node.args[0].value == 1:
                return x
            y = ast.BinOp(
                left=ast.BinOp(left=_name("_pl_by"), op=ast.Mult(), right=_name("_pl_bdy")),
                op=ast.Add(),
                right=_name("_pl_ty"),
            )
            return ast.Tuple(elts=[x, y], ctx=ast.Load())
        if chain in (["cuda", "shared", "array"], ["cuda", "local", "array"]):
            raise fail(
                node, f"allocate {chain[1]} arrays in an assignment of their own: tile = cuda.{chain[1]}.array(...)"
            )
        if chain == ["cuda", "syncthreads"]:
            raise fail(node, "cuda.syncthreads() must stand on a line of its own")
        if isinstance(node.func, ast.Name) and node.func.id in CALLABLE_BUILTINS:
            name = node.func.id
            if name == "range":
                raise fail(node, "range(...) may only drive a for loop")
            if name == "float32" and not self.uses_float32:
                raise fail(node, "import float32: `from numba import cuda, float32`")
            if name in ("min", "max") and len(node.args) < 2:
                raise fail(node, f"{name} takes two or more numbers")
            if name in ("abs", "int", "float", "float32") and len(node.args) != 1:
                raise fail(node, f"{name} takes one number")
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    raise fail(node, "*arguments are not part of the kernel subset")
            runtime_name = {"float32": "_pl_f32"}.get(name, name)
            return _call(runtime_name, *[self.expr(arg) for arg in node.args])
        shown = ".".join(chain) if chain else "this"
        raise fail(
            node,
            f"calling {shown} is not part of the kernel subset (range, min, max, abs, int, float, float32, cuda.*)",
        )
