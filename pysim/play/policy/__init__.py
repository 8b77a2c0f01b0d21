"""Every refusal of the SPEC §5 subset: what a playground file may hold, node kind by node kind.

As RestrictedPython's transformer, each policy has one `visit_<Node>` per node kind it allows and refuses
every other kind (`generic_visit`), so a file cannot import, reach attributes such as `__class__`, or call
anything but the few builtins and `cuda` functions a teaching kernel needs. Each refusal is a
`ProgramError` naming the line. `module.check_file` checks the module level, `kernel.KernelPolicy` the
kernel's body and `launch.LaunchPolicy` launch()'s; the rewrite (`pysim.play.rewrite`) then only
transforms what passed. The limits checked before parsing are `pysim.play.tokens`'; the names and
operators of the subset are `pysim.play.subset`'s. This module holds what the three share.
"""

from __future__ import annotations

import ast
from typing import Any

from ..evaluate import ConstantEvaluator
from ..program import ProgramError, fail
from ..subset import REFUSED_CALLS, RESERVED, attribute_chain

ALLOCATIONS = (["cuda", "shared", "array"], ["cuda", "local", "array"])
MAX_EXTENT = 1 << 20  # an allocation's extent past this is refused as too large


def check_name(node: ast.AST, name: str) -> None:
    if name.startswith(RESERVED) or (name.startswith("__") and name.endswith("__")):
        raise fail(node, f"the name {name!r} is reserved; choose another")


def refuse_call(node: ast.Call) -> None:
    """Refuse a call from REFUSED_CALLS with its reason, naming the line."""
    reason = REFUSED_CALLS.get(".".join(attribute_chain(node.func) or []))
    if reason is not None:
        raise fail(node, reason)


def allocation_arguments(call: ast.Call) -> dict[str, ast.expr]:
    """`cuda.shared.array(shape, dtype)`'s arguments by name, given by position or keyword."""
    arguments = dict(zip(("shape", "dtype"), call.args))
    for keyword in call.keywords:
        if keyword.arg not in ("shape", "dtype") or keyword.arg in arguments:
            raise fail(call, f"cuda.{attribute_chain(call.func)[1]}.array takes (shape, dtype)")  # type: ignore[index]
        arguments[keyword.arg] = keyword.value
    return arguments


def allocation_shape(evaluator: ConstantEvaluator, call: ast.Call) -> tuple[Any, ...]:
    """The constant shape of an allocation, as a tuple."""
    try:
        shape = evaluator.value(allocation_arguments(call)["shape"])
    except ProgramError as error:
        raise ProgramError(
            call.lineno, f"the shape must be a constant (numbers and module-level constants): {error.message}"
        ) from None
    return shape if isinstance(shape, tuple) else (shape,)
