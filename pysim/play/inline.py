"""Device functions (`@cuda.jit(device=True)`), inlined into the kernel before the subset's check.

Numba inlines small device functions too; here every call is, so the kernel's check (`pysim.play.policy`),
types and rewrite see one body. A statement that calls `f(a, b)` becomes, before it:

    x__f = a          # each parameter bound once, at the call's line (an argument that is a plain name
    y__f = b          #   the function never assigns is passed as that name: an array stays the array)
    <f's body, its names renamed `name__f` and its lines its own>
    result__f = <f's returned expression>

and the call itself becomes `result__f`. So a diagnostic inside `f` names `f`'s line. A device function
returns once, as its last statement (or never: a call standing alone); it may not recurse (the playground
inlines, and a GPU's stack is not modelled), and the inlined kernel stays within MAX_INLINED statements.
Calls may stand wherever an expression is evaluated once: not in a `while` test, and not where a condition
decides whether they run (`and`, `or`, `x if c else y`).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from typing import TypeVar

from .program import ProgramError, fail

MAX_INLINED = 1000  # statements of the kernel once every call is inlined (the reference solutions hold < 60)
MAX_DEPTH = 8  # device functions calling device functions
Node = TypeVar("Node", bound=ast.AST)


def check_device(node: ast.FunctionDef) -> None:
    """`@cuda.jit(device=True) def f(a, b, ...)`: plain parameters, one return as the last statement."""
    args = node.args
    if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
        raise fail(node, f"define the device function as `def {node.name}(a, b, ...)` (plain parameters)")
    body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
    for inner in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(inner, ast.Return) and inner is not body[-1]:
            raise fail(inner, f"device function {node.name!r} returns before its end: return once, last")
        if isinstance(inner, ast.FunctionDef):
            raise fail(inner, "a nested function is not part of the subset")


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _calls(node: ast.AST, devices: dict[str, ast.FunctionDef]) -> Iterator[ast.Call]:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in devices:
            yield inner


class Inliner:
    """Inline every device function call of a kernel."""

    def __init__(self, devices: dict[str, ast.FunctionDef]) -> None:
        self.devices = devices
        self.count = 0  # calls inlined (each one's names get a fresh suffix)
        self.statements = 0
        self.taken: set[str] = set()
        self.numbers: dict[str, int] = {}  # fresh(): how many names each base has given

    def kernel(self, function: ast.FunctionDef) -> ast.FunctionDef:
        if not self.devices:
            return function
        self.taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} | {a.arg for a in function.args.args}
        inlined = copy.copy(function)
        inlined.body = self.block(function.body, ())
        return inlined

    def block(self, body: list[ast.stmt], stack: tuple[str, ...]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in body:
            out.extend(self.statement(statement, stack))
        return out

    def statement(self, node: ast.stmt, stack: tuple[str, ...]) -> list[ast.stmt]:
        self.count_statements(node, 1)
        node = copy.copy(node)
        before: list[ast.stmt] = []
        standing = node.value if isinstance(node, ast.Expr) else None
        if isinstance(standing, ast.Call) and next(_calls(standing, self.devices), None) is standing:
            alone = copy.copy(standing)  # `f(x)` on a line of its own
            alone.args = [self.expression(argument, before, stack) for argument in alone.args]
            self.call(alone, before, stack, standalone=True)
            return before
        if isinstance(node, ast.While):
            for call in _calls(node.test, self.devices):
                raise fail(call, "call a device function before the while loop, not in its test")
        for field in ("value", "test", "iter", "target"):
            part = getattr(node, field, None)
            if isinstance(part, ast.expr) and not isinstance(node, ast.While):
                setattr(node, field, self.expression(part, before, stack))
        if isinstance(node, ast.Assign):
            node.targets = [self.expression(target, before, stack) for target in node.targets]
        for field in ("body", "orelse"):
            if isinstance(getattr(node, field, None), list):
                setattr(node, field, self.block(getattr(node, field), stack))
        return [*before, node]

    def expression(self, node: ast.expr, before: list[ast.stmt], stack: tuple[str, ...]) -> ast.expr:
        """`node` with each device call replaced by its result's name, the calls' bodies appended to `before`."""
        if next(_calls(node, self.devices), None) is None:
            return node  # nothing to inline: the node is shared, never changed
        for inner in ast.walk(node):
            if isinstance(inner, (ast.BoolOp, ast.IfExp)):
                for call in _calls(inner, self.devices):
                    raise fail(call, "call the device function on a line of its own, not inside and/or/if-else")
        inliner = self

        class Calls(ast.NodeTransformer):
            def visit_Call(self, call: ast.Call) -> ast.expr:
                self.generic_visit(call)  # arguments first, as Python evaluates them
                if isinstance(call.func, ast.Name) and call.func.id in inliner.devices:
                    return inliner.call(call, before, stack, standalone=False)
                return call

        return Calls().visit(copy.deepcopy(node))

    def count_statements(self, node: ast.AST, added: int) -> None:
        """Count `added` statements of the inlined kernel, refusing it past MAX_INLINED."""
        self.statements += added
        if self.statements > MAX_INLINED:
            raise fail(
                node, f"the kernel holds more than {MAX_INLINED:,} statements once its device functions are inlined"
            )

    def fresh(self, name: str, function: str) -> str:
        """`name__function`, numbered from 2 when taken (each base keeps its count: no search over the taken)."""
        base = f"{name}__{function}"
        n = self.numbers.get(base, 0)
        candidate = base if n == 0 else f"{base}{n + 1}"
        while candidate in self.taken:
            n += 1
            candidate = f"{base}{n + 1}"
        self.numbers[base] = n + 1
        self.taken.add(candidate)
        return candidate

    def call(self, call: ast.Call, before: list[ast.stmt], stack: tuple[str, ...], standalone: bool) -> ast.expr:
        name = call.func.id  # type: ignore[attr-defined]
        function = self.devices[name]
        if name in stack:
            cycle = " -> ".join((*stack[stack.index(name) :], name))
            raise fail(call, f"device function {name!r} calls itself ({cycle}): recursion is not supported")
        if len(stack) >= MAX_DEPTH:
            raise fail(call, f"device functions call each other more than {MAX_DEPTH} deep")
        params = [a.arg for a in function.args.args]
        self.count_statements(call, len(params) + 1)  # the bindings and the result
        if call.keywords or len(call.args) != len(params) or any(isinstance(a, ast.Starred) for a in call.args):
            raise fail(call, f"{name} takes {len(params)} argument(s): {name}({', '.join(params)})")
        body = function.body[1:] if function.body and _is_docstring(function.body[0]) else list(function.body)
        assigned = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        renames: dict[str, str] = {}
        for param, argument in zip(params, call.args):
            if isinstance(argument, ast.Name) and param not in assigned:
                renames[param] = argument.id  # an array (or a variable) passed as itself
                continue
            renames[param] = self.fresh(param, name)
            bind = ast.Assign(targets=[ast.Name(id=renames[param], ctx=ast.Store())], value=argument)
            before.append(ast.copy_location(bind, call))
        for local in sorted(assigned - set(params)):
            renames[local] = self.fresh(local, name)
        returns = bool(body) and isinstance(body[-1], ast.Return)
        returned = body[-1].value if returns else None  # type: ignore[attr-defined]
        if returned is None and not standalone:
            raise fail(call, f"device function {name!r} returns no value: call it on a line of its own")
        inlined = [_renamed(statement, renames) for statement in (body[:-1] if returns else body)]
        before.extend(self.block(inlined, (*stack, name)))
        result = self.fresh("result", name)
        if returned is not None:
            value = self.expression(_renamed(returned, renames), before, (*stack, name))
            assign = ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())], value=value)
            before.append(ast.copy_location(assign, returned))
        return ast.copy_location(ast.Name(id=result, ctx=ast.Load()), call)


def _renamed(node: Node, renames: dict[str, str]) -> Node:
    copied = copy.deepcopy(node)
    for inner in ast.walk(copied):
        if isinstance(inner, ast.Name) and inner.id in renames:
            inner.id = renames[inner.id]
    return copied


def inline(kernel: ast.FunctionDef, devices: dict[str, ast.FunctionDef]) -> ast.FunctionDef:
    """The kernel with every device call inlined; ProgramError naming the line of a call it cannot inline."""
    try:
        return Inliner(devices).kernel(kernel)
    except RecursionError:
        raise ProgramError(kernel.lineno, "the device functions nest too deeply to inline") from None
