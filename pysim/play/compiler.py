"""Compile a playground file: check it against the subset, rewrite its kernel, and keep the result.

The checks are the policy's (`pysim.play.policy`): the module level, then the kernel's body, then launch()'s
(so a file with mistakes in both bodies is refused at the kernel's). Both functions are then compiled from
trees the rewrite built (the rewritten kernel, the rebuilt `launch`), never from the student's own nodes,
and with `dont_inherit=True`: no `__future__` flag of this module (`annotations` would leave an annotation
unevaluated) changes what a student's code means.
"""

from __future__ import annotations

import ast

from .policy.kernel import KernelPolicy
from .policy.launch import LaunchPolicy
from .policy.module import check_file
from .program import Program, beyond_python_is_a_refusal
from .rebuild import rebuild_launch
from .rewrite import KernelRewriter


def compile_program(source: str) -> Program:
    """Check `source` against the subset and compile it; raise ProgramError naming the line."""
    with beyond_python_is_a_refusal():
        return _compile(source)


def _compile(source: str) -> Program:
    checked = check_file(source)
    KernelPolicy(checked.evaluator, checked.uses_float32, checked.modules).check(checked.kernel)
    LaunchPolicy().check(checked.launch)
    rewriter = KernelRewriter(checked.evaluator)
    generator = rewriter.rewrite(checked.kernel)
    module = ast.Module(body=[generator], type_ignores=[])
    ast.fix_missing_locations(module)
    launch_module = ast.Module(body=[rebuild_launch(checked.launch)], type_ignores=[])
    return Program(
        source=source,
        constants=dict(checked.constants),
        params=checked.params,
        sites=tuple(rewriter.sites),
        statements=tuple(rewriter.statements),
        allocations=tuple(rewriter.allocations),
        barriers=frozenset(rewriter.barriers),
        kernel_code=compile(module, "<kernel>", "exec", dont_inherit=True),
        launch_code=compile(launch_module, "<kernel>", "exec", dont_inherit=True),
        constant_arrays=tuple(checked.evaluator.arrays.values()),
    )
