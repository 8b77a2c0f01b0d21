"""Numba's types for a kernel's values, found before the run, so arithmetic rounds as the GPU's does.

Numba compiles a kernel with static types, and the GPU rounds every float32
operation to float32 (`add.rn.f32`, `mul.rn.f32`). A float32 product that is an
operand of a float32 addition or subtraction in the same expression is *contracted*:
NVVM compiles with `-fma=1` by default, whatever `fastmath` says (NVIDIA/numba-cuda#118,
numba#2834), so `acc += x*y` is one `fma.rn.f32(x, y, acc)`, rounded once (`contracted`,
`fma32`; as LLVM combines `fadd(fmul(a, b), c)`, the left product first). A product kept
in a variable first is rounded there; NVVM may still fuse it, which TileLab does not
model. Python computes in float64, so the rewrite (`pysim.play.rewrite`) rounds the
result of every operation this module types float32. The rules are Numba's, checked
against `numba.njit` in tests/test_play_arithmetic.py:

- loads from the float32 arrays and `float32(x)` are float32; float literals and
  `float(i)` of an integer are float64 (`float(x)` of a float32 stays float32);
  integers (literals, indices, `.shape`) are int64;
- float32 with float32 (or a bool) stays float32; float32 with an int or a
  float64 is float64 (`x * 2.0` and `x + 1` are float64 for a float32 `x`);
  `x ** n` keeps a float's type; `/` on two integers is float64;
- a variable's type where it is used is the join of the definitions that
  reach it (Numba's SSA: a loop-carried `acc = float32(0)` that meets a float64
  is float64 from the start).

The same pass finds the multiply-adds of each statement (SPEC §2 `fma`): a
float product that is an operand of a float addition or subtraction, so
`acc += a*b + c*d` holds two.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeGuard

from .intrinsics import call_type
from .subset import SPECIALS, attribute_chain

INT, F32, F64, BOOL, TUPLE, ARRAY, OTHER = "int64", "float32", "float64", "bool", "tuple", "array", "other"
FLOATS = (F32, F64)
NUMBERS = (BOOL, INT, F32, F64)
_ROUNDED_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_INTEGER_OPS = (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)


def join(a: str | None, b: str | None) -> str | None:
    """The type a variable has where two definitions meet (Numba's unification of numbers)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if a not in NUMBERS or b not in NUMBERS:
        return OTHER
    pair = {a, b}
    if pair == {BOOL, INT}:
        return INT
    if pair == {BOOL, F32}:
        return F32
    return F64


def arithmetic(left: str, op: ast.operator, right: str) -> str:
    """The type of `left op right` under Numba's rules."""
    if left not in NUMBERS or right not in NUMBERS:
        return OTHER
    if isinstance(op, _INTEGER_OPS):
        return INT
    integers = {left, right} <= {BOOL, INT}
    if isinstance(op, ast.Div) and integers:
        return F64
    if integers:
        return INT
    if isinstance(op, ast.Pow) and left in FLOATS and right in (BOOL, INT):
        return left  # Numba's powi keeps the float's type: float32(3) ** 2 is float32
    if {left, right} <= {BOOL, F32}:
        return F32
    return F64


Env = dict[str, str]


@dataclass(frozen=True)
class Contraction:
    """An addition NVVM fuses into one `fma.rn.f32`: (±)x·y + (±)z, in the order the source evaluates them."""

    x: ast.expr
    y: ast.expr
    z: ast.expr  # the addend (an `AugAssign`'s target)
    negate_product: bool  # `z - x*y`
    negate_addend: bool  # `x*y - z`
    addend_first: bool  # `z + x*y`, `acc += x*y`: the addend is evaluated first

    def call(self, expr: Callable[[ast.expr], ast.expr], addend: ast.expr | None = None) -> ast.expr:
        """The runtime's call (`_pl_mad` / `_pl_mad_z`, pysim.play.guards), its operands built by `expr` in the
        source's order; `addend` replaces `expr(z)` where the caller has built it (an element's load)."""
        operands: list[ast.expr] = []
        for part in ("z", "x", "y") if self.addend_first else ("x", "y", "z"):
            built = addend if part == "z" and addend is not None else expr(getattr(self, part))
            negate = self.negate_addend if part == "z" else part == "x" and self.negate_product
            operands.append(ast.UnaryOp(op=ast.USub(), operand=built) if negate else built)
        name = "_pl_mad_z" if self.addend_first else "_pl_mad"
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=operands, keywords=[])


class NumbaTypes:
    """Types every expression of a kernel body the way Numba would; `of(node)` reads the result.

    `constants` are the module-level constants; `params` the kernel's array parameters.
    """

    def __init__(
        self, constants: dict[str, int | float], params: Iterable[str], elements: dict[str, str] | None = None
    ) -> None:
        self.constants = constants
        self.params = frozenset(params)
        self.elements = elements or {}  # the element type of each shared or local array that is not float32
        self._types: dict[int, str] = {}  # id(expression node) -> type, at the loop fixpoint
        self._loop_exits: list[list[Env]] = []  # per enclosing loop: the environments at its `break`s
        self._loop_heads: list[list[Env]] = []  # per enclosing loop: the environments at its `continue`s

    def infer(self, body: list[ast.stmt]) -> None:
        self._block(body, {})

    def of(self, node: ast.AST) -> str:
        return self._types.get(id(node), OTHER)

    # --- statements ------------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], env: Env) -> Env:
        for statement in body:
            env = self._statement(statement, env)
        return env

    def _statement(self, node: ast.stmt, env: Env) -> Env:
        if isinstance(node, ast.Assign):
            value = self.expr(node.value, env)
            for target in node.targets:
                env = self._bind(target, value, node.value, env)
            return env
        if isinstance(node, ast.AugAssign):
            value = self.expr(node.value, env)
            current = self.expr(node.target, env)
            result = arithmetic(current, node.op, value)
            self._types[id(node)] = result
            return self._bind(node.target, result, None, env)
        if isinstance(node, ast.Expr):
            self.expr(node.value, env)
            return env
        if isinstance(node, ast.If):
            self.expr(node.test, env)
            return _join_envs([self._block(node.body, dict(env)), self._block(node.orelse, dict(env))])
        if isinstance(node, (ast.For, ast.While)):
            return self._loop(node, env)
        if isinstance(node, ast.Break) and self._loop_exits:
            self._loop_exits[-1].append(dict(env))
        if isinstance(node, ast.Continue) and self._loop_heads:
            self._loop_heads[-1].append(dict(env))
        return env

    def _loop(self, node: ast.For | ast.While, env: Env) -> Env:
        """Type the body until the environment at the loop's head stops changing (types only widen)."""
        if isinstance(node, ast.For):
            self.expr(node.iter, env)
        head = dict(env)
        while True:
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                head[node.target.id] = INT
            if isinstance(node, ast.While):
                self.expr(node.test, head)
            self._loop_exits.append([])
            self._loop_heads.append([])
            end = self._block(node.body, dict(head))
            exits, continues = self._loop_exits.pop(), self._loop_heads.pop()
            widened = _join_envs([head, end, *continues])
            if widened == head:
                return _join_envs([head, *exits])
            head = widened

    def _bind(self, target: ast.expr, value: str, value_node: ast.expr | None, env: Env) -> Env:
        env = dict(env)
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple):
            items = value_node.elts if isinstance(value_node, ast.Tuple) else [None] * len(target.elts)
            for item, node in zip(target.elts, items):
                if isinstance(item, ast.Name):
                    # a tuple of values keeps each one's type; `.shape` and `cuda.grid(2)` hold integers
                    env[item.id] = self.of(node) if node is not None else INT
        else:
            self.expr(target, env)
        return env

    # --- expressions -----------------------------------------------------------------------------
    def expr(self, node: ast.expr, env: Env) -> str:
        found = self._expr(node, env)
        self._types[id(node)] = found
        return found

    def _expr(self, node: ast.expr, env: Env) -> str:
        if isinstance(node, ast.Constant):
            return {bool: BOOL, int: INT, float: F64}.get(type(node.value), OTHER)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.params:
                return ARRAY
            if node.id in self.constants:
                return F64 if isinstance(self.constants[node.id], float) else INT
            return OTHER
        if isinstance(node, ast.BinOp):
            return arithmetic(self.expr(node.left, env), node.op, self.expr(node.right, env))
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand, env)
            if isinstance(node.op, ast.Not):
                return BOOL
            if isinstance(node.op, ast.Invert) or operand == BOOL:
                return INT
            return operand
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, env)
            return BOOL
        if isinstance(node, ast.IfExp):
            self.expr(node.test, env)
            return join(self.expr(node.body, env), self.expr(node.orelse, env)) or OTHER
        if isinstance(node, ast.Tuple):
            for item in node.elts:
                self.expr(item, env)
            return TUPLE
        if isinstance(node, ast.Attribute):
            chain = attribute_chain(node)
            if chain and len(chain) == 3 and chain[0] == "cuda" and chain[1] in SPECIALS:
                return INT
            if chain in (["cuda", "laneid"], ["cuda", "warpsize"]):
                return INT
            return TUPLE if node.attr == "shape" else OTHER
        if isinstance(node, ast.Subscript):
            for child in (node.value, node.slice):
                self.expr(child, env)
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return INT
            if self.of(node.value) == TUPLE:  # pos[0] of pos = cuda.grid(2)
                return INT
            root = node.value.value if isinstance(node.value, ast.Subscript) else node.value  # X[i][j]
            return self.elements.get(getattr(root, "id", ""), F32)  # A, B, C and the rest hold float32
        if isinstance(node, ast.Call):
            return self._call(node, env)
        return OTHER

    def _call(self, node: ast.Call, env: Env) -> str:
        args = [self.expr(arg, env) for arg in node.args]
        chain = attribute_chain(node.func) or []
        if chain in (["cuda", "grid"], ["cuda", "gridsize"]):
            return INT if node.args and getattr(node.args[0], "value", None) == 1 else TUPLE
        found_call = call_type(chain, args)
        if found_call is not None:
            return found_call
        if chain[:1] == ["cuda"] and chain[1:] in (["syncthreads_count"], ["syncthreads_and"], ["syncthreads_or"]):
            return INT
        if chain[:2] == ["cuda", "atomic"]:  # the old value of the element
            return self.elements.get(getattr(node.args[0], "id", "") if node.args else "", F32)
        if chain in (["cuda", "shared", "array"], ["cuda", "local", "array"], ["cuda", "const", "array_like"]):
            return ARRAY
        name = chain[0] if len(chain) == 1 else ""
        if name in ("min", "max"):
            found: str | None = None
            for arg in args:
                found = join(found, arg)
            return found or OTHER
        if name == "abs":
            return INT if args and args[0] == BOOL else (args[0] if args else OTHER)
        if name == "float":
            return F32 if args and args[0] == F32 else F64  # Numba's float() keeps a float32 a float32
        return {"int": INT, "len": INT, "float32": F32, "int32": INT, "int64": INT, "float64": F64}.get(name, OTHER)

    # --- multiply-adds ---------------------------------------------------------------------------
    def multiply_adds(self, statement: ast.stmt) -> list[ast.BinOp]:
        """The float products of `statement` (not of the statements nested in it) that are added."""
        found: list[ast.BinOp] = []
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub)):
            if self.of(statement) in FLOATS:
                found += self._products([statement.value])
        roots: list[ast.expr] = []
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.Expr)):
            roots = [statement.value]
        elif isinstance(statement, (ast.If, ast.While)):
            roots = [statement.test]
        for root in roots:
            for node in ast.walk(root):
                if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and self.of(node) in FLOATS:
                    found += self._products([node.left, node.right])
        return found

    def _products(self, operands: list[ast.expr]) -> list[ast.BinOp]:
        return [
            node
            for node in operands
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and self.of(node) in FLOATS
        ]

    def contracted(self, node: ast.BinOp | ast.AugAssign) -> Contraction | None:
        """The fused multiply-add NVVM makes of a float32 `+` or `-` with a float32 product operand, if any."""
        if not isinstance(node.op, (ast.Add, ast.Sub)) or self.of(node) != F32:
            return None
        sub = isinstance(node.op, ast.Sub)
        if isinstance(node, ast.AugAssign):
            value = node.value
            return (
                Contraction(value.left, value.right, node.target, sub, False, True)
                if self._f32_product(value)
                else None
            )
        left, right = node.left, node.right
        if self._f32_product(left):  # LLVM's combine takes fadd's first operand first
            return Contraction(left.left, left.right, right, False, sub, False)
        if self._f32_product(right):
            return Contraction(right.left, right.right, left, sub, False, True)
        return None

    def _f32_product(self, node: ast.expr) -> TypeGuard[ast.BinOp]:
        return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and self.of(node) == F32

    def rounds(self, node: ast.AST, op: ast.operator) -> bool:
        """Whether the result of this operation must be rounded to float32."""
        return isinstance(op, _ROUNDED_OPS) and self.of(node) == F32


def _join_envs(envs: list[Env]) -> Env:
    joined: Env = {}
    for env in envs:
        for name, found in env.items():
            joined[name] = join(joined.get(name), found) or OTHER
    return joined
