"""The SPEC §5 subset a playground file must stay inside: an allow-list, checked node by node.

A student's file is Numba-CUDA: `from numba import cuda, float32`, module-level
integer constants, `@cuda.jit def kernel(A, B, C)` and `def launch(M, N, K)`.
Nothing outside that subset is accepted: every node of the syntax tree is
checked against an allow-list, so a file cannot import, reach attributes such
as `__class__`, or call anything but the few builtins and `cuda` functions a
teaching kernel needs. Each refusal is a `ProgramError` naming the line. The
kernel body is checked as it is rewritten (`rewrite.KernelRewriter`); this
module checks the module level and `launch`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from .program import ProgramError

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
                raise fail(node, "arithmetic on a tuple is not a constant")
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise fail(node, "exponent too large for a constant")
            try:
                return _BINARY[type(node.op)](left, right)
            except ZeroDivisionError:
                raise fail(node, "division by zero in a constant") from None
        if isinstance(node, ast.Name):
            raise fail(node, f"{node.id!r} is not a module-level constant defined above this line")
        raise fail(node, "this must be a constant: numbers, module-level integer constants and arithmetic")


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
    """`launch` is plain integer arithmetic: assignments, if, return, min/max/abs/int."""

    STATEMENTS = (ast.Assign, ast.AugAssign, ast.If, ast.Return, ast.Pass, ast.Expr)

    def check(self, function: ast.FunctionDef) -> None:
        for index, statement in enumerate(function.body):
            if index == 0 and is_docstring(statement):
                continue
            self.visit(statement)

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
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Pow, ast.LShift)):
            raise fail(node, "launch() uses + - * / // % and min/max (not ** or <<)")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)) and node.value is not None:
            if not isinstance(node.value, str):
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
    ast.Tuple,
    ast.Call,
)


def is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
