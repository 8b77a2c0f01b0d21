"""Data flows one way: params -> pysim -> view. The views in site/app/ do no index arithmetic of a
kernel and compute no count: every size-dependent number comes from pysim."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


# pysim's counting modules: a view that imports them can count sectors, bank conflicts or warps itself.
COUNTING_MODULES = ("pysim.core.banks", "pysim.core.sectors", "pysim.core.warps")
# The one import of a counting module left, by (file, name): a tuple of the hierarchy quiz's access names,
# not a computation. Its view (not the playground's) should take it from elsewhere; then drop this.
NAMES_ONLY = {("views/hierarchy/page.py", "ACCESS_KINDS")}


def counting_imports(text: str) -> list[tuple[str, str]]:
    """(module, name) of every import of a counting module in `text` (name "" for `import module`)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names if alias.name in COUNTING_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module in COUNTING_MODULES:
                    found.append((node.module, alias.name))
                elif f"{node.module}.{alias.name}" in COUNTING_MODULES:
                    found.append((f"{node.module}.{alias.name}", ""))
    return found


def test_no_view_imports_the_counting_modules():
    """Sectors, bank degrees and warps reach a view only through pysim.core.lanes and pysim.play's
    RunResult (records to draw), never as the functions that compute them."""
    app = ROOT / "site" / "app"
    found = {}
    for path in sorted(app.rglob("*.py")):
        where = path.relative_to(app).as_posix()
        imports = [hit for hit in counting_imports(path.read_text()) if (where, hit[1]) not in NAMES_ONLY]
        if imports:
            found[where] = imports
    assert found == {}


def test_the_import_check_sees_every_form():
    assert counting_imports("from pysim.core import banks, lanes") == [("pysim.core.banks", "")]
    assert counting_imports("from pysim.core.sectors import warp_sectors") == [("pysim.core.sectors", "warp_sectors")]
    assert counting_imports("import pysim.core.warps") == [("pysim.core.warps", "")]
    assert counting_imports("from pysim.core import lanes") == []
