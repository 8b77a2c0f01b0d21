"""Small builders of the AST nodes the rewrites add (`pysim.play.rewrite`, `pysim.play.rebuild`)."""

from __future__ import annotations

import ast

from .limits import INT_LIMIT
from .subset import attribute_chain

FLOAT32_BUFFER = "_pl_F"  # the runtime's array('f') of one element, which rounds what is stored in it


def call(name: str, *args: ast.expr) -> ast.Call:
    """`name(*args)`."""
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def constant(value: int) -> ast.Constant:
    return ast.Constant(value=value)


def load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def increment(name: str) -> ast.stmt:
    """`name += 1`."""
    return ast.AugAssign(target=ast.Name(id=name, ctx=ast.Store()), op=ast.Add(), value=constant(1))


def assign(name: str, value: ast.expr) -> ast.stmt:
    """`name = value`."""
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)


def stored(target: ast.expr, value: ast.expr, node: ast.stmt, integer: bool = False) -> list[ast.stmt]:
    """`target = value`, where a variable's last rounding or 64-bit check is done inline (in Pyodide the calls
    cost about twice the inline rounding and four times the inline check, and most statements end with one):

    - a value rounded to float32 last (`_pl_f32(e)`) goes through the runtime's one-float buffer, as
      `_pl_f32` rounds it: `_pl_F[0] = e; x = _pl_F[0]`;
    - a value typed an integer (`integer`) checked to fit in 64 bits (`_pl_int(e)`) is compared with the
      limits, and `_pl_int` is called (to refuse it) only past them: `x = e; if not -2**63 <= x < 2**63: ...`.
    """
    wrapped = value if isinstance(value, ast.Call) and isinstance(target, ast.Name) else None
    function = attribute_chain(wrapped.func) if wrapped is not None else None
    out: list[ast.stmt]
    if wrapped is not None and function == ["_pl_f32"]:
        buffer = [
            ast.Subscript(value=load(FLOAT32_BUFFER), slice=constant(0), ctx=ctx) for ctx in (ast.Store(), ast.Load())
        ]
        out = [ast.Assign(targets=[buffer[0]], value=wrapped.args[0]), ast.Assign(targets=[target], value=buffer[1])]
    elif wrapped is not None and integer and function == ["_pl_int"]:
        name = target.id  # type: ignore[attr-defined]  # a Name: `wrapped` is None otherwise
        fits = ast.Compare(
            left=ast.Constant(value=-INT_LIMIT),
            ops=[ast.LtE(), ast.Lt()],
            comparators=[load(name), ast.Constant(value=INT_LIMIT)],
        )
        refuse = assign(name, call("_pl_int", load(name)))
        check = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=fits), body=[refuse], orelse=[])
        out = [ast.Assign(targets=[target], value=wrapped.args[0]), check]
    else:
        out = [ast.Assign(targets=[target], value=value)]
    return [ast.copy_location(item, node) for item in out]
