"""The values of a file's constant expressions: module constants and the shapes of its arrays.

Numbers, earlier module constants and arithmetic; a whole number stays within 64 bits (`limits.INT_LIMIT`,
Numba's int64), decided before computing `**` and `<<` (1 << 10**8 takes seconds). What is not a constant
is refused, naming the line.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from .constants import ConstantArray
from .limits import INT_LIMIT, past_64_bits
from .program import fail
from .subset import BINARY_OPS, REFUSED_CALLS, attribute_chain


class ConstantEvaluator:
    """Values of module-level constant expressions: numbers, earlier constants, arithmetic; and the module's
    NumPy arrays (`arrays`, pysim.play.constants), which the kernel reads from constant memory."""

    def __init__(self, constants: dict[str, int | float], arrays: dict[str, ConstantArray] | None = None) -> None:
        self.constants = constants
        self.arrays = {} if arrays is None else arrays

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
            if isinstance(node.op, (ast.Pow, ast.LShift)) and past_64_bits(isinstance(node.op, ast.Pow), left, right):
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
        if isinstance(node, ast.Call) and ".".join(attribute_chain(node.func) or []) in REFUSED_CALLS:
            raise fail(node, REFUSED_CALLS[".".join(attribute_chain(node.func) or [])])  # print(), cuda.activemask()
        raise fail(node, "this must be a constant: numbers, module-level integer constants and arithmetic")


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
