"""launch(M, N, K): plain integer arithmetic that returns (grid, block)."""

from __future__ import annotations

import ast

from ..program import fail
from ..subset import describe, is_docstring
from . import check_name


class LaunchPolicy(ast.NodeVisitor):
    """`launch` is plain integer arithmetic: assignments, if, return, min/max/abs/int, numbers and names.

    Tuples are shapes only: a tuple of numbers assigned to a name (which then holds a shape) or returned as
    grid or block, and `a, b = x, y`. Nothing else may hold or build one, so none can grow (`t = t + t`,
    `(1,) * 10**9`). What passes is rebuilt and compiled by `pysim.play.rebuild.rebuild_launch`.
    """

    STATEMENTS = (ast.Assign, ast.AugAssign, ast.If, ast.Return, ast.Pass, ast.Expr)
    EXPRESSIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Constant, ast.Name, ast.Call)

    def __init__(self) -> None:
        self.shapes: set[str] = set()  # names assigned a tuple

    def check(self, function: ast.FunctionDef) -> None:
        for index, statement in enumerate(function.body):
            if not (index == 0 and is_docstring(statement)):
                self.visit(statement)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not isinstance(node, self.STATEMENTS):
            raise fail(node, f"{describe(node)} is not allowed in launch(); compute grid and block with arithmetic")
        if isinstance(node, ast.expr) and not isinstance(node, self.EXPRESSIONS):
            raise fail(node, f"{describe(node)} is not allowed in launch()")
        super().generic_visit(node)

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
        if not (isinstance(value, ast.Tuple) and len(value.elts) in (2, 4)):
            raise fail(
                node, "launch() returns (grid, block), or (grid, block, 0, shared bytes) for dynamic shared memory"
            )
        for item in value.elts:
            if isinstance(item, ast.Tuple):
                self.shape(item)
            elif not (isinstance(item, ast.Name) and item.id in self.shapes):
                self.visit(item)

    def shape(self, node: ast.Tuple) -> None:
        """A grid or block shape: a tuple of numbers."""
        for item in node.elts:
            self.visit(item)

    def visit_Expr(self, node: ast.Expr) -> None:
        if not is_docstring(node):
            raise fail(node, "launch() may only assign and return")
        super().generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        raise fail(node, "launch() may use only numbers, M, N, K and module constants")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        raise fail(node, "launch() may use only numbers, M, N, K and module constants")

    def visit_Call(self, node: ast.Call) -> None:
        if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "abs", "int")):
            raise fail(node, "launch() may call only min, max, abs and int")
        if node.keywords:
            raise fail(node, "launch() calls take no keyword arguments")
        super().generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        check_name(node, node.id)
        if node.id in self.shapes:
            raise fail(node, f"{node.id!r} holds a shape (a tuple): launch() may only return it")

    def visit_Tuple(self, node: ast.Tuple) -> None:
        raise fail(node, "a tuple in launch() is a grid or block shape: assign it to a name or return it")

    def visit_BinOp(self, node: ast.BinOp | ast.AugAssign) -> None:
        if isinstance(node.op, (ast.Pow, ast.LShift)):
            raise fail(node, "launch() uses + - * / // % and min/max (not ** or <<)")
        super().generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit_BinOp(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if type(node.value) not in (int, float, bool):
            raise fail(node, "launch() may use only numbers")
