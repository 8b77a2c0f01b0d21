"""The kernel playground: run a student's Numba-CUDA kernel (SPEC §5) on pysim.

    from pysim.play import run
    result = run(source, M=32, N=32, K=32)

The stages, each a module: `tokens` and `policy` (the subset: what a file may hold), `compiler` and
`rewrite` (the kernel as a per-thread generator), `launch`, `runtime`, `guards` and `scheduler` (the run),
`counting`, `table`, `races` and `divergence` (the analysis), `results` and `replay` (what a reader
steps through), `execute` (`run`, which ties them together), `limits` and `columns` (the numbers and
the record layouts they share), `session` and `protocol` (the page's worker) and `puzzles`. This module
only names what other code imports, each imported from its stage when first asked for (PEP 562): importing
one stage (`pysim.play.limits`, `pysim.play.session`) runs only what that stage needs, and the page's
import plan (tools/sitebuild/import_plan.py) brings the simulator in one module at a time, not as one
long task.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees (`name as name`: a re-export)
    from .compiler import compile_program as compile_program
    from .counting import Metrics as Metrics
    from .diagnostics import Diagnostic as Diagnostic
    from .execute import run as run
    from .instructions import WarpInstruction as WarpInstruction
    from .launch import Launch as Launch
    from .limits import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
    from .program import Program as Program
    from .program import ProgramError as ProgramError
    from .replay import AccessRecord as AccessRecord
    from .replay import ThreadStep as ThreadStep
    from .results import IntervalRecord as IntervalRecord
    from .results import RunResult as RunResult

# Each public name and the stage it lives in.
EXPORTS = {
    "DEFAULT_MAX_STEPS": "limits",
    "AccessRecord": "replay",
    "Diagnostic": "diagnostics",
    "IntervalRecord": "results",
    "Launch": "launch",
    "Metrics": "counting",
    "Program": "program",
    "ProgramError": "program",
    "RunResult": "results",
    "ThreadStep": "replay",
    "WarpInstruction": "instructions",
    "compile_program": "compiler",
    "run": "execute",
}
__all__ = list(EXPORTS)


def __getattr__(name: str) -> Any:
    stage = EXPORTS.get(name)
    if stage is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{stage}", __name__), name)
