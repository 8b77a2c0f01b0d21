"""Rewrite a checked kernel (an AST transform) into a Python generator that one simulated thread runs.

The body has passed the subset's policy (`pysim.play.policy.kernel.KernelPolicy`): the rewrite only
transforms it.

- `cuda.syncthreads()` becomes `yield`, so the scheduler can run every thread
  of a block up to the barrier before any thread passes it;
- every array subscript becomes a call into the runtime (`pysim.play.guards`)
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
from typing import cast

from . import nodes
from .calls import CallRewrites, array_dtypes, fused, is_collective, lane
from .constants import constant_names
from .evaluate import ConstantEvaluator
from .intrinsics import DTYPES, WARP_SIZE, counting_barrier
from .numba_types import ARRAY, BOOL, FLOATS, INT, NumbaTypes
from .policy import allocation_arguments, allocation_shape
from .policy.calls import tuple_names
from .program import Allocation, Site, Statement
from .subset import SPECIALS, THREAD_ARGS, attribute_chain, is_atomic, is_docstring

ORDINAL = "_pl_o"  # statements the thread executed in this barrier interval (program order, for races)
STREAM = "_pl_e"  # the thread's stream (pysim.play.runtime): the statements it executed, one number each


def _number(iteration: ast.expr) -> ast.expr:
    """The number of an iteration vector (pysim.play.runtime.Vectors)."""
    return nodes.call(
        "_pl_vset", iteration, nodes.call("_pl_len", nodes.load("_pl_vectors"))
    )  # len(): no call of a method-wrapper


def counter(level: int) -> str:
    """The variable counting iterations of the loop at nesting `level` (1 = outermost)."""
    return f"_pl_c{level}"


def vector(level: int) -> str:
    """The variable holding the number of the iteration vector of the loops down to `level` (0: none)."""
    return f"_pl_v{level}"


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


class KernelRewriter(CallRewrites):
    """Rewrite the checked kernel body into a per-thread generator, recording its sites, statements and
    allocations."""

    def __init__(self, evaluator: ConstantEvaluator) -> None:
        self.evaluator = evaluator
        self.sites: list[Site] = []
        self.statements: list[Statement] = []
        self.allocations: list[Allocation] = []
        self.barriers: set[int] = set()
        self._fma_factors: set[int] = set()  # id() of factor nodes of multiply-adds
        self.types = NumbaTypes(evaluator.constants, ())  # replaced by rewrite(), which knows the parameters
        self._loops: list[int] = []  # iteration statements of the loops being rewritten (Statement.loops)
        self._numbered: list[bool] = []  # for each: whether it numbers its iteration vectors (`_numbers`)
        self._registers: frozenset[str] = frozenset()  # names that only ever hold a local array
        self._tuples: dict[str, int] = {}  # names holding cuda.grid(n)'s tuple, with n
        self.collectives = 0  # warp primitive calls rewritten so far (pysim.play.calls)
        self._dtypes: dict[str, str] = {}  # the dtype of each name holding a shared or local array

    def rewrite(self, function: ast.FunctionDef) -> ast.FunctionDef:
        self._dtypes = array_dtypes(function)
        arrays = self.evaluator.arrays  # constant memory (pysim.play.constants), read through these names
        self._dtypes |= {name: arrays[source].dtype for name, source in constant_names(function, arrays).items()}
        elements = {name: DTYPES[dtype][1] for name, dtype in self._dtypes.items()}
        self.types = NumbaTypes(self.evaluator.constants, [arg.arg for arg in function.args.args], elements)
        self.types.infer(function.body)
        self._registers = _local_names(function)
        self._tuples = tuple_names(function)
        start = [
            nodes.assign(ORDINAL, nodes.constant(0)),
            nodes.assign(vector(0), _number(ast.Tuple(elts=[], ctx=ast.Load()))),
        ]
        body = start + self.block(function.body, docstring_allowed=True)
        # A generator even without a barrier: `return` then an unreachable `yield`.
        never = ast.Tuple(elts=[nodes.constant(-1), nodes.constant(0)], ctx=ast.Load())
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
            left=nodes.call("_pl_len", nodes.load(STREAM)),
            op=ast.Add(),
            right=nodes.call("_pl_len", nodes.load("_pl_values")),
        )
        over = ast.Compare(left=steps, ops=[ast.Gt()], comparators=[nodes.load("_pl_allow")])
        return ast.copy_location(ast.If(test=over, body=[ast.Raise(exc=nodes.load("_pl_budget"))], orelse=[]), node)

    def _event(self, number: int, node: ast.AST) -> list[ast.stmt]:
        """Record statement `number` in the thread's stream, and count its ordinal. `_pl_e.append(n)` on the list
        itself: CPython specialises that into an append without a call (a bound `append` in a variable is a
        call, five times the time in Pyodide)."""
        append = ast.Attribute(value=nodes.load(STREAM), attr="append", ctx=ast.Load())
        event = ast.Call(func=append, args=[nodes.constant(number)], keywords=[])
        out = [ast.Expr(event), nodes.increment(ORDINAL)]
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
            if barrier or is_atomic(inner) or is_collective(inner):
                return True
            if isinstance(inner, ast.Subscript) and not self._local_or_shape(inner.value):
                return True
        return False

    def _local_or_shape(self, value: ast.expr) -> bool:
        """A subscripted value that is a local array (its elements are registers) or an array's `.shape`."""
        if isinstance(value, ast.Name):
            return value.id in self._registers or value.id in self._tuples
        return isinstance(value, ast.Attribute) and value.attr == "shape"

    def _iteration(self, node: ast.AST) -> list[ast.stmt]:
        """At the top of an iteration of the innermost loop: count it, and number the iteration vector of every
        loop around (what groups lanes into warp instructions, and names a barrier instance)."""
        level = len(self._loops)
        if not self._numbered[-1]:
            return [ast.copy_location(nodes.increment(counter(level)), node)]
        counters = ast.Tuple(elts=[nodes.load(counter(n)) for n in range(1, level + 1)], ctx=ast.Load())
        out = [nodes.increment(counter(level)), nodes.assign(vector(level), _number(counters))]
        return [ast.copy_location(item, node) for item in out]

    def _site_arguments(self) -> list[ast.expr]:
        """What an access records besides its address: the ordinal and the iteration vector of its loops (0
        inside a loop that numbers none: the access is to a local array, which no warp instruction groups)."""
        numbered = not self._numbered or self._numbered[-1]
        return [nodes.load(ORDINAL), nodes.load(vector(len(self._loops))) if numbered else nodes.constant(0)]

    def statement(self, node: ast.stmt) -> list[ast.stmt]:
        if isinstance(node, ast.Expr):
            if is_atomic(node.value):
                number = self._new_statement(node, "atomic", self._multiply_adds(node))
                return [*self._event(number, node), ast.copy_location(ast.Expr(self.atomic(node.value)), node)]  # type: ignore[arg-type]
            if is_collective(node.value):  # cuda.syncwarp()
                number = self._new_statement(node, "syncwarp")
                sync = ast.Expr(self.collective(node.value))  # type: ignore[arg-type]
                return [*self._event(number, node), ast.copy_location(sync, node)]
            # cuda.syncthreads(), the one other expression that may stand alone
            number = self._new_statement(node, "barrier")
            self.barriers.add(number)
            # The scheduler hears the barrier instance: the statement and its loops' iteration vector.
            instance = ast.Tuple(elts=[nodes.constant(number), nodes.load(vector(len(self._loops)))], ctx=ast.Load())
            wait = [ast.Expr(ast.Yield(value=instance)), nodes.assign(ORDINAL, nodes.constant(0))]
            return [*self._event(number, node), *(ast.copy_location(item, node) for item in wait)]
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
            return [
                ast.copy_location(nodes.assign(counter(level), nodes.constant(-1)), node),
                ast.copy_location(loop, node),
            ]
        if isinstance(node, (ast.Break, ast.Continue)):
            number = self._new_statement(node, type(node).__name__.lower())
            return [*self._event(number, node), node]
        if isinstance(node, ast.Return):
            number = self._new_statement(node, "return")
            return [*self._event(number, node), ast.copy_location(ast.Return(value=None), node)]
        return [node]  # pass

    def for_loop(self, node: ast.For) -> list[ast.stmt]:
        iterator = cast(ast.Call, node.iter)  # range(...)
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
            target=ast.Name(id=cast(ast.Name, node.target).id, ctx=ast.Store()),
            iter=ast.copy_location(nodes.call("range", *args), iterator),
            body=body,
            orelse=[],
        )
        start = ast.copy_location(nodes.assign(counter(level), nodes.constant(-1)), node)
        return [*self._event(number, node), start, ast.copy_location(loop, node)]

    def assign(self, node: ast.Assign) -> list[ast.stmt]:
        target, value = node.targets[0], node.value
        allocation = self.allocation(value, target)
        if allocation is not None:
            number = self._new_statement(node, "allocate")
            call = nodes.call(
                "_pl_shared" if allocation.space == "shared" else "_pl_local", nodes.constant(allocation.number)
            )
            assign = ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())], value=call)  # type: ignore[attr-defined]
            return [*self._event(number, node), ast.copy_location(assign, node)]
        how = counting_barrier(value)
        if how is not None:  # n = cuda.syncthreads_count(p): a barrier that hands back the block's votes
            number = self._new_statement(node, "barrier")
            self.barriers.add(number)
            vote = [nodes.constant(number), nodes.load(vector(len(self._loops))), nodes.constant(how)]
            request = ast.Yield(value=ast.Tuple(elts=[*vote, self.expr(value.args[0])], ctx=ast.Load()))  # type: ignore[attr-defined]
            wait = [nodes.assign(target.id, request), nodes.assign(ORDINAL, nodes.constant(0))]  # type: ignore[attr-defined]
            return [*self._event(number, node), *(ast.copy_location(item, node) for item in wait)]
        atomic = is_atomic(value)
        number = self._new_statement(node, "atomic" if atomic else "assign", self._multiply_adds(node))
        if isinstance(target, ast.Subscript):
            array, indices = self.subscript_parts(target)
            site = self.new_site(target, "store", array)
            call = nodes.call(
                f"_pl_st{len(indices)}",
                nodes.load(array),
                nodes.constant(site),
                *[self.expr(i) for i in indices],
                self._converted(array, self.expr(value)),
                *self._site_arguments(),
            )
            return [*self._event(number, node), ast.copy_location(ast.Expr(call), node)]
        new_target = self.store_target(target)
        if atomic:
            new_value = self.atomic(value)  # type: ignore[arg-type]
        elif isinstance(target, ast.Tuple):
            new_value = self.unpacked(value)
        else:
            new_value = self.bounded(value, self.expr(value))
        integer = self.types.of(value) in (INT, BOOL)
        return [*self._event(number, node), *nodes.stored(new_target, new_value, node, integer)]

    def bounded(self, node: ast.expr, value: ast.expr) -> ast.expr:
        """`value` (the rewritten `node`), checked to fit in 64 bits when it may be an integer: a variable
        never holds more, so `x = x * x` cannot grow without end (Numba's int64 would wrap instead)."""
        return value if self.types.of(node) in (*FLOATS, ARRAY) else nodes.call("_pl_int", value)

    def unpacked(self, value: ast.expr) -> ast.expr:
        """The right side of `a, b = ...`: a tuple of as many values, `X.shape` or `cuda.grid(2)`."""
        if isinstance(value, ast.Tuple):
            items = [self.bounded(item, self.expr(item)) for item in value.elts]
            return ast.copy_location(ast.Tuple(elts=items, ctx=ast.Load()), value)
        if isinstance(value, ast.Attribute):  # X.shape
            return ast.copy_location(self.shape(value), value)
        return ast.copy_location(self.call(cast(ast.Call, value)), value)  # cuda.grid(2)

    @staticmethod
    def store_target(target: ast.expr) -> ast.expr:
        """A variable, or a tuple of variables."""
        if isinstance(target, ast.Name):
            return ast.Name(id=target.id, ctx=ast.Store())
        names = cast(ast.Tuple, target).elts
        return ast.Tuple(
            elts=[ast.Name(id=cast(ast.Name, item).id, ctx=ast.Store()) for item in names], ctx=ast.Store()
        )

    def augassign(self, node: ast.AugAssign) -> list[ast.stmt]:
        number = self._new_statement(node, "augassign", self._multiply_adds(node))
        if isinstance(node.target, ast.Name):
            return [*self._event(number, node), *self.name_update(node, node.target.id)]
        # X[i, j] += v  ->  _pl_k0 = i; _pl_k1 = j; st(X, k0, k1, ld(X, k0, k1) + v): indices evaluated once.
        array, indices = self.subscript_parts(cast(ast.Subscript, node.target))
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
        load = nodes.call(
            f"_pl_ld{len(indices)}", nodes.load(array), nodes.constant(load_site), *map(nodes.load, temps), *where
        )
        fused = self.types.contracted(node)  # X[i] += x*y: one fma.rn.f32 (pysim.play.numba_types)
        value = fused.call(self.expr, load) if fused else ast.BinOp(left=load, op=node.op, right=self.expr(node.value))
        call = nodes.call(
            f"_pl_st{len(indices)}",
            nodes.load(array),
            nodes.constant(store_site),
            *map(nodes.load, temps),
            self._converted(array, value),
            *where,
        )
        out.append(ast.copy_location(ast.Expr(call), node))
        return out

    def name_update(self, node: ast.AugAssign, name: str) -> list[ast.stmt]:
        """`name op= v`: rounded to float32 (`x = f32(x op v)`) or checked to fit in 64 bits
        (`x = int(x op v)`) as its type asks; a float64 stays `x op= v`."""
        kind, fused = self.types.of(node), self.types.contracted(node)  # acc += x*y: one fma.rn.f32
        value = fused.call(self.expr, nodes.load(name)) if fused else self.expr(node.value)
        if kind in FLOATS and not self.types.rounds(node, node.op):
            return [
                ast.copy_location(
                    ast.AugAssign(target=ast.Name(id=name, ctx=ast.Store()), op=node.op, value=value), node
                )
            ]
        result = ast.BinOp(left=nodes.load(name), op=node.op, right=value)
        wrapped = value if fused else nodes.call("_pl_f32" if kind in FLOATS else "_pl_int", result)
        return nodes.stored(ast.Name(id=name, ctx=ast.Store()), wrapped, node, kind in (INT, BOOL))

    def _multiply_adds(self, node: ast.stmt) -> int:
        """How many multiply-adds `node` holds (its Statement's `fma`); their factors are register reads
        when they are local-array elements."""
        products = self.types.multiply_adds(node)
        for product in products:
            self._fma_factors.update((id(product.left), id(product.right)))
        return len(products) + fused(node)

    def _vector_name(self) -> str:
        """The variable holding the iteration vector of the loops around the statement being rewritten."""
        return vector(len(self._loops))

    # allocations
    def allocation(self, value: ast.expr, target: ast.expr) -> Allocation | None:
        """The Allocation `target = cuda.shared.array(...)` (or `cuda.local.array`) makes; None for any other value."""
        if not isinstance(value, ast.Call):
            return None
        chain = attribute_chain(value.func)
        if chain not in (["cuda", "shared", "array"], ["cuda", "local", "array"]):
            return None
        space = "shared" if chain[1] == "shared" else "register"
        shape = allocation_shape(self.evaluator, value)
        dtype = cast(ast.Name, allocation_arguments(value)["dtype"]).id
        name = cast(ast.Name, target).id
        dynamic = tuple(shape) == (0,)
        allocation = Allocation(len(self.allocations), value.lineno, name, space, tuple(shape), dtype, dynamic)
        self.allocations.append(allocation)
        return allocation

    # expressions
    @staticmethod
    def subscript_parts(node: ast.Subscript) -> tuple[str, list[ast.expr]]:
        """`X[i, j]`, `X[i][j]` or `X[i]` -> ("X", [i, j]) / ("X", [i])."""
        value, index = node.value, node.slice
        if isinstance(value, ast.Subscript):  # X[i][j]
            return cast(ast.Name, value.value).id, [value.slice, index]
        return cast(ast.Name, value).id, list(index.elts) if isinstance(index, ast.Tuple) else [index]

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
            return node
        if isinstance(node, ast.Name):
            return ast.Name(id=node.id, ctx=ast.Load())
        if isinstance(node, ast.BinOp):
            if fused := self.types.contracted(node):  # x*y + z: one fma.rn.f32, rounded once (numba_types)
                return fused.call(self.expr)
            if isinstance(node.op, (ast.Pow, ast.LShift)):  # guarded: 10 ** 10 ** 9 would freeze the page
                name = "_pl_pow" if isinstance(node.op, ast.Pow) else "_pl_lshift"
                new: ast.expr = nodes.call(name, self.expr(node.left), self.expr(node.right))
            else:
                new = ast.BinOp(left=self.expr(node.left), op=node.op, right=self.expr(node.right))
            # float32 op float32 is rounded to float32 as the GPU does (Python computed it in float64)
            return nodes.call("_pl_f32", new) if self.types.rounds(node, node.op) else new
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=node.op, operand=self.expr(node.operand))
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(op=node.op, values=[self.expr(value) for value in node.values])
        if isinstance(node, ast.Compare):
            return ast.Compare(
                left=self.expr(node.left), ops=node.ops, comparators=[self.expr(c) for c in node.comparators]
            )
        if isinstance(node, ast.IfExp):
            return ast.IfExp(test=self.expr(node.test), body=self.expr(node.body), orelse=self.expr(node.orelse))
        if isinstance(node, ast.Attribute):  # cuda.threadIdx.x and the like, cuda.laneid, cuda.warpsize
            chain = cast(list[str], attribute_chain(node))
            if len(chain) == 2:
                return lane() if chain[1] == "laneid" else nodes.constant(WARP_SIZE)
            return nodes.load(SPECIALS[chain[1]]["xyz".index(chain[2])])
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self._tuples:
            return ast.Subscript(value=nodes.load(node.value.id), slice=node.slice, ctx=ast.Load())  # pos[0]
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute):  # X.shape[i]
                return ast.Subscript(value=self.shape(node.value), slice=self.expr(node.slice), ctx=ast.Load())
            array, indices = self.subscript_parts(node)
            site = self.new_site(node, "load", array)
            indices = [self.expr(i) for i in indices]
            return nodes.call(
                f"_pl_ld{len(indices)}", nodes.load(array), nodes.constant(site), *indices, *self._site_arguments()
            )
        return self.call(cast(ast.Call, node))

    @staticmethod
    def shape(node: ast.Attribute) -> ast.expr:
        """`X.shape` of a named array."""
        return ast.Attribute(value=nodes.load(cast(ast.Name, node.value).id), attr="shape", ctx=ast.Load())
