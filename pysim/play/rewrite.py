"""Rewrite a checked kernel (an AST transform) into a Python generator that one simulated thread runs.

The body is checked against the subset as it is rewritten (refusals name the line):

- `cuda.syncthreads()` becomes `yield`, so the scheduler can run every thread
  of a block up to the barrier before any thread passes it;
- every array subscript becomes a call into the runtime (`pysim.play.runtime`)
  that checks the index and records the access: a *site* number names the
  subscript (and whether it loads or stores), so a warp instruction can later
  be identified as (site, iteration of the loops around it);
- every statement first records a *statement event* (its number), which gives
  the per-thread line stepping and the step budget; every loop iteration begins
  with a budget check and records the loop's iteration statement (a `for`'s
  "next", a `while`'s test), so a runaway loop stops and lanes group by iteration;
- arithmetic follows Numba's types (`pysim.play.numba_types`): an operation typed
  float32 is rounded to float32 (`_pl_f32`), an integer variable is checked to fit in
  64 bits (`_pl_int`), and tuples exist only to be unpacked;
- `cuda.atomic.add/max/min` become runtime calls that load and store the element
  (both sites `atomic`);
- `cuda.threadIdx.x` etc. become plain variables set per thread, and
  `cuda.shared.array` / `cuda.local.array` become runtime allocations whose
  constant shapes are known before the run (so shared-memory size is checked
  up front, as a CUDA compiler would).
"""

from __future__ import annotations

import ast
import math

from ..core.constants import WORD_BYTES
from .guards import ATOMIC_OPERATIONS
from .limits import INT_LIMIT, LOCAL_LIMIT_BYTES
from .numba_types import BOOL, FLOATS, INT, NumbaTypes
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
    refuse_call,
)


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _num(value: int) -> ast.Constant:
    return ast.Constant(value=value)


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _increment(name: str) -> ast.stmt:
    return ast.AugAssign(target=ast.Name(id=name, ctx=ast.Store()), op=ast.Add(), value=_num(1))


def _assign(name: str, value: ast.expr) -> ast.stmt:
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)


ORDINAL = "_pl_o"  # statements the thread executed in this barrier interval (program order, for races)
FLOAT32_BUFFER = "_pl_F"  # the runtime's array('f') of one element, which rounds what is stored in it
STREAM = "_pl_e"  # the thread's stream (pysim.play.runtime): the statements it executed, one number each


def _number(iteration: ast.expr) -> ast.expr:
    """The number of an iteration vector (pysim.play.runtime.Vectors)."""
    return _call("_pl_vset", iteration, _call("_pl_len", _name("_pl_vectors")))  # len(): no call of a method-wrapper


def counter(level: int) -> str:
    """The variable counting iterations of the loop at nesting `level` (1 = outermost)."""
    return f"_pl_c{level}"


def vector(level: int) -> str:
    """The variable holding the number of the iteration vector of the loops down to `level` (0: none)."""
    return f"_pl_v{level}"


def _is_atomic(node: ast.AST) -> bool:
    """`cuda.atomic.<anything>(...)`."""
    return isinstance(node, ast.Call) and (attribute_chain(node.func) or [])[:2] == ["cuda", "atomic"]


def _local_names(function: ast.FunctionDef) -> frozenset[str]:
    """Names the kernel binds only to `cuda.local.array(...)`: their elements live in registers, whatever runs."""
    local, other = set(), set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.Call) and attribute_chain(node.value.func) == ["cuda", "local", "array"]:
                local.add(node.targets[0].id)
                continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            other.add(node.id)
    return frozenset(local - other)


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
        self.types = NumbaTypes(evaluator.constants, ())  # replaced by rewrite(), which knows the parameters
        self._loops: list[int] = []  # iteration statements of the loops being rewritten (Statement.loops)
        self._numbered: list[bool] = []  # for each: whether it numbers its iteration vectors (`_numbers`)
        self._registers: frozenset[str] = frozenset()  # names that only ever hold a local array

    def rewrite(self, function: ast.FunctionDef) -> ast.FunctionDef:
        self.types = NumbaTypes(self.evaluator.constants, [arg.arg for arg in function.args.args])
        self.types.infer(function.body)
        self._registers = _local_names(function)
        start = [_assign(ORDINAL, _num(0)), _assign(vector(0), _number(ast.Tuple(elts=[], ctx=ast.Load())))]
        body = start + self.block(function.body, docstring_allowed=True)
        # A generator even without a barrier: `return` then an unreachable `yield`.
        never = ast.Tuple(elts=[_num(-1), _num(0)], ctx=ast.Load())
        body += [ast.Return(value=None), ast.Expr(ast.Yield(value=never))]
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

    def _new_statement(self, node: ast.stmt, kind: str, fma: int = 0) -> int:
        number = len(self.statements)
        line, end = node.lineno, node.end_lineno or node.lineno
        self.statements.append(Statement(number, line, end, kind, fma, tuple(self._loops)))
        return number

    def _tick(self, node: ast.AST) -> ast.stmt:
        """The step budget's check at the top of a loop's iteration: the thread's statements and the run's
        accesses (`_pl_e`, `_pl_values`) against what the thread may reach (`_pl_allow`, set by the
        scheduler). Inline, not a runtime function: a call costs twice this check in Pyodide."""
        steps = ast.BinOp(
            left=_call("_pl_len", _name(STREAM)), op=ast.Add(), right=_call("_pl_len", _name("_pl_values"))
        )
        over = ast.Compare(left=steps, ops=[ast.Gt()], comparators=[_name("_pl_allow")])
        return ast.copy_location(ast.If(test=over, body=[ast.Raise(exc=_name("_pl_budget"))], orelse=[]), node)

    def _event(self, number: int, node: ast.AST) -> list[ast.stmt]:
        """Record statement `number` in the thread's stream, and count its ordinal. `_pl_e.append(n)` on the list
        itself: CPython specialises that into an append without a call (a bound `append` in a variable is a
        call, five times the time in Pyodide)."""
        append = ast.Attribute(value=_name(STREAM), attr="append", ctx=ast.Load())
        event = ast.Call(func=append, args=[_num(number)], keywords=[])
        out = [ast.Expr(event), _increment(ORDINAL)]
        return [ast.copy_location(item, node) for item in out]

    def _enter(self, node: ast.For | ast.While) -> None:
        """Open a loop: its iteration statement is the next one."""
        self._loops.append(len(self.statements))
        self._numbered.append(self._numbers(node))

    def _leave(self) -> None:
        self._loops.pop()
        self._numbered.pop()

    def _numbers(self, node: ast.For | ast.While) -> bool:
        """Whether a loop must number its iteration vectors: when it holds a barrier, an atomic, or an access
        to an array that may be global or shared (only those are grouped into warp instructions); a loop
        over a local array only counts its iterations, for the loops inside it."""
        for inner in ast.walk(node):
            barrier = isinstance(inner, ast.Call) and attribute_chain(inner.func) == ["cuda", "syncthreads"]
            if barrier or _is_atomic(inner):
                return True
            if isinstance(inner, ast.Subscript) and not self._local_or_shape(inner.value):
                return True
        return False

    def _local_or_shape(self, value: ast.expr) -> bool:
        """A subscripted value that is a local array (its elements are registers) or an array's `.shape`."""
        if isinstance(value, ast.Name):
            return value.id in self._registers
        return isinstance(value, ast.Attribute) and value.attr == "shape"

    def _iteration(self, node: ast.AST) -> list[ast.stmt]:
        """At the top of an iteration of the innermost loop: count it, and number the iteration vector of every
        loop around (what groups lanes into warp instructions, and names a barrier instance)."""
        level = len(self._loops)
        if not self._numbered[-1]:
            return [ast.copy_location(_increment(counter(level)), node)]
        counters = ast.Tuple(elts=[_name(counter(n)) for n in range(1, level + 1)], ctx=ast.Load())
        out = [_increment(counter(level)), _assign(vector(level), _number(counters))]
        return [ast.copy_location(item, node) for item in out]

    def _site_arguments(self) -> list[ast.expr]:
        """What an access records besides its address: the ordinal and the iteration vector of its loops (0
        inside a loop that numbers none: the access is to a local array, which no warp instruction groups)."""
        numbered = not self._numbered or self._numbered[-1]
        return [_name(ORDINAL), _name(vector(len(self._loops))) if numbered else _num(0)]

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
                # The scheduler hears the barrier instance: the statement and its loops' iteration vector.
                instance = ast.Tuple(elts=[_num(number), _name(vector(len(self._loops)))], ctx=ast.Load())
                wait = [ast.Expr(ast.Yield(value=instance)), _assign(ORDINAL, _num(0))]
                return [*self._event(number, node), *(ast.copy_location(item, node) for item in wait)]
            if is_docstring(node):
                raise fail(node, "a string here does nothing; use a # comment")
            if _is_atomic(node.value):
                number = self._new_statement(node, "atomic", self._multiply_adds(node))
                return [*self._event(number, node), ast.copy_location(ast.Expr(self.atomic(node.value)), node)]  # type: ignore[arg-type]
            if isinstance(node.value, ast.Call):
                refuse_call(node.value)
            raise fail(
                node,
                "an expression on its own does nothing here (only cuda.syncthreads() and cuda.atomic.* may stand alone)",
            )
        if isinstance(node, ast.Assign):
            return self.assign(node)
        if isinstance(node, ast.AugAssign):
            return self.augassign(node)
        if isinstance(node, ast.If):
            number = self._new_statement(node, "if", self._multiply_adds(node))
            test = self.expr(node.test)
            body = self.block(node.body)
            orelse = self.block(node.orelse) if node.orelse else []
            return [*self._event(number, node), ast.copy_location(ast.If(test=test, body=body, orelse=orelse), node)]
        if isinstance(node, ast.For):
            return self.for_loop(node)
        if isinstance(node, ast.While):
            # while test: body  ->  while True: tick; event; if not test: break; body
            # so the test's loads belong to the while line, evaluated once per iteration.
            if node.orelse:
                raise fail(node, "while ... else is not part of the kernel subset")
            self._enter(node)  # the while's test is evaluated in every iteration
            number = self._new_statement(node, "while", self._multiply_adds(node))
            test = self.expr(node.test)
            leave = ast.copy_location(
                ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[ast.Break()], orelse=[]), node
            )
            body = [self._tick(node), *self._event(number, node), *self._iteration(node), leave]
            level = len(self._loops)
            body += self.block(node.body)
            self._leave()
            loop = ast.While(test=ast.Constant(value=True), body=body, orelse=[])
            return [ast.copy_location(_assign(counter(level), _num(-1)), node), ast.copy_location(loop, node)]
        if isinstance(node, (ast.Break, ast.Continue)):
            if not self._loops:
                raise fail(node, f"{type(node).__name__.lower()} outside a loop")
            number = self._new_statement(node, type(node).__name__.lower())
            return [*self._event(number, node), node]
        if isinstance(node, ast.Pass):
            return [node]
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                raise fail(node, "a kernel returns nothing: write results into C")
            number = self._new_statement(node, "return")
            return [*self._event(number, node), ast.copy_location(ast.Return(value=None), node)]
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
        # "next" marks the top of every iteration, so lanes can be grouped by iteration (lockstep) and a
        # loop whose body records nothing still grows the stream the step budget counts.
        self._enter(node)
        head = self._new_statement(node, "next")
        level = len(self._loops)
        body = [self._tick(node), *self._event(head, node), *self._iteration(node), *self.block(node.body)]
        self._leave()
        loop = ast.For(
            target=ast.Name(id=node.target.id, ctx=ast.Store()),
            iter=ast.copy_location(_call("range", *args), iterator),
            body=body,
            orelse=[],
        )
        start = ast.copy_location(_assign(counter(level), _num(-1)), node)
        return [*self._event(number, node), start, ast.copy_location(loop, node)]

    def assign(self, node: ast.Assign) -> list[ast.stmt]:
        if len(node.targets) != 1:
            raise fail(node, "assign one target at a time (`a = b = 0` is not in the subset)")
        target, value = node.targets[0], node.value
        allocation = self.allocation(value, target)
        if allocation is not None:
            number = self._new_statement(node, "allocate")
            call = _call("_pl_shared" if allocation.space == "shared" else "_pl_local", _num(allocation.number))
            assign = ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())], value=call)  # type: ignore[attr-defined]
            return [*self._event(number, node), ast.copy_location(assign, node)]
        atomic = _is_atomic(value)
        number = self._new_statement(node, "atomic" if atomic else "assign", self._multiply_adds(node))
        if atomic and not isinstance(target, ast.Name):
            raise fail(node, "keep the old value of an atomic in a variable: old = cuda.atomic.add(...)")
        if isinstance(target, ast.Subscript):
            array, indices = self.subscript_parts(target)
            site = self.new_site(target, "store", array)
            call = _call(
                f"_pl_st{len(indices)}",
                _name(array),
                _num(site),
                *[self.expr(i) for i in indices],
                self.expr(value),
                *self._site_arguments(),
            )
            return [*self._event(number, node), ast.copy_location(ast.Expr(call), node)]
        new_target = self.store_target(target)
        if atomic:
            new_value = self.atomic(value)  # type: ignore[arg-type]
        elif isinstance(target, ast.Tuple):
            new_value = self.unpacked(target, value)
        else:
            new_value = self.bounded(value, self.expr(value))
        integer = self.types.of(value) in (INT, BOOL)
        return [*self._event(number, node), *self._stored(new_target, new_value, node, integer)]

    def _stored(self, target: ast.expr, value: ast.expr, node: ast.stmt, integer: bool = False) -> list[ast.stmt]:
        """`target = value`, where a variable's last rounding or 64-bit check is done inline (in Pyodide the calls
        cost about twice the inline rounding and four times the inline check, and most statements end with one):

        - a value rounded to float32 last (`_pl_f32(e)`) goes through the runtime's one-float buffer, as
          `_pl_f32` rounds it: `_pl_F[0] = e; x = _pl_F[0]`;
        - a value typed an integer (`integer`) checked to fit in 64 bits (`_pl_int(e)`) is compared with the
          limits, and `_pl_int` is called (to refuse it) only past them: `x = e; if not -2**63 <= x < 2**63: ...`.
        """
        call = value if isinstance(value, ast.Call) and isinstance(target, ast.Name) else None
        function = attribute_chain(call.func) if call is not None else None
        out: list[ast.stmt]
        if call is not None and function == ["_pl_f32"]:
            buffer = [
                ast.Subscript(value=_name(FLOAT32_BUFFER), slice=_num(0), ctx=ctx) for ctx in (ast.Store(), ast.Load())
            ]
            out = [ast.Assign(targets=[buffer[0]], value=call.args[0]), ast.Assign(targets=[target], value=buffer[1])]
        elif call is not None and integer and function == ["_pl_int"]:
            name = target.id  # type: ignore[attr-defined]  # a Name: `call` is None otherwise
            fits = ast.Compare(
                left=ast.Constant(value=-INT_LIMIT),
                ops=[ast.LtE(), ast.Lt()],
                comparators=[_name(name), ast.Constant(value=INT_LIMIT)],
            )
            refuse = _assign(name, _call("_pl_int", _name(name)))
            check = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=fits), body=[refuse], orelse=[])
            out = [ast.Assign(targets=[target], value=call.args[0]), check]
        else:
            out = [ast.Assign(targets=[target], value=value)]
        return [ast.copy_location(item, node) for item in out]

    def bounded(self, node: ast.expr, value: ast.expr) -> ast.expr:
        """`value` (the rewritten `node`), checked to fit in 64 bits when it may be an integer: a variable
        never holds more, so `x = x * x` cannot grow without end (Numba's int64 would wrap instead)."""
        return value if self.types.of(node) in FLOATS else _call("_pl_int", value)

    def unpacked(self, target: ast.Tuple, value: ast.expr) -> ast.expr:
        """The right side of `a, b = ...`: a tuple of as many values, `X.shape` or `cuda.grid(2)`. Tuples live
        only here (and in shapes), so none can grow: `t = t + t` has no tuple to start from."""
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(target.elts):
                raise fail(value, f"{len(target.elts)} names but {len(value.elts)} values")
            items = [self.bounded(item, self.expr(item)) for item in value.elts]
            return ast.copy_location(ast.Tuple(elts=items, ctx=ast.Load()), value)
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            return ast.copy_location(self.shape(value), value)
        if isinstance(value, ast.Call) and attribute_chain(value.func) == ["cuda", "grid"]:
            return ast.copy_location(self.call(value, unpacking=True), value)
        raise fail(value, "unpack a tuple of values, X.shape or cuda.grid(2): `M, K = A.shape`")

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
        number = self._new_statement(node, "augassign", self._multiply_adds(node))
        if isinstance(node.target, ast.Name):
            self.check_assignable(node.target)
            return [*self._event(number, node), *self.name_update(node, node.target.id)]
        if not isinstance(node.target, ast.Subscript):
            raise fail(node, "`+=` needs a variable or an array element on the left")
        # X[i, j] += v  ->  _pl_k0 = i; _pl_k1 = j; st(X, k0, k1, ld(X, k0, k1) + v): indices evaluated once.
        array, indices = self.subscript_parts(node.target)
        temps = [f"_pl_k{index}" for index in range(len(indices))]
        out: list[ast.stmt] = self._event(number, node)
        for temp, index in zip(temps, indices):
            out.append(
                ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=self.expr(index)), node
                )
            )
        load_site = self.new_site(node.target, "load", array)
        store_site = self.new_site(node.target, "store", array)
        where = self._site_arguments()
        load = _call(f"_pl_ld{len(indices)}", _name(array), _num(load_site), *map(_name, temps), *where)
        value = ast.BinOp(left=load, op=node.op, right=self.expr(node.value))
        call = _call(f"_pl_st{len(indices)}", _name(array), _num(store_site), *map(_name, temps), value, *where)
        out.append(ast.copy_location(ast.Expr(call), node))
        return out

    def name_update(self, node: ast.AugAssign, name: str) -> list[ast.stmt]:
        """`name op= v`: rounded to float32 (`x = f32(x op v)`) or checked to fit in 64 bits
        (`x = int(x op v)`) as its type asks; a float64 stays `x op= v`."""
        value = self.expr(node.value)
        kind = self.types.of(node)
        if kind in FLOATS and not self.types.rounds(node, node.op):
            return [
                ast.copy_location(
                    ast.AugAssign(target=ast.Name(id=name, ctx=ast.Store()), op=node.op, value=value), node
                )
            ]
        result = ast.BinOp(left=_name(name), op=node.op, right=value)
        wrapped = _call("_pl_f32" if kind in FLOATS else "_pl_int", result)
        return self._stored(ast.Name(id=name, ctx=ast.Store()), wrapped, node, kind in (INT, BOOL))

    def _multiply_adds(self, node: ast.stmt) -> int:
        """How many multiply-adds `node` holds (its Statement's `fma`); their factors are register reads
        when they are local-array elements."""
        products = self.types.multiply_adds(node)
        for product in products:
            self._fma_factors.update((id(product.left), id(product.right)))
        return len(products)

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
        if space == "register":
            local_bytes = WORD_BYTES * (math.prod(shape) + sum(a.words for a in self.allocations if a.space == space))
            if local_bytes > LOCAL_LIMIT_BYTES:
                raise fail(
                    value,
                    f"the kernel's local arrays hold {local_bytes:,} bytes per thread; "
                    f"CUDA allows at most {LOCAL_LIMIT_BYTES:,} (512 KB)",
                )
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

    def new_site(self, node: ast.expr, op: str, array: str, atomic: bool = False) -> int:
        number = len(self.sites)
        fma_operand = id(node) in self._fma_factors
        self.sites.append(Site(number, node.lineno, node.col_offset, op, array, fma_operand, atomic))
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
                new: ast.expr = _call(name, self.expr(node.left), self.expr(node.right))
            else:
                new = ast.BinOp(left=self.expr(node.left), op=node.op, right=self.expr(node.right))
            # float32 op float32 is rounded to float32 as the GPU does (Python computed it in float64)
            return _call("_pl_f32", new) if self.types.rounds(node, node.op) else new
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
            raise fail(node, "a tuple is only for unpacking (`a, b = x, y`) and for shapes")
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                if isinstance(node.slice, (ast.Tuple, ast.Slice)):
                    raise fail(node, "index .shape with one number: A.shape[0]")
                return ast.Subscript(value=self.shape(node.value), slice=self.expr(node.slice), ctx=ast.Load())
            array, indices = self.subscript_parts(node)
            site = self.new_site(node, "load", array)
            indices = [self.expr(i) for i in indices]
            return _call(f"_pl_ld{len(indices)}", _name(array), _num(site), *indices, *self._site_arguments())
        if isinstance(node, ast.Call):
            return self.call(node)
        raise fail(node, f"{describe(node)} is not part of the kernel subset (SPEC §5)")

    def attribute(self, node: ast.Attribute) -> ast.expr:
        chain = attribute_chain(node)
        if chain and len(chain) == 3 and chain[0] == "cuda" and chain[1] in SPECIALS:
            if chain[2] not in ("x", "y"):
                raise fail(node, f"cuda.{chain[1]}.{chain[2]}: the playground's blocks and grids are 2-D (.x and .y)")
            return _name(SPECIALS[chain[1]][chain[2] == "y"])
        if node.attr == "shape":
            self.shape(node)  # refuses what is not an array's shape
            raise fail(
                node, f"{'.'.join(chain or [])} is a tuple: unpack it (`M, K = A.shape`) or index it (A.shape[0])"
            )
        shown = ".".join(chain) if chain else f"….{node.attr}"
        raise fail(node, f"{shown} is not part of the kernel subset (SPEC §5)")

    def shape(self, node: ast.Attribute) -> ast.expr:
        """`X.shape` of a named array."""
        chain = attribute_chain(node)
        if not (chain and len(chain) == 2 and chain[1] == "shape" and chain[0] != "cuda"):
            raise fail(node, f"{'.'.join(chain) if chain else '….shape'} is not part of the kernel subset (SPEC §5)")
        check_name(node, chain[0])
        return ast.Attribute(value=_name(chain[0]), attr="shape", ctx=ast.Load())

    def atomic(self, node: ast.Call) -> ast.expr:
        """`cuda.atomic.add(X, (i, j), v)` (or max, min; a 1-D X takes one index): one read-modify-write that
        no other thread can split, recorded as a load and a store of the element, both sites `atomic`."""
        how = (attribute_chain(node.func) or [])[-1]
        if how not in ATOMIC_OPERATIONS:
            raise fail(node, f"cuda.atomic.{how} is not in the playground (cuda.atomic.add, max and min are)")
        if node.keywords or len(node.args) != 3 or not isinstance(node.args[0], ast.Name):
            raise fail(node, f"cuda.atomic.{how} takes (array, index, value), e.g. cuda.atomic.{how}(C, (row, col), x)")
        array, index, value = node.args
        indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        if not 1 <= len(indices) <= 2 or any(isinstance(i, (ast.Slice, ast.Starred, ast.Tuple)) for i in indices):
            raise fail(node, f"cuda.atomic.{how} takes one index for a 1-D array or (row, col) for a 2-D one")
        check_name(node, array.id)  # type: ignore[attr-defined]
        name = array.id  # type: ignore[attr-defined]
        load, store = self.new_site(node, "load", name, atomic=True), self.new_site(node, "store", name, atomic=True)
        arguments = [_name(name), _num(load), _num(store), _num(ATOMIC_OPERATIONS.index(how))]
        return _call(
            f"_pl_at{len(indices)}",
            *arguments,
            *[self.expr(i) for i in indices],
            self.expr(value),
            *self._site_arguments(),
        )

    def call(self, node: ast.Call, unpacking: bool = False) -> ast.expr:
        if node.keywords:
            raise fail(node, "keyword arguments are not part of the kernel subset here")
        chain = attribute_chain(node.func)
        if chain == ["cuda", "grid"]:
            if len(node.args) != 1 or not (isinstance(node.args[0], ast.Constant) and node.args[0].value in (1, 2)):
                raise fail(node, "cuda.grid takes the number of dimensions: cuda.grid(1) or cuda.grid(2)")
            if node.args[0].value == 2 and not unpacking:
                raise fail(node, "cuda.grid(2) is a tuple: unpack it, `col, row = cuda.grid(2)`")
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
        if _is_atomic(node):
            raise fail(node, "an atomic stands on a line of its own, or as `old = cuda.atomic.add(...)`")
        if isinstance(node.func, ast.Name) and node.func.id == "len":
            # Numba's len() of an array is its first extent
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
                raise fail(node, "len takes one array: len(A) is A.shape[0]")
            check_name(node, node.args[0].id)
            shape = ast.Attribute(value=_name(node.args[0].id), attr="shape", ctx=ast.Load())
            return ast.Subscript(value=shape, slice=_num(0), ctx=ast.Load())
        refuse_call(node)
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
