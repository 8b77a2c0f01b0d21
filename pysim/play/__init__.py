"""The kernel playground: run a student's Numba-CUDA kernel (SPEC §5) on pysim.

    from pysim.play import run
    result = run(source, M=32, N=32, K=32)

The stages, each a module: `tokens` and `policy` (the subset: what a file may hold), `compiler` and
`rewrite` (the kernel as a per-thread generator), `launch`, `runtime`, `guards` and `scheduler` (the run),
`counting`, `table`, `races` and `divergence` (the analysis), `results` and `replay` (what a reader
steps through), `execute` (`run`, which ties them together), `limits` and `columns` (the numbers and
the record layouts they share), `session` (the page's worker) and `puzzles`. This module only names
what other code imports.
"""

from .compiler import compile_program
from .counting import Metrics
from .diagnostics import Diagnostic
from .execute import run
from .instructions import WarpInstruction
from .launch import Launch
from .limits import DEFAULT_MAX_STEPS
from .program import Program, ProgramError
from .replay import AccessRecord, ThreadStep
from .results import IntervalRecord, RunResult

__all__ = [
    "DEFAULT_MAX_STEPS",
    "AccessRecord",
    "Diagnostic",
    "IntervalRecord",
    "Launch",
    "Metrics",
    "Program",
    "ProgramError",
    "RunResult",
    "ThreadStep",
    "WarpInstruction",
    "compile_program",
    "run",
]
