"""The house rules as tests: no source file over 500 lines, no import cycle among our modules.

The third rule, no view importing pysim's counting modules, is tests/views/test_views_draw_only.py.
Each rule is checked on the tree and, with a made-up case, shown to see what it forbids.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 500
# Where our code lives (JavaScript included); node_modules and built output never sit under these.
SOURCE_FOLDERS = ("pysim", "site", "tools")
# Top-level Python packages and the folder each is imported from (site/ is on the page's path, as app).
PACKAGES = {"pysim": ROOT, "tools": ROOT, "app": ROOT / "site"}


def too_long(paths: Iterable[Path]) -> dict[str, int]:
    """{file name: line count} of every file over the limit."""
    counts = {path.as_posix(): len(path.read_text(encoding="utf-8").splitlines()) for path in paths}
    return {path: lines for path, lines in counts.items() if lines > MAX_LINES}


def sources() -> list[Path]:
    return sorted(p for folder in SOURCE_FOLDERS for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".js"})


def test_no_source_file_is_over_500_lines():
    assert sources(), "the rule reads our files"
    assert too_long(sources()) == {}


def test_the_line_check_sees_a_long_file(tmp_path):
    at_limit, over = tmp_path / "at_limit.py", tmp_path / "over.js"
    at_limit.write_text("x = 1\n" * MAX_LINES)
    over.write_text("x = 1;\n" * (MAX_LINES + 1))
    assert too_long([at_limit, over]) == {over.as_posix(): MAX_LINES + 1}


def module_names() -> dict[str, tuple[Path, bool]]:
    """{dotted name: (file, is a package)} of every module of ours."""
    found = {}
    for top, base in PACKAGES.items():
        for path in (base / top).rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imports_of(source: str, name: str, package: bool, known: set[str]) -> set[str]:
    """The modules of ours that `source` (module `name`) imports, anywhere in it (a function's import too)."""

    def ours(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    here = name if package else name.rpartition(".")[0]
    found: set[str | None] = set()
    tree = ast.parse(source)
    for block in [node for node in ast.walk(tree) if isinstance(node, ast.If) and _type_checking(node.test)]:
        block.body = []  # imports for type hints only: never run, so no cycle at run time
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {ours(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"  # `from pkg import module` imports the module itself
                found.add(child if child in known else ours(base))
    return {module for module in found if module and module != name}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {
        name: imports_of(path.read_text(encoding="utf-8"), name, package, set(modules))
        for name, (path, package) in modules.items()
    }


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph` ([] if there is none)."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def test_no_import_cycle():
    assert cycle(import_graph()) == []


def test_the_cycle_check_sees_a_cycle():
    graph = import_graph()
    assert graph["pysim.cli"], "the graph holds our imports"
    made_up = {**graph, "pysim.core.trace": graph["pysim.core.trace"] | {"pysim.cli"}}
    assert "pysim.cli" in cycle(made_up) or "pysim.core.trace" in cycle(made_up)


def test_relative_and_function_imports_are_read():
    known = {"app", "app.core", "app.core.dom", "app.views", "app.views.tiling"}
    source = "from ..core import dom\ndef f():\n    from . import tiling\nif TYPE_CHECKING:\n    from .. import views\n"
    assert imports_of(source, "app.views.stepping", False, known) == {"app.core.dom", "app.views.tiling"}
