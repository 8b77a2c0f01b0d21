"""The playground's stages keep to their jobs (issue 37): every refusal of the subset is the policy's, so the
rewrite only transforms, and no record table is read by a bare column number."""

import ast
import re
from pathlib import Path

PLAY = Path(__file__).resolve().parents[2] / "pysim" / "play"
TRANSFORMS = ("compiler.py", "rewrite.py", "rebuild.py", "nodes.py", "numba_types.py")
# Record tables (pysim.play.columns): a subscript whose last index is a bare number, as in `rows[:, 4]`.
BARE_COLUMN = re.compile(r"\[\s*:\s*,\s*\d+\s*\]")


def raised_names(path: Path) -> set[str]:
    """What the module's `raise` statements name: `raise fail(...)` -> "fail"."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            found.add(ast.unparse(target))
    return found


def test_the_rewrite_refuses_nothing_the_policy_does():
    for name in TRANSFORMS:
        assert not raised_names(PLAY / name), name


def test_the_kernel_policy_refuses_what_it_does_not_know():
    """One visit_<Node> per allowed node kind; any other kind reaches generic_visit, which refuses it."""
    from pysim.play import ProgramError, compile_program

    source = "from numba import cuda\n\n@cuda.jit\ndef kernel(A, B, C):\n    x = [1]\n\ndef launch(M, N, K):\n    return 1, 1\n"
    try:
        compile_program(source)
    except ProgramError as error:
        assert (error.line, error.message) == (5, "a list is not part of the kernel subset (SPEC §5)")
    else:
        raise AssertionError("a list in a kernel was accepted")


def test_no_record_table_is_read_by_a_bare_column_number():
    for path in sorted(PLAY.glob("*.py")):
        assert not BARE_COLUMN.findall(path.read_text(encoding="utf-8")), path.name


def test_the_package_names_every_public_name_and_imports_a_stage_only_when_asked():
    """pysim.play re-exports (PEP 562): `import pysim.play` runs no stage, so the page's import plan brings the
    simulator in one module at a time; each name it lists comes from its stage."""
    import subprocess
    import sys
    from importlib import import_module

    import pysim.play

    for name in pysim.play.__all__:
        stage = import_module(f"pysim.play.{pysim.play.EXPORTS[name]}")
        assert getattr(pysim.play, name) is getattr(stage, name), name
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, pysim.play; print(sorted(m for m in sys.modules if 'pysim.play.' in m))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=PLAY.parents[1],
    )
    assert loaded.stdout.strip() == "[]"
