"""Nouns that agree with their number: the one helper every template uses when it prints a count
beside a noun, so that no page reads "1 barriers" or "≈ 1 cycles" whatever the sizes."""

from __future__ import annotations


def plural(number: float, one: str, many: str | None = None) -> str:
    """`one` when `number` is exactly 1, otherwise `many` (by default `one` + "s")."""
    if number == 1:
        return one
    return one + "s" if many is None else many


def count(number: int, one: str, many: str | None = None) -> str:
    """The number with thousands separators and its noun: "1 barrier", "2,048 barriers"."""
    return f"{number:,} {plural(number, one, many)}"


def each_of(number: int, one: str, many: str | None = None) -> str:
    """ "each of the 4 threads", or "the one thread" where there is one: never "each of the 1 thread"."""
    return f"the one {one}" if number == 1 else f"each of the {number:,} {plural(number, one, many)}"
