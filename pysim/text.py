"""Text for a terminal: what the command line prints of a name or message it did not write itself."""

from __future__ import annotations


def one_line(message: str) -> str:
    """The message with every unprintable character escaped, so it stays on one line (and a file named with
    terminal escapes cannot clear the teacher's screen or retitle the window)."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)
