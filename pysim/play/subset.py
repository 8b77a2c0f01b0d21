"""The SPEC §5 subset a playground file must stay inside: an allow-list, checked node by node.

A student's file is Numba-CUDA: `from numba import cuda, float32`, module-level
integer constants, `@cuda.jit def kernel(A, B, C)` and `def launch(M, N, K)`.
Nothing outside that subset is accepted: every node of the syntax tree is
checked against an allow-list, so a file cannot import, reach attributes such
as `__class__`, or call anything but the few builtins and `cuda` functions a
teaching kernel needs. Each refusal is a `ProgramError` naming the line. The
kernel body is checked as it is rewritten (`rewrite.KernelRewriter`); this
module checks the module level and `launch`.

**Limits before work.** Before `ast.parse` sees a file, its size and its
tokens are checked (`check_tokens`): the parser and every pass after it
recurse once per level of an expression, and a link can hold `1+1+…+1` with
16,000 terms, past what Pyodide's stack survives. The limits (each refusal
names the line and the limit):

- a file holds at most MAX_SOURCE_BYTES bytes of UTF-8 (what a link holds,
  site/app/views/codeurl.py);
- one statement holds at most MAX_OPERATORS operators, where every bracket
  opened, `.`, `not`, `and`, `or`, `if` and `else` count as one;
- brackets nest at most MAX_BRACKETS deep, blocks at most MAX_BLOCKS deep;
- a whole number written in the file, a module constant and every integer
  `launch` computes lie in [-2**63, 2**63) (`limits.INT_LIMIT`, Numba's
  int64): the constant evaluator decides `**` and `<<` before computing them.

`launch` is compiled from a function rebuilt out of its checked parts alone
(no decorators, annotations or type parameters) and, like the kernel, with
`dont_inherit=True`, so no flag of this module's compiler applies to it.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize
from dataclasses import dataclass
from typing import Any, cast

from .limits import INT_LIMIT, MAX_BLOCKS, MAX_BRACKETS, MAX_OPERATORS, MAX_SOURCE_BYTES
from .program import ProgramError

OPENERS = frozenset("([{")
CLOSERS = frozenset(")]}")
NOT_OPERATORS = frozenset({",", ";", ":", "=", *CLOSERS})  # separators: they make no level of an expression
WORD_OPERATORS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "yield", "is", "in"})

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


def fail(node: ast.AST | None, message: str) -> ProgramError:
    return ProgramError(getattr(node, "lineno", 0), message)


# --- before parsing -------------------------------------------------------------------------------


def check_tokens(source: str) -> None:
    """Refuse a file past MAX_SOURCE_BYTES, or with a statement past MAX_OPERATORS, brackets past
    MAX_BRACKETS, blocks past MAX_BLOCKS or a whole number past ±2**63, naming the line. A file the
    tokenizer stops reading mid-way is a syntax error here, so `ast.parse` only sees files within the limits."""
    data = source.encode("utf-8", "surrogatepass")
    if len(data) > MAX_SOURCE_BYTES:
        line = data[:MAX_SOURCE_BYTES].count(b"\n") + 1
        raise ProgramError(
            line,
            f"the file is {len(data):,} bytes; a playground file holds at most {MAX_SOURCE_BYTES:,} (as a link does)",
        )
    operators = brackets = blocks = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text, line = token.type, token.string, token.start[0]
            if kind == tokenize.NEWLINE or text == ";":
                operators = 0  # a new statement
            elif kind == tokenize.INDENT:
                blocks += 1
                if blocks > MAX_BLOCKS:
                    raise ProgramError(line, f"blocks are nested more than {MAX_BLOCKS} deep")
            elif kind == tokenize.DEDENT:
                blocks -= 1
            elif kind == tokenize.NUMBER:
                _check_literal(text, line)
            if text in CLOSERS and kind == tokenize.OP:
                brackets -= 1
            elif (kind == tokenize.OP and text not in NOT_OPERATORS) or (
                kind == tokenize.NAME and text in WORD_OPERATORS
            ):
                operators += 1
                if operators > MAX_OPERATORS:
                    raise ProgramError(
                        line,
                        f"this statement holds more than {MAX_OPERATORS} operators (brackets, `.`, `not`, `and`, "
                        "`or`, `if` and `else` count too); split it into several statements",
                    )
                if text in OPENERS:
                    brackets += 1
                    if brackets > MAX_BRACKETS:
                        raise ProgramError(line, f"brackets are nested more than {MAX_BRACKETS} deep")
    except tokenize.TokenError:
        pass  # at the end of the file (an unclosed bracket): every token was seen; ast.parse names the line
    except SyntaxError as error:  # mid-file (IndentationError is one): what follows was not checked
        raise ProgramError(error.lineno or 0, f"syntax error: {error.msg}") from None


def _check_literal(text: str, line: int) -> None:
    """A whole number written in the file must fit in 64 bits (decided from its digits before converting)."""
    if any(mark in text.lower() for mark in (".", "j")) or ("e" in text.lower() and not text.lower().startswith("0x")):
        return  # a float (or an imaginary number, which the subset refuses later)
    digits = text.replace("_", "")
    try:  # 80 characters hold 2**63 in any base (binary takes 66), and convert at once
        fits = len(digits) <= 80 and -INT_LIMIT <= int(digits, 0) < INT_LIMIT
    except ValueError:
        return  # not a Python number (`0777`): ast.parse names the syntax error
    if not fits:
        raise ProgramError(
            line, f"the number {text[:24]}{'…' if len(text) > 24 else ''} does not fit in 64 bits (±2**63)"
        )


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


def check_name(node: ast.AST, name: str) -> None:
    if name.startswith(RESERVED) or (name.startswith("__") and name.endswith("__")):
        raise fail(node, f"the name {name!r} is reserved; choose another")


# --- module level -------------------------------------------------------------------------------


class ConstantEvaluator:
    """Values of module-level constant expressions: numbers, earlier constants, arithmetic."""

    def __init__(self, constants: dict[str, int | float]) -> None:
        self.constants = constants

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return _bounded(node, node.value)
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Tuple):
            return tuple(self.value(item) for item in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.value(node.operand)
            if isinstance(operand, tuple):
                raise fail(node, "arithmetic on a tuple is not a constant")
            return _bounded(node, -operand if isinstance(node.op, ast.USub) else operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, BINARY_OPS):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, tuple) or isinstance(right, tuple):
                raise fail(node, "arithmetic on a tuple is not a constant")
            if _past_64_bits(node.op, left, right):  # decided before computing: 1 << 10**8 takes seconds
                raise fail(
                    node,
                    f"this constant does not fit in 64 bits (±2**63): {left!r} {_SYMBOLS[type(node.op)]} {right!r}",
                )
            try:
                return _bounded(node, _BINARY[type(node.op)](left, right))
            except ZeroDivisionError:
                raise fail(node, "division by zero in a constant") from None
            except (OverflowError, ValueError) as error:  # a float past 1.8e308, a negative shift
                raise fail(node, f"this constant cannot be computed: {error}") from None
        if isinstance(node, ast.Name):
            raise fail(node, f"{node.id!r} is not a module-level constant defined above this line")
        raise fail(node, "this must be a constant: numbers, module-level integer constants and arithmetic")


def _past_64_bits(op: ast.operator, left: Any, right: Any) -> bool:
    """Whether `left ** right` or `left << right` (whole numbers) would pass 2**63, from bit lengths alone."""
    if not (isinstance(left, int) and isinstance(right, int) and left and right > 0):
        return False
    if isinstance(op, ast.Pow):
        return abs(left) > 1 and (abs(left).bit_length() - 1) * right >= 64
    return isinstance(op, ast.LShift) and abs(left).bit_length() + right > 64


def _bounded(node: ast.AST, value: Any) -> Any:
    """`value`, refused (naming `node`'s line) when it is a whole number past ±2**63 or not a finite number."""
    if isinstance(value, int) and not -INT_LIMIT <= value < INT_LIMIT:
        raise fail(node, f"this constant ({value.bit_length():,} bits) does not fit in 64 bits (±2**63)")
    if isinstance(value, float) and not math.isfinite(value):
        raise fail(node, f"this constant is {value}, not a finite number")
    return value


_SYMBOLS = {ast.Pow: "**", ast.LShift: "<<"}
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
    return attribute_chain(decorator) == ["cuda", "jit"]


@dataclass(frozen=True)
class CheckedFile:
    """The parts of a file that passed the module-level check."""

    constants: dict[str, int | float]
    evaluator: ConstantEvaluator
    kernel: ast.FunctionDef
    launch: ast.FunctionDef
    params: tuple[str, str, str]  # the kernel's names for A, B and C
    uses_float32: bool


def check_file(source: str) -> CheckedFile:
    """Check `source`'s module level and the kernel's and launch's signatures; raise ProgramError naming
    the line. `launch`'s body is checked by LaunchChecker, after the kernel's (so a file with errors in
    both reports the kernel's)."""
    check_tokens(source)
    try:
        tree = ast.parse(source, filename="<kernel>")
    except SyntaxError as error:
        raise ProgramError(error.lineno or 0, f"syntax error: {error.msg}") from None
    except ValueError as error:  # a NUL byte (Python 3.11)
        raise ProgramError(0, f"syntax error: {error}") from None
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
                    raise fail(node, f"only `from numba import cuda, float32` may be imported (not {alias.name!r})")
                imported.add(alias.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            raise fail(node, "only `from numba import cuda, float32` may be imported")
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            check_name(node, name)
            if name in ("cuda", "float32", "kernel", "launch", *CALLABLE_BUILTINS):
                raise fail(node, f"{name!r} cannot be redefined")
            value = evaluator.value(node.value)
            if isinstance(value, tuple) or isinstance(value, bool):
                raise fail(node, f"module-level {name!r} must be a number")
            constants[name] = value
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "kernel":
            if kernel is not None:
                raise fail(node, "`kernel` is defined twice")
            if len(node.decorator_list) != 1 or not _is_cuda_jit(node.decorator_list[0]):
                decorator = node.decorator_list[0] if len(node.decorator_list) == 1 else None
                if isinstance(decorator, ast.Call) and attribute_chain(decorator.func) == ["cuda", "jit"]:
                    raise fail(decorator, "@cuda.jit takes no arguments here (no signature, device= or fastmath=)")
                raise fail(node, "the kernel must be decorated with @cuda.jit")
            kernel = node
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "launch":
            if launch is not None:
                raise fail(node, "`launch` is defined twice")
            if node.decorator_list:
                raise fail(node, "`launch` takes no decorator")
            launch = node
            continue
        if _is_main_guard(node) and index == len(tree.body) - 1:
            continue
        if isinstance(node, ast.FunctionDef):
            raise fail(node, f"only `kernel` and `launch` may be defined (found {node.name!r})")
        raise fail(node, f"{describe(node)} is not allowed at module level; {SUBSET}")
    if kernel is None:
        raise ProgramError(0, "the file defines no `kernel` (a function decorated with @cuda.jit)")
    if launch is None:
        raise ProgramError(0, "the file defines no `def launch(M, N, K): return grid, block`")
    if "cuda" not in imported:
        raise ProgramError(kernel.lineno, "the kernel uses `cuda`: add `from numba import cuda, float32`")
    params = _plain_params(kernel, 3, "kernel(A, B, C)")
    _plain_params(launch, 3, "launch(M, N, K)")
    for function in (kernel, launch):
        if function.returns is not None or getattr(function, "type_params", None):  # type_params: Python 3.12
            raise fail(function, f"`{function.name}` takes no return annotation or type parameters")
    return CheckedFile(
        constants=constants,
        evaluator=evaluator,
        kernel=kernel,
        launch=launch,
        params=tuple(params),  # type: ignore[arg-type]
        uses_float32="float32" in imported,
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
        raise fail(function, f"define it as `def {shape}` (exactly {count} plain parameters)")
    for arg in args.args:
        check_name(function, arg.arg)
    return [arg.arg for arg in args.args]


# --- launch ---------------------------------------------------------------------------------------


class LaunchChecker(ast.NodeVisitor):
    """`launch` is plain integer arithmetic: assignments, if, return, min/max/abs/int, numbers and names.

    Tuples are shapes only: a tuple of numbers assigned to a name (which then holds a shape) or returned as
    grid or block, and `a, b = x, y`. Nothing else may hold or build one, so none can grow (`t = t + t`,
    `(1,) * 10**9`). `check` returns the function to compile: rebuilt from the checked statements alone,
    with every operation's integer bounded (`_pl_int`, launch.launch_int).
    """

    STATEMENTS = (ast.Assign, ast.AugAssign, ast.If, ast.Return, ast.Pass, ast.Expr)

    def __init__(self) -> None:
        self.shapes: set[str] = set()  # names assigned a tuple

    def check(self, function: ast.FunctionDef) -> ast.FunctionDef:
        body = []
        for index, statement in enumerate(function.body):
            if index == 0 and is_docstring(statement):
                continue
            self.visit(statement)
            body.append(_BoundedArithmetic().visit(statement))
        rebuilt = ast.FunctionDef(
            name="launch",
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(arg=a.arg) for a in function.args.args],
                kwonlyargs=[],
                kw_defaults=[],
                defaults=[],
            ),
            body=body or [ast.Pass()],
            decorator_list=[],
            returns=None,
            type_params=[],  # type: ignore[call-arg]  # Python 3.12's field (see rewrite.KernelRewriter.rewrite)
        )
        return ast.fix_missing_locations(ast.copy_location(rebuilt, function))

    def visit_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Name):
            check_name(target, target.id)
            if isinstance(node.value, ast.Tuple):
                self.shape(node.value)
                self.shapes.add(target.id)
            else:
                self.visit(node.value)
            return
        if (
            len(node.targets) == 1
            and isinstance(target, ast.Tuple)
            and isinstance(node.value, ast.Tuple)
            and len(target.elts) == len(node.value.elts)
            and all(isinstance(item, ast.Name) for item in target.elts)
        ):
            for item in (*target.elts, *node.value.elts):
                self.visit(item)
            return
        raise fail(node, "launch() assigns one name, or unpacks as many numbers (`a, b = x, y`)")

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            raise fail(node, "launch() returns (grid, block)")
        for item in value.elts:
            if isinstance(item, ast.Tuple):
                self.shape(item)
            elif not (isinstance(item, ast.Name) and item.id in self.shapes):
                self.visit(item)

    def shape(self, node: ast.Tuple) -> None:
        """A grid or block shape: a tuple of numbers."""
        for item in node.elts:
            self.visit(item)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not isinstance(node, self.STATEMENTS):
            raise fail(node, f"{describe(node)} is not allowed in launch(); compute grid and block with arithmetic")
        if isinstance(node, ast.Expr) and not is_docstring(node):
            raise fail(node, "launch() may only assign and return")
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            raise fail(node, "launch() may use only numbers, M, N, K and module constants")
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "abs", "int")):
                raise fail(node, "launch() may call only min, max, abs and int")
            if node.keywords:
                raise fail(node, "launch() calls take no keyword arguments")
        if isinstance(node, ast.Name):
            check_name(node, node.id)
            if node.id in self.shapes:
                raise fail(node, f"{node.id!r} holds a shape (a tuple): launch() may only return it")
        if isinstance(node, ast.Tuple):
            raise fail(node, "a tuple in launch() is a grid or block shape: assign it to a name or return it")
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Pow, ast.LShift)):
            raise fail(node, "launch() uses + - * / // % and min/max (not ** or <<)")
        if isinstance(node, ast.Constant) and type(node.value) not in (int, float, bool):
            raise fail(node, "launch() may use only numbers")
        if isinstance(node, ast.expr) and not isinstance(node, _LAUNCH_EXPRESSIONS):
            raise fail(node, f"{describe(node)} is not allowed in launch()")
        super().generic_visit(node)


_LAUNCH_EXPRESSIONS = (
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Constant,
    ast.Name,
    ast.Call,
)


class _BoundedArithmetic(ast.NodeTransformer):
    """Each arithmetic result and call of a checked launch() statement through `_pl_int` (64-bit integers)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        return self.bounded(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        return self.bounded(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        return self.bounded(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        # x op= y  ->  x = _pl_int(x op y): the target is a name (the checker refuses the rest)
        name = cast(ast.Name, node.target).id
        value = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op, right=node.value)
        return ast.copy_location(
            ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=self.visit(value)), node
        )

    def bounded(self, node: ast.expr) -> ast.expr:
        inner = cast(ast.expr, self.generic_visit(node))
        call = ast.Call(func=ast.Name(id=RESERVED + "int", ctx=ast.Load()), args=[inner], keywords=[])
        return ast.copy_location(call, node)


# Calls a CUDA programmer reaches for that the playground does not model, and why (see refuse_call).
REFUSED_CALLS = {
    "print": "print is not available: a GPU has no console here; look at C, the counters and the thread steps",
    "cuda.syncwarp": "cuda.syncwarp() is not modelled: use cuda.syncthreads() (the playground has no warp-level sync)",
    "cuda.gridsize": "cuda.gridsize is not modelled: use cuda.gridDim.x * cuda.blockDim.x (and .y)",
}


def refuse_call(node: ast.Call) -> None:
    """Refuse a call from REFUSED_CALLS with its reason, naming the line."""
    reason = REFUSED_CALLS.get(".".join(attribute_chain(node.func) or []))
    if reason is not None:
        raise fail(node, reason)


def is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
