"""`python -m pysim run FILE`: a playground file run, and graded, on a teacher's machine (SPEC §5).

A grading loop meets every file a class hands in, so nothing a file does may stop the loop: the file is read
safely (pysim/submission.py), every refusal is one line and exit 2, and the whole run has a deadline
(`--timeout`, 60 s by default) besides the step budget, since one step can still cost milliseconds.
How the run ended is one of SPEC §7's words (pysim/play/endings.py), in the JSON's "ended": done, budget, timeout
or refused (a command line has no Stop button, so never "stopped").
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from .core.constants import MAX_SIZE
from .core.counters import COUNTER_LABELS
from .hardware.params import ParamError, parse_int
from .text import one_line

# The CLI grades files on a laptop, so it allows more steps than the browser's default.
RUN_MAX_STEPS = 50_000_000
DEFAULT_TIMEOUT_S = 60


class TimedOut(BaseException):
    """The run's deadline passed. A BaseException, so no `except Exception` on the way (the runtime turns a
    student's exceptions into diagnostics) can swallow it."""


def add_run_parser(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("run", help="run a playground file (a Numba-CUDA kernel, SPEC §5) on the simulator")
    sub.add_argument("file", metavar="FILE", help="the kernel file: kernel(A, B, C) and launch(M, N, K)")
    for option in ("M", "N", "K"):
        sub.add_argument(f"--{option}", metavar="VALUE", default="32", help="size (default 32)")
    sub.add_argument(
        "--seed", type=int, default=0, choices=range(0, 1 << 16), metavar="SEED", help="seed of the input matrices"
    )
    sub.add_argument("--max-steps", default=str(RUN_MAX_STEPS), metavar="STEPS", help="step budget (all threads)")
    sub.add_argument(
        "--timeout",
        default=str(DEFAULT_TIMEOUT_S),
        metavar="SECONDS",
        help=f"stop the run (and its grading) after this many seconds, exit 2 (default {DEFAULT_TIMEOUT_S}; 0: none)",
    )
    sub.add_argument("--puzzle", metavar="NAME", help="also grade the file against a playground puzzle")
    sub.add_argument("--json", action="store_true", help="one JSON object: counters, c_matches, diagnostics")
    sub.add_argument(
        "--sass",
        action="store_true",
        help="also compile the kernel (Numba-CUDA's PTX, ptxas; no GPU needed) and report its instructions",
    )


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise TimedOut in this (the main) thread once `seconds` have passed; 0 sets none."""
    if seconds == 0:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def refuse(args: argparse.Namespace, ended: str, message: str) -> int:
    """One line on stderr (and with --json, the ending on stdout too); exit 2."""
    print(f"error: {one_line(args.file)}: {one_line(message)}", file=sys.stderr)
    if args.json:
        print(json.dumps({"file": args.file, "ended": ended, "error": message}))
    return 2


def run_file(args: argparse.Namespace) -> int:
    """Exit 0 when the kernel ran (even with a wrong C, or stopped by the step budget), 2 when it cannot run
    or its deadline passed."""
    from .play import ProgramError, run
    from .play.endings import run_ending
    from .play.puzzles import PUZZLE_BY_KEY
    from .submission import SubmissionError, read_submission

    try:
        M, N, K = (parse_int(name, getattr(args, name), 1, MAX_SIZE) for name in ("M", "N", "K"))
        max_steps = parse_int("max-steps", args.max_steps, 1, 10**10)
        timeout = parse_int("timeout", args.timeout, 0, 7 * 24 * 3600)
    except ParamError as error:
        print(f"error: {one_line(error.message)}", file=sys.stderr)
        return 2
    puzzle = None
    if args.puzzle is not None:
        puzzle = PUZZLE_BY_KEY.get(args.puzzle)
        if puzzle is None:
            choices = ", ".join(PUZZLE_BY_KEY)
            print(f"error: --puzzle must be one of {choices} (got {one_line(args.puzzle)!r})", file=sys.stderr)
            return 2
    try:
        source = read_submission(args.file)
    except SubmissionError as error:
        return refuse(args, "refused", str(error))
    expected = puzzle.expected if puzzle else None
    try:
        with deadline(timeout):
            result = run(source, M, N, K, seed=args.seed, max_steps=max_steps, keep=False, expected=expected)
            grade = puzzle.grade(source) if puzzle is not None else None
    except ProgramError as error:
        return refuse(args, "refused", str(error))
    except (RecursionError, MemoryError) as error:
        return refuse(
            args, "refused", f"the run ran out of {'stack' if isinstance(error, RecursionError) else 'memory'}"
        )
    except TimedOut:
        graded = " and its grading" if puzzle is not None else ""
        return refuse(args, "timeout", f"the run{graded} took longer than --timeout {timeout} s; stopped")
    ended = run_ending(result.diagnostics)
    compiled, failed = compiled_sass(source, args.file) if args.sass else (None, None)
    if args.json:
        found = {"file": args.file, "ended": ended, **result.as_dict()}
        if grade is not None:
            found["puzzle"] = grade.as_dict()
        if args.sass:
            found["sass"] = compiled if compiled is not None else {"error": failed}
        print(json.dumps(found))
        return 2 if failed else 0
    print(f"{one_line(args.file)}: M={M}, N={N}, K={K}, grid={result.launch.grid}, block={result.launch.block}")
    for name, value in result.counters.as_dict().items():
        print(f"  {COUNTER_LABELS[name]:<22}{value:>24,}")
    verdict = "yes" if result.c_matches else f"NO ({result.mismatches} element(s) differ)"
    print(f"  {'C matches NumPy':<22}{verdict:>24}")
    for diagnostic in result.diagnostics:
        print(f"  line {diagnostic.line}: {diagnostic.kind}: {one_line(diagnostic.message)}")
    if grade is not None:
        print(f"puzzle {grade.puzzle}: {'passed' if grade.passed else 'not yet'}")
        for check in grade.checks:
            mark = "ok " if check.passed else "NO "
            print(f"  {mark} {check.size}: {check.label} ({check.value} vs {check.relation} {check.limit})")
            if check.detail and not check.passed:
                print(f"       {one_line(check.detail)}")
    if compiled is not None:
        from tools.sass.playground import sentences

        print("compiled (what the GPU would run):")
        for sentence in sentences(compiled):
            print(f"  {sentence}")
    return 2 if failed else 0


def compiled_sass(source: str, name: str) -> tuple[dict | None, str | None]:
    """tools/sass/playground.py's report of the file, or the one-line reason there is none (printed on stderr):
    the compiler is a test dependency of a TileLab checkout, imported only here."""
    try:
        from tools.sass import playground, toolchain
    except ImportError:
        failed = "--sass runs from a TileLab checkout (it needs tools/sass)"
    else:
        try:
            return playground.report(source, name), None
        except (toolchain.MissingToolchainError, toolchain.CompileError) as error:
            failed = str(error)
    print(f"error: --sass: {one_line(failed)}", file=sys.stderr)
    return None, failed
