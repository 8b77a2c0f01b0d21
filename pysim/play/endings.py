"""How a run ended: one of SPEC §7's five words, the same in the page's status line, its run summary and the
CLI's JSON ("ended"), so a teacher's script and a student's screen never disagree about a run.

- done: every thread ran to its end (a wrong C or a race is still done: the diagnostics say what went wrong);
- budget: the step budget stopped it (the words name the budget);
- stopped: the reader pressed Stop;
- timeout: the wall-clock limit stopped it;
- refused: it could not run (the subset refused it, it raised before running, or it crashed the interpreter).
"""

from __future__ import annotations

from collections.abc import Iterable

from .diagnostics import Diagnostic

ENDINGS = ("done", "budget", "stopped", "timeout", "refused")
# Why the page's runner ended a request without a reply (site/app/views/playground/runner.py), as an ending.
# A crashed interpreter is "refused", as the CLI reports a run that ran out of stack or memory.
FAILURE_ENDINGS = {"stopped": "stopped", "timeout": "timeout", "crashed": "refused", "error": "refused"}


def run_ending(diagnostics: Iterable[Diagnostic]) -> str:
    """A run that came back: "budget" when the step budget stopped it, else "done"."""
    return "budget" if any(d.kind == "step_budget" for d in diagnostics) else "done"


def ending_words(ended: str, max_steps: int, seconds: float | None = None) -> str:
    """The ending as the status line and the summary begin it: the word, then what it means."""
    took = f" after {seconds:.2f} s" if seconds is not None else ""
    meaning = {
        "done": f"the kernel ran to its end{took}",
        "budget": f"stopped by the step budget of {max_steps:,} steps{took}; the kernel did not finish",
        "stopped": f"you stopped the run{took}",
        "timeout": f"the run took too long and was stopped{took}",
        "refused": "the kernel could not run",
    }[ended]
    return f"{ended}: {meaning}"
