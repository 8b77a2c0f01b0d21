"""launch() rebuilt out of its checked statements alone: no decorators, annotations or type parameters,
and every integer it computes bounded to 64 bits (`_pl_int`, pysim.play.launch.launch_int), so a chain of
`x = x * x` cannot freeze the page.
"""

from __future__ import annotations

import ast
from typing import cast

from . import nodes
from .subset import RESERVED, is_docstring


def rebuild_launch(function: ast.FunctionDef) -> ast.FunctionDef:
    """launch() rebuilt from its checked statements alone (pysim.play.policy.launch), with every operation's
    integer bounded (`_pl_int`, pysim.play.launch.launch_int)."""
    body = [
        _BoundedArithmetic().visit(statement)
        for index, statement in enumerate(function.body)
        if not (index == 0 and is_docstring(statement))
    ]
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
        type_params=[],  # type: ignore[call-arg]  # Python 3.12's field (see KernelRewriter.rewrite)
    )
    return ast.fix_missing_locations(ast.copy_location(rebuilt, function))


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
        return ast.copy_location(nodes.assign(name, self.visit(value)), node)

    def bounded(self, node: ast.expr) -> ast.expr:
        inner = cast(ast.expr, self.generic_visit(node))
        return ast.copy_location(nodes.call(RESERVED + "int", inner), node)
