"""The CSS selectors the views ask for, matched against elements."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Protocol


class Matchable(Protocol):
    """What a selector reads of an element (nodes.Element)."""

    @property
    def localName(self) -> str: ...

    @property
    def attributes(self) -> dict[str, str]: ...

    @property
    def parentNode(self) -> Matchable | None: ...


# --- selectors (what the views ask for: tag, #id, .class, [attr], [attr="v"], [attr^="v"], [attr~="v"],
# `A B`, `A > B`, `A, B`)
COMPOUND = re.compile(r"""([a-zA-Z][\w-]*|\*)?((?:[#.][\w-]+|\[[\w-]+(?:[~^]?=(?:"[^"]*"|'[^']*'|[^\]]*))?\])*)""")
PART = re.compile(r"""([#.])([\w-]+)|\[([\w-]+)(?:([~^]?=)("[^"]*"|'[^']*'|[^\]]*))?\]""")


@dataclass(frozen=True)
class Compound:
    """One compound selector: tag ("" for any), then (attribute, operator, value) tests."""

    tag: str
    tests: tuple[tuple[str, str, str], ...]

    def matches(self, node: Matchable) -> bool:
        if self.tag and node.localName != self.tag:
            return False
        for name, op, want in self.tests:
            have = node.attributes.get(name)
            if have is None:
                return False
            if op == "=" and have != want:
                return False
            if op == "^=" and not have.startswith(want):
                return False
            if op == "~=" and want not in have.split():
                return False
        return True


@functools.cache
def compile_selector(selector: str) -> tuple[tuple[Compound | str, ...], ...]:
    """Each alternative as compounds and combinators (" " or ">"), right to left."""
    alternatives = []
    for alternative in selector.split(","):
        chain: list[Compound | str] = []
        for token in re.sub(r"\s*>\s*", " > ", alternative.strip()).split():
            found = COMPOUND.fullmatch(token)
            if token == ">":
                chain.append(">")
                continue
            if found is None:
                raise ValueError(f"the build's DOM does not understand the selector {token!r}")
            if chain and chain[-1] != ">":
                chain.append(" ")
            tag, rest = found.groups()
            tests = []
            for mark, name, attr, op, raw in PART.findall(rest):
                if mark == "#":
                    tests.append(("id", "=", name))
                elif mark == ".":
                    tests.append(("class", "~=", name))
                else:
                    tests.append((attr, op, raw.strip("\"'")))
            chain.append(Compound("" if tag in (None, "", "*") else tag.lower(), tuple(tests)))
        alternatives.append(tuple(chain[::-1]))
    return tuple(alternatives)


def _chain_matches(node: Matchable | None, chain: tuple[Compound | str, ...]) -> bool:
    head = chain[0]
    if node is None or not isinstance(head, Compound) or not head.matches(node):
        return False
    if len(chain) == 1:
        return True
    if chain[1] == ">":
        return _chain_matches(node.parentNode, chain[2:])
    ancestor = node.parentNode
    while ancestor is not None:
        if _chain_matches(ancestor, chain[2:]):
            return True
        ancestor = ancestor.parentNode
    return False


def matches(node: Matchable, selector: str) -> bool:
    return any(_chain_matches(node, chain) for chain in compile_selector(selector))


# --- markup in -------------------------------------------------------------------------------------
