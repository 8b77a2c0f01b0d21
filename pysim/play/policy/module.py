"""The module level of a playground file: `from numba import cuda, float32`, constants, `kernel`, `launch`."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..constants import ARRAY_LIKE, NUMPY, constant_array, is_maker
from ..evaluate import ConstantEvaluator
from ..inline import check_device, inline
from ..intrinsics import DTYPES
from ..program import ProgramError, fail
from ..subset import CALLABLE_BUILTINS, SUBSET, attribute_chain, describe, is_docstring
from ..tokens import check_tokens
from . import check_name


@dataclass(frozen=True)
class CheckedFile:
    """The parts of a file that passed the module-level check."""

    constants: dict[str, int | float]
    evaluator: ConstantEvaluator
    kernel: ast.FunctionDef
    launch: ast.FunctionDef
    params: tuple[str, str, str]  # the kernel's names for A, B and C
    uses_float32: bool
    modules: frozenset[str] = frozenset()  # `import math`, and the dtypes imported from numba (float32 too)


class ModulePolicy(ast.NodeVisitor):
    """The module level: docstrings, `from numba import cuda, float32`, constants, `kernel`, `launch`, and
    `if __name__ == "__main__":` last (a harness for real Numba; never run by the playground)."""

    def __init__(self, last: ast.stmt | None) -> None:
        self.constants: dict[str, int | float] = {}
        self.evaluator = ConstantEvaluator(self.constants, {})
        self.kernel: ast.FunctionDef | None = None
        self.launch: ast.FunctionDef | None = None
        self.imported: set[str] = set()
        self.modules: set[str] = set()
        self.devices: dict[str, ast.FunctionDef] = {}  # device functions by name (pysim.play.inline)
        self.last = last

    def generic_visit(self, node: ast.AST) -> None:
        raise fail(node, f"{describe(node)} is not allowed at module level; {SUBSET}")

    def visit_Expr(self, node: ast.Expr) -> None:
        if not is_docstring(node):
            self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module != "numba" or node.level != 0:
            raise fail(node, "only `from numba import cuda, float32` may be imported")
        for alias in node.names:
            if alias.name not in ("cuda", *DTYPES) or alias.asname not in (None, alias.name):
                raise fail(
                    node,
                    f"only `from numba import cuda, float32` (and int32, int64, float64) may be imported "
                    f"(not {alias.name!r})",
                )
            self.imported.add(alias.name)

    def visit_Import(self, node: ast.Import) -> None:
        imported = [(alias.name, alias.asname) for alias in node.names]
        if imported not in ([("math", None)], [("numpy", NUMPY)]):
            raise fail(
                node, "only `import math`, `import numpy as np` and `from numba import cuda, float32` may be imported"
            )
        self.modules.add(imported[0][0])

    def visit_Assign(self, node: ast.Assign) -> None:
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            self.generic_visit(node)
        name = node.targets[0].id  # type: ignore[attr-defined]
        check_name(node, name)
        if name in ("cuda", "float32", "math", NUMPY, "kernel", "launch", *CALLABLE_BUILTINS):
            raise fail(node, f"{name!r} cannot be redefined")
        if name in self.evaluator.arrays or (name in self.constants and is_maker(node.value)):
            raise fail(node, f"{name!r} is defined twice (a constant array is defined once)")
        if is_maker(node.value):
            if "numpy" not in self.modules:
                raise fail(node, "import NumPy first: `import numpy as np` at the top of the file")
            self.evaluator.arrays[name] = constant_array(name, node.value, self.evaluator.value)  # type: ignore[arg-type]
            return
        if isinstance(node.value, ast.Call) and (attribute_chain(node.value.func) or [""])[0] == NUMPY:
            shown = ".".join(attribute_chain(node.value.func) or [])
            raise fail(node, f"{shown} is not supported: make a constant array with np.array([...]) or np.arange(...)")
        if isinstance(node.value, ast.Call) and attribute_chain(node.value.func) == ARRAY_LIKE:
            raise fail(
                node,
                "call cuda.const.array_like inside the kernel: W = np.array([...], dtype=np.float32) here, "
                "then c = cuda.const.array_like(W) in the kernel (or read W[i] there directly)",
            )
        value = self.evaluator.value(node.value)
        if isinstance(value, tuple) or isinstance(value, bool):
            raise fail(node, f"module-level {name!r} must be a number")
        self.constants[name] = value

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name == "kernel":
            if self.kernel is not None:
                raise fail(node, "`kernel` is defined twice")
            if len(node.decorator_list) != 1 or not _is_cuda_jit(node.decorator_list[0]):
                decorator = node.decorator_list[0] if len(node.decorator_list) == 1 else None
                if isinstance(decorator, ast.Call) and attribute_chain(decorator.func) == ["cuda", "jit"]:
                    raise fail(decorator, "@cuda.jit takes no arguments here (no signature, device= or fastmath=)")
                raise fail(node, "the kernel must be decorated with @cuda.jit")
            self.kernel = node
        elif node.name == "launch":
            if self.launch is not None:
                raise fail(node, "`launch` is defined twice")
            if node.decorator_list:
                raise fail(node, "`launch` takes no decorator")
            self.launch = node
        elif len(node.decorator_list) == 1 and _is_device_jit(node.decorator_list[0]):
            if node.name in self.devices:
                raise fail(node, f"device function {node.name!r} is defined twice")
            check_name(node, node.name)
            check_device(node)
            self.devices[node.name] = node
        elif any(_is_cuda_jit(d) or isinstance(d, ast.Call) and _is_cuda_jit(d.func) for d in node.decorator_list):
            raise fail(node, f"decorate {node.name!r} as a device function: @cuda.jit(device=True)")
        else:
            raise fail(node, f"only `kernel` and `launch` may be defined (found {node.name!r})")

    def visit_If(self, node: ast.If) -> None:
        if not (node is self.last and _is_main_guard(node)):
            self.generic_visit(node)


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


def _is_device_jit(decorator: ast.expr) -> bool:
    """`@cuda.jit(device=True)` (Numba's `inline=` is accepted too: every call is inlined here)."""
    if not (isinstance(decorator, ast.Call) and attribute_chain(decorator.func) == ["cuda", "jit"]):
        return False
    options = {k.arg: getattr(k.value, "value", None) for k in decorator.keywords}
    return not decorator.args and options.get("device") is True and set(options) <= {"device", "inline"}


def _is_cuda_jit(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call) and not decorator.args and not decorator.keywords:
        decorator = decorator.func
    return attribute_chain(decorator) == ["cuda", "jit"]


def check_file(source: str) -> CheckedFile:
    """Check `source`'s limits, module level and the kernel's and launch's signatures; raise ProgramError
    naming the line. The bodies are checked by KernelPolicy and then LaunchPolicy (so a file with errors in
    both reports the kernel's)."""
    check_tokens(source)
    try:
        tree = ast.parse(source, filename="<kernel>")
    except SyntaxError as error:
        raise ProgramError(error.lineno or 0, f"syntax error: {error.msg}") from None
    except ValueError as error:  # a NUL byte (Python 3.11)
        raise ProgramError(0, f"syntax error: {error}") from None
    policy = ModulePolicy(tree.body[-1] if tree.body else None)
    for node in tree.body:
        policy.visit(node)
    kernel, launch = policy.kernel, policy.launch
    if kernel is None:
        raise ProgramError(0, "the file defines no `kernel` (a function decorated with @cuda.jit)")
    if launch is None:
        raise ProgramError(0, "the file defines no `def launch(M, N, K): return grid, block`")
    if "cuda" not in policy.imported:
        raise ProgramError(kernel.lineno, "the kernel uses `cuda`: add `from numba import cuda, float32`")
    params = _plain_params(kernel, 3, "kernel(A, B, C)")
    _plain_params(launch, 3, "launch(M, N, K)")
    for function in (kernel, launch):
        if function.returns is not None or getattr(function, "type_params", None):  # type_params: Python 3.12
            raise fail(function, f"`{function.name}` takes no return annotation or type parameters")
    return CheckedFile(
        constants=policy.constants,
        evaluator=policy.evaluator,
        kernel=inline(kernel, policy.devices),
        launch=launch,
        params=tuple(params),  # type: ignore[arg-type]
        uses_float32="float32" in policy.imported,
        modules=frozenset(policy.modules | (policy.imported & set(DTYPES))),
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
