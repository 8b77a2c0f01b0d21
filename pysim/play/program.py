"""Check a playground file against the SPEC §5 subset and compile its kernel into a generator.

A student's file is Numba-CUDA: `from numba import cuda, float32`, module-level
integer constants, `@cuda.jit def kernel(A, B, C)` and `def launch(M, N, K)`.
Nothing outside that subset is accepted: every node of the syntax tree is
checked against an allow-list, so a file cannot import, reach attributes such
as `__class__`, or call anything but the few builtins and `cuda` functions a
teaching kernel needs. Each refusal is a `ProgramError` naming the line.

The kernel is then rewritten (an AST transform) into a Python generator that
one simulated thread runs:

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
from dataclasses import dataclass
from typing import Any

# Prefix of every name the rewrite adds; a student's names may not use it.
RESERVED = "_pl_"
SPECIALS = {
    "threadIdx": ("_pl_tx", "_pl_ty"),
    "blockIdx": ("_pl_bx", "_pl_by"),
    "blockDim": ("_pl_bdx", "_pl_bdy"),
    "gridDim": ("_pl_gdx", "_pl_gdy"),
}
THREAD_ARGS = ("_pl_e", "_pl_tx", "_pl_ty", "_pl_bx", "_pl_by", "_pl_bdx", "_pl_bdy", "_pl_gdx", "_pl_gdy")
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
    "the playground accepts the Numba-CUDA subset of SPEC §5: `from numba import cuda, float32`, "
    "integer constants, `@cuda.jit def kernel(A, B, C)` and `def launch(M, N, K)`"
)


class ProgramError(Exception):
    """The file cannot run: `line` (1-based, 0 when unknown) and a message saying why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Site:
    """One array subscript in the kernel, as a load or as a store."""

    number: int
    line: int
    col: int
    op: str  # load | store
    array: str  # the name the kernel uses
    fma_operand: bool = False  # a factor of an `acc += x * y` (a register read when x is a local array)


@dataclass(frozen=True)
class Statement:
    """One statement of the kernel: its line, what it is, and whether it is a multiply-add."""

    number: int
    line: int
    end_line: int
    kind: str  # assign | augassign | if | for | while | barrier | return | ...
    fma: bool = False


@dataclass(frozen=True)
class Allocation:
    """A `cuda.shared.array` or `cuda.local.array` in the kernel, with its constant shape."""

    number: int
    line: int
    name: str
    space: str  # shared | register
    shape: tuple[int, ...]

    @property
    def words(self) -> int:
        total = 1
        for extent in self.shape:
            total *= extent
        return total


@dataclass(frozen=True)
class Program:
    """A checked, compiled playground file."""

    source: str
    constants: dict[str, int | float]
    params: tuple[str, str, str]  # the kernel's names for A, B and C
    sites: tuple[Site, ...]
    statements: tuple[Statement, ...]
    allocations: tuple[Allocation, ...]
    barriers: frozenset[int]  # statement numbers of cuda.syncthreads()
    kernel_code: Any  # code object of the module that defines the generator `kernel`
    launch_code: Any  # code object of the module that defines `launch`

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    def shared_bytes(self) -> int:
        return 4 * sum(a.words for a in self.allocations if a.space == "shared")


def _fail(node: ast.AST | None, message: str) -> ProgramError:
    return ProgramError(getattr(node, "lineno", 0), message)


def _describe(node: ast.AST) -> str:
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


def _attribute_chain(node: ast.AST) -> list[str] | None:
    """`cuda.threadIdx.x` -> ["cuda", "threadIdx", "x"]; None when the chain does not start at a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _check_name(node: ast.AST, name: str) -> None:
    if name.startswith(RESERVED) or (name.startswith("__") and name.endswith("__")):
        raise _fail(node, f"the name {name!r} is reserved; choose another")


# --- module level -------------------------------------------------------------------------------


class ConstantEvaluator:
    """Values of module-level constant expressions: numbers, earlier constants, arithmetic."""

    def __init__(self, constants: dict[str, int | float]) -> None:
        self.constants = constants

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Tuple):
            return tuple(self.value(item) for item in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.value(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and isinstance(node.op, BINARY_OPS):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, tuple) or isinstance(right, tuple):
                raise _fail(node, "arithmetic on a tuple is not a constant")
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise _fail(node, "exponent too large for a constant")
            try:
                return _BINARY[type(node.op)](left, right)
            except ZeroDivisionError:
                raise _fail(node, "division by zero in a constant") from None
        if isinstance(node, ast.Name):
            raise _fail(node, f"{node.id!r} is not a module-level constant defined above this line")
        raise _fail(node, "this must be a constant: numbers, module-level integer constants and arithmetic")


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
}


def _is_main_guard(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (a harness for real Numba; never run by the playground)."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _is_cuda_jit(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call) and not decorator.args and not decorator.keywords:
        decorator = decorator.func
    return _attribute_chain(decorator) == ["cuda", "jit"]


def compile_program(source: str) -> Program:
    """Check `source` against the subset and compile it; raise ProgramError naming the line."""
    try:
        tree = ast.parse(source, filename="<kernel>")
    except SyntaxError as error:
        raise ProgramError(error.lineno or 0, f"syntax error: {error.msg}") from None
    constants: dict[str, int | float] = {}
    evaluator = ConstantEvaluator(constants)
    kernel: ast.FunctionDef | None = None
    launch: ast.FunctionDef | None = None
    imported: set[str] = set()
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # a docstring
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and node.level == 0:
            for alias in node.names:
                if alias.name not in ("cuda", "float32") or alias.asname not in (None, alias.name):
                    raise _fail(node, f"only `from numba import cuda, float32` may be imported (not {alias.name!r})")
                imported.add(alias.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            raise _fail(node, "only `from numba import cuda, float32` may be imported")
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            _check_name(node, name)
            if name in ("cuda", "float32", "kernel", "launch", *CALLABLE_BUILTINS):
                raise _fail(node, f"{name!r} cannot be redefined")
            value = evaluator.value(node.value)
            if isinstance(value, tuple) or isinstance(value, bool):
                raise _fail(node, f"module-level {name!r} must be a number")
            constants[name] = value
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "kernel":
            if kernel is not None:
                raise _fail(node, "`kernel` is defined twice")
            if len(node.decorator_list) != 1 or not _is_cuda_jit(node.decorator_list[0]):
                raise _fail(node, "the kernel must be decorated with @cuda.jit")
            kernel = node
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "launch":
            if launch is not None:
                raise _fail(node, "`launch` is defined twice")
            if node.decorator_list:
                raise _fail(node, "`launch` takes no decorator")
            launch = node
            continue
        if _is_main_guard(node) and index == len(tree.body) - 1:
            continue
        if isinstance(node, ast.FunctionDef):
            raise _fail(node, f"only `kernel` and `launch` may be defined (found {node.name!r})")
        raise _fail(node, f"{_describe(node)} is not allowed at module level; {SUBSET}")
    if kernel is None:
        raise ProgramError(0, "the file defines no `kernel` (a function decorated with @cuda.jit)")
    if launch is None:
        raise ProgramError(0, "the file defines no `def launch(M, N, K): return grid, block`")
    if "cuda" not in imported:
        raise ProgramError(kernel.lineno, "the kernel uses `cuda`: add `from numba import cuda, float32`")
    params = _plain_params(kernel, 3, "kernel(A, B, C)")
    _plain_params(launch, 3, "launch(M, N, K)")
    rewriter = KernelRewriter(evaluator, uses_float32="float32" in imported)
    generator = rewriter.rewrite(kernel)
    module = ast.Module(body=[generator], type_ignores=[])
    ast.fix_missing_locations(module)
    LaunchChecker().check(launch)
    launch_module = ast.Module(body=[launch], type_ignores=[])
    return Program(
        source=source,
        constants=dict(constants),
        params=tuple(params),  # type: ignore[arg-type]
        sites=tuple(rewriter.sites),
        statements=tuple(rewriter.statements),
        allocations=tuple(rewriter.allocations),
        barriers=frozenset(rewriter.barriers),
        kernel_code=compile(module, "<kernel>", "exec"),
        launch_code=compile(launch_module, "<kernel>", "exec"),
    )


def _plain_params(function: ast.FunctionDef, count: int, shape: str) -> list[str]:
    args = function.args
    if (
        args.posonlyargs
        or args.vararg
        or args.kwonlyargs
        or args.kwarg
        or args.defaults
        or len(args.args) != count
        or any(arg.annotation for arg in args.args)
    ):
        raise _fail(function, f"define it as `def {shape}` (exactly {count} plain parameters)")
    for arg in args.args:
        _check_name(function, arg.arg)
    return [arg.arg for arg in args.args]


# --- launch ---------------------------------------------------------------------------------------


class LaunchChecker(ast.NodeVisitor):
    """`launch` is plain integer arithmetic: assignments, if, return, min/max/abs/int."""

    STATEMENTS = (ast.Assign, ast.AugAssign, ast.If, ast.Return, ast.Pass, ast.Expr)

    def check(self, function: ast.FunctionDef) -> None:
        for index, statement in enumerate(function.body):
            if index == 0 and _is_docstring(statement):
                continue
            self.visit(statement)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not isinstance(node, self.STATEMENTS):
            raise _fail(node, f"{_describe(node)} is not allowed in launch(); compute grid and block with arithmetic")
        if isinstance(node, ast.Expr) and not _is_docstring(node):
            raise _fail(node, "launch() may only assign and return")
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            raise _fail(node, "launch() may use only numbers, M, N, K and module constants")
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "abs", "int")):
                raise _fail(node, "launch() may call only min, max, abs and int")
            if node.keywords:
                raise _fail(node, "launch() calls take no keyword arguments")
        if isinstance(node, ast.Name):
            _check_name(node, node.id)
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Pow, ast.LShift)):
            raise _fail(node, "launch() uses + - * / // % and min/max (not ** or <<)")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)) and node.value is not None:
            if not isinstance(node.value, str):
                raise _fail(node, "launch() may use only numbers")
        if isinstance(node, ast.expr) and not isinstance(node, _LAUNCH_EXPRESSIONS):
            raise _fail(node, f"{_describe(node)} is not allowed in launch()")
        super().generic_visit(node)


_LAUNCH_EXPRESSIONS = (
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Constant,
    ast.Name,
    ast.Tuple,
    ast.Call,
)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


# --- the kernel -----------------------------------------------------------------------------------


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
            type_params=[],
        )
        return ast.copy_location(generator, function)

    # statements
    def block(self, statements: list[ast.stmt], docstring_allowed: bool = False) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            if docstring_allowed and index == 0 and _is_docstring(statement):
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
            if _attribute_chain(node.value.func if isinstance(node.value, ast.Call) else node.value) == [
                "cuda",
                "syncthreads",
            ]:
                call = node.value
                if call.args or call.keywords:  # type: ignore[attr-defined]
                    raise _fail(node, "cuda.syncthreads() takes no arguments")
                number = self._new_statement(node, "barrier")
                self.barriers.add(number)
                return [_event(number, node), ast.copy_location(ast.Expr(ast.Yield(value=_num(number))), node)]
            if _is_docstring(node):
                raise _fail(node, "a string here does nothing; use a # comment")
            raise _fail(node, "an expression on its own does nothing here (only cuda.syncthreads() may stand alone)")
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
                raise _fail(node, "while ... else is not part of the kernel subset")
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
                raise _fail(node, f"{type(node).__name__.lower()} outside a loop")
            number = self._new_statement(node, type(node).__name__.lower())
            return [_event(number, node), node]
        if isinstance(node, ast.Pass):
            return [node]
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                raise _fail(node, "a kernel returns nothing: write results into C")
            number = self._new_statement(node, "return")
            return [_event(number, node), ast.copy_location(ast.Return(value=None), node)]
        raise _fail(node, f"{_describe(node)} is not part of the kernel subset (SPEC §5)")

    def for_loop(self, node: ast.For) -> list[ast.stmt]:
        if node.orelse:
            raise _fail(node, "for ... else is not part of the kernel subset")
        if not isinstance(node.target, ast.Name):
            raise _fail(node, "a for loop takes one variable: `for k in range(...)`")
        _check_name(node, node.target.id)
        iterator = node.iter
        if not (
            isinstance(iterator, ast.Call)
            and isinstance(iterator.func, ast.Name)
            and iterator.func.id == "range"
            and 1 <= len(iterator.args) <= 3
            and not iterator.keywords
        ):
            raise _fail(node, "a for loop must run over range(...) (1 to 3 arguments)")
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
            raise _fail(node, "assign one target at a time (`a = b = 0` is not in the subset)")
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
        raise _fail(target, "assign to a variable, a tuple of variables or an array element")

    def check_assignable(self, target: ast.Name) -> None:
        _check_name(target, target.id)
        if target.id in ("cuda", "float32", *CALLABLE_BUILTINS) or target.id in self.evaluator.constants:
            raise _fail(target, f"{target.id!r} cannot be assigned in the kernel")

    def augassign(self, node: ast.AugAssign) -> list[ast.stmt]:
        if not isinstance(node.op, BINARY_OPS) or isinstance(node.op, (ast.Pow, ast.LShift)):
            raise _fail(node, "this augmented operator is not part of the kernel subset (write x = x ** y)")
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
            raise _fail(node, "`+=` needs a variable or an array element on the left")
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
        chain = _attribute_chain(value.func)
        if chain not in (["cuda", "shared", "array"], ["cuda", "local", "array"]):
            return None
        if not isinstance(target, ast.Name):
            raise _fail(value, f"give the {chain[1]} array a name: `tile = cuda.{chain[1]}.array(...)`")
        self.check_assignable(target)
        arguments = dict(zip(("shape", "dtype"), value.args))
        for keyword in value.keywords:
            if keyword.arg not in ("shape", "dtype") or keyword.arg in arguments:
                raise _fail(value, f"cuda.{chain[1]}.array takes (shape, dtype)")
            arguments[keyword.arg] = keyword.value
        if len(value.args) > 2 or set(arguments) != {"shape", "dtype"}:
            raise _fail(
                value, f"cuda.{chain[1]}.array takes (shape, dtype), e.g. cuda.{chain[1]}.array((T, T), float32)"
            )
        if not (isinstance(arguments["dtype"], ast.Name) and arguments["dtype"].id == "float32"):
            raise _fail(value, "the playground's arrays hold float32: pass float32 as the dtype")
        if not self.uses_float32:
            raise _fail(value, "import float32: `from numba import cuda, float32`")
        try:
            shape = self.evaluator.value(arguments["shape"])
        except ProgramError as error:
            raise ProgramError(
                value.lineno, f"the shape must be a constant (numbers and module-level constants): {error.message}"
            ) from None
        shape = shape if isinstance(shape, tuple) else (shape,)
        if not 1 <= len(shape) <= 2 or any(isinstance(extent, bool) or not isinstance(extent, int) for extent in shape):
            raise _fail(value, "the shape must be one or two whole numbers, e.g. (T, T)")
        if any(extent < 1 for extent in shape):
            raise _fail(value, f"every extent of the shape must be at least 1 (got {shape})")
        if any(extent > 1 << 20 for extent in shape):
            raise _fail(value, f"the shape {shape} is too large")
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
                raise _fail(node, "index an array as X[row, col] (or X[row][col])")
            indices = [value.slice, index]
            value = value.value
        elif isinstance(value, ast.Name):
            indices = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        else:
            raise _fail(node, "only named arrays can be indexed (X[row, col])")
        if not 1 <= len(indices) <= 2:
            raise _fail(node, "arrays have one or two dimensions: X[i] or X[row, col]")
        for item in indices:
            if isinstance(item, (ast.Slice, ast.Starred)):
                raise _fail(node, "slices are not part of the kernel subset: index one element at a time")
        _check_name(node, value.id)
        if value.id in ("cuda", "float32"):
            raise _fail(node, f"{value.id!r} is not an array")
        return value.id, indices

    def new_site(self, node: ast.AST, op: str, array: str) -> int:
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
                raise _fail(node, "only numbers (and True/False) are allowed in a kernel")
            return node
        if isinstance(node, ast.Name):
            _check_name(node, node.id)
            if node.id == "cuda":
                raise _fail(node, "use cuda.threadIdx.x, cuda.blockIdx.y, cuda.grid(2), ... (not `cuda` alone)")
            if node.id in CALLABLE_BUILTINS:
                raise _fail(node, f"{node.id} can only be called")
            return ast.Name(id=node.id, ctx=ast.Load())
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, BINARY_OPS):
                raise _fail(node, "this operator is not part of the kernel subset")
            if isinstance(node.op, (ast.Pow, ast.LShift)):  # guarded: 10 ** 10 ** 9 would freeze the page
                name = "_pl_pow" if isinstance(node.op, ast.Pow) else "_pl_lshift"
                return _call(name, self.expr(node.left), self.expr(node.right))
            return ast.BinOp(left=self.expr(node.left), op=node.op, right=self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, UNARY_OPS):
                raise _fail(node, "this operator is not part of the kernel subset")
            return ast.UnaryOp(op=node.op, operand=self.expr(node.operand))
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(op=node.op, values=[self.expr(value) for value in node.values])
        if isinstance(node, ast.Compare):
            if not all(isinstance(op, COMPARE_OPS) for op in node.ops):
                raise _fail(node, "compare with <, <=, >, >=, == or != (not `in` or `is`)")
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
                    raise _fail(node, "index .shape with one number: A.shape[0]")
                return ast.Subscript(value=self.attribute(node.value), slice=self.expr(node.slice), ctx=ast.Load())
            array, indices = self.subscript_parts(node)
            site = self.new_site(node, "load", array)
            return _call(
                f"_pl_ld{len(indices)}", _name("_pl_e"), _name(array), _num(site), *[self.expr(i) for i in indices]
            )
        if isinstance(node, ast.Call):
            return self.call(node)
        raise _fail(node, f"{_describe(node)} is not part of the kernel subset (SPEC §5)")

    def attribute(self, node: ast.Attribute) -> ast.expr:
        chain = _attribute_chain(node)
        if chain and len(chain) == 3 and chain[0] == "cuda" and chain[1] in SPECIALS:
            if chain[2] not in ("x", "y"):
                raise _fail(node, f"cuda.{chain[1]}.{chain[2]}: the playground's blocks and grids are 2-D (.x and .y)")
            return _name(SPECIALS[chain[1]][chain[2] == "y"])
        if chain and len(chain) == 2 and chain[1] == "shape" and chain[0] != "cuda":
            _check_name(node, chain[0])
            return ast.Attribute(value=_name(chain[0]), attr="shape", ctx=ast.Load())
        shown = ".".join(chain) if chain else f"….{node.attr}"
        raise _fail(node, f"{shown} is not part of the kernel subset (SPEC §5)")

    def call(self, node: ast.Call) -> ast.expr:
        if node.keywords:
            raise _fail(node, "keyword arguments are not part of the kernel subset here")
        chain = _attribute_chain(node.func)
        if chain == ["cuda", "grid"]:
            if len(node.args) != 1 or not (isinstance(node.args[0], ast.Constant) and node.args[0].value in (1, 2)):
                raise _fail(node, "cuda.grid takes the number of dimensions: cuda.grid(1) or cuda.grid(2)")
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
            raise _fail(
                node, f"allocate {chain[1]} arrays in an assignment of their own: tile = cuda.{chain[1]}.array(...)"
            )
        if chain == ["cuda", "syncthreads"]:
            raise _fail(node, "cuda.syncthreads() must stand on a line of its own")
        if isinstance(node.func, ast.Name) and node.func.id in CALLABLE_BUILTINS:
            name = node.func.id
            if name == "range":
                raise _fail(node, "range(...) may only drive a for loop")
            if name == "float32" and not self.uses_float32:
                raise _fail(node, "import float32: `from numba import cuda, float32`")
            if name in ("min", "max") and len(node.args) < 2:
                raise _fail(node, f"{name} takes two or more numbers")
            if name in ("abs", "int", "float", "float32") and len(node.args) != 1:
                raise _fail(node, f"{name} takes one number")
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    raise _fail(node, "*arguments are not part of the kernel subset")
            runtime_name = {"float32": "_pl_f32"}.get(name, name)
            return _call(runtime_name, *[self.expr(arg) for arg in node.args])
        shown = ".".join(chain) if chain else "this"
        raise _fail(
            node,
            f"calling {shown} is not part of the kernel subset (range, min, max, abs, int, float, float32, cuda.*)",
        )
