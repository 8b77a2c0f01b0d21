"""Data flows one way: params -> pysim -> view. The views in site/app/ do no index arithmetic of a
kernel and compute no count: every size-dependent number comes from pysim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = r"(?:M|N|K|T|BM|BN|BK|TM|TN|n|TILE|pad)"
# A kernel size used as an operand of arithmetic: `p.T * ty`, `row % p.BM`, `self.params.TM + 1`.
ARITHMETIC = re.compile(
    rf"(?:\b(?:p|params|self\.params|w)\.{SIZES}\b\s*(?://|[*%+\-/])(?!=))|(?:(?://|[*%+\-/])\s*\b(?:p|params|self\.params|w)\.{SIZES}\b)"
)


def offending_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if ARITHMETIC.search(line) and not line.strip().startswith("#")]


def test_no_kernel_arithmetic_in_the_views():
    found = {}
    for path in sorted((ROOT / "site" / "app").rglob("*.py")):
        lines = offending_lines(path.read_text())
        if lines:
            found[path.name] = lines
    assert found == {}


def test_the_check_sees_arithmetic():
    assert offending_lines("tx = (col % p.BN) // p.TN")
    assert offending_lines("reads = p.TM + p.TN")
    assert not offending_lines('text = f"TILE = {p.T}"')
