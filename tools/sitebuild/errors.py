"""The one error a build step raises, and how a command reports it."""

from __future__ import annotations

import sys


class BuildError(Exception):
    """A build step failed; the message says what and how to fix it."""


def report(error: BuildError) -> int:
    """One line on stderr; the exit status of a failed build."""
    print(f"build failed: {error}", file=sys.stderr)
    return 1
