"""`run`: compile a playground file, launch its kernel on pysim, and analyse every interval.

Pipeline: `compiler` checks the file against the subset (`policy`) and rewrites the kernel into a
generator (`rewrite`); `scheduler` runs every thread of a block, barrier interval by barrier interval,
through the access functions of `guards`, recording every access with its iteration vector; `counting`
gathers the records of a few hundred intervals into one table and counts its warp instructions in bulk
(`table`, `pysim.core.bulk`), finding races (`races`) and barrier divergence (`divergence`) on the way;
the result (`results`) rebuilds the Step each interval shows only when a reader looks at it (`replay`).

`run` raises `ProgramError` (with a line) only when the file cannot run at all: not in the subset, a
syntax error, a launch that asks for too many threads. A kernel that runs but misbehaves gives a result
with diagnostics, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ..core.matrices import operands
from .columns import A_ARRAY, B_ARRAY, C_ARRAY, array_table
from .compiler import compile_program
from .counting import Analysis
from .launch import evaluate_launch, sized
from .limits import DEFAULT_MAX_STEPS
from .memory import StaleReads
from .program import Program, ProgramError
from .replay import Decoder
from .results import IntervalRecord, RunResult
from .runtime import Runtime, global_array
from .scheduler import Interval, Stop, schedule

# Accesses the analysis walks before it counts them in bulk (pysim.play.table): large enough that NumPy's
# per-call cost is spread over many intervals, small enough that the table stays a few megabytes.
CHUNK_ROWS = 1 << 15


def run(
    source: str | Program,
    M: int,
    N: int,
    K: int,
    *,
    seed: int = 0,
    A: np.ndarray | None = None,
    B: np.ndarray | None = None,
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    keep: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Run a playground file's kernel at M×N×K on TileLab's operands (pysim.core.matrices) and analyse it.

    `keep=False` drops the per-thread streams after counting (CLI, grading):
    the result then has no intervals, and memory stays small at large sizes.
    `progress(threads, steps)` hears after each interval: the threads that ended in it, the steps so far.
    Raises ProgramError only when the file cannot run.
    """
    program = source if isinstance(source, Program) else compile_program(source)
    for name, value in (("M", M), ("N", N), ("K", K)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ProgramError(0, f"{name} must be a whole number of at least 1 (got {value!r})")
    launch = evaluate_launch(program, M, N, K)
    program = sized(program, launch)
    default_A, default_B = operands(M, N, K, seed)
    A = default_A if A is None else np.asarray(A, dtype=np.float32)
    B = default_B if B is None else np.asarray(B, dtype=np.float32)
    C = np.zeros((M, N), dtype=np.float32)
    table = array_table(program, A, B, C)
    decoder = Decoder(program, launch, table)

    def execute(shown: frozenset[tuple[int, int]]) -> _Execution:
        arrays = (
            global_array(program.params[0], A_ARRAY, A),
            global_array(program.params[1], B_ARRAY, B),
            global_array(program.params[2], C_ARRAY, C),
        )
        runtime = Runtime(program, max_steps)
        analysis = Analysis(program, launch, table, runtime.vectors, runtime.records, runtime.values, shown=shown)
        for number, array in enumerate(arrays):
            racy = frozenset(word for n, word in shown if n == number)
            if racy:
                array.data = StaleReads(array.data, racy, runtime)
        kept: list[IntervalRecord] = []
        walked: list[Interval] = []  # intervals walked by the analysis, not yet counted

        def count() -> None:
            for interval, counted in zip(walked, analysis.flush()):
                kept.append(
                    IntervalRecord(
                        index=len(kept),
                        block=interval.block,
                        number=interval.number,
                        barrier_lines=analysis.barrier_lines(interval),
                        threads=tuple(map(itemgetter(0), interval.segments)),
                        finished=interval.finished,
                        _streams=dict(interval.segments),
                        _decoder=decoder,
                        _counted=counted,
                    )
                )
            walked.clear()

        def on_interval(interval: Interval) -> None:
            analysis.walk(interval)
            if progress is not None:  # the playground's worker shows it while the run goes on
                progress(len(interval.finished), runtime.executed)
            if not keep:
                if analysis.pending_rows >= CHUNK_ROWS:
                    analysis.flush()
                return
            walked.append(interval)
            if analysis.pending_rows >= CHUNK_ROWS:
                count()

        stop = schedule(program, launch, arrays, runtime, on_interval)
        if keep:
            count()
        else:
            analysis.flush()
        analysis.races.global_races()
        analysis.diagnostics.out_of_bounds(runtime.out_of_bounds)
        analysis.diagnostics.warp(runtime.warp_problems)
        if stop is not None:
            analysis.diagnostics.stop(stop)
        return _Execution(analysis, runtime, stop, arrays[2].to_numpy(), tuple(kept))

    done = execute(frozenset())
    if done.analysis.races.racy_words and done.stop is None:
        # Threads ran one after another, so a racing update saw the other's store: run again with the racy
        # words read as concurrent threads can see them (pysim.play.memory), so C shows a GPU's outcome.
        done = execute(frozenset(done.analysis.races.racy_words))
    analysis = done.analysis
    reference = (expected or (lambda a, b: a @ b))(A, B)
    return RunResult(
        program=program,
        M=M,
        N=N,
        K=K,
        launch=launch,
        A=A,
        B=B,
        C=done.C,
        expected=np.asarray(reference, dtype=np.float32),
        counters=analysis.counters,
        metrics=analysis.metrics,
        diagnostics=analysis.diagnostics.ordered,
        intervals=done.intervals,
        loaded=(analysis.loaded(A_ARRAY), analysis.loaded(B_ARRAY)),
        completed=done.stop is None,
        steps=done.runtime.executed,
    )


@dataclass(frozen=True)
class _Execution:
    """One launch of the kernel: its analysis, runtime, why it stopped (None: it finished), C and intervals."""

    analysis: Analysis
    runtime: Runtime
    stop: Stop | None
    C: np.ndarray
    intervals: tuple[IntervalRecord, ...]
