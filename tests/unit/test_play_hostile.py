"""Hostile playground files, round four (issue 45, items 2 and 3): each is refused before it runs, naming its
line, or stopped by the deadline, and the command line says so in one line with exit 2, never a traceback.
Today's code ran the first two for hours within its step budget and crashed on the others (RecursionError,
MemoryError, a stack overflow in Pyodide)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_cli_submissions import run as cli  # `python -m pysim run FILE` at 8×8×8, as a subprocess

from pysim.play import ProgramError, run
from pysim.play.compiler import compile_program
from pysim.play.limits import MAX_BLOCKS, MAX_OPERATORS

ROOT = Path(__file__).resolve().parents[2]
ENDLESS = Path(__file__).parent / "play" / "endless_loop.py"
SECONDS = 60  # generous for a loaded two-core machine
BODY_LINE = 9  # where kernel() puts its body


def kernel(body: str, head: str = "") -> str:
    """A naive kernel with `body` inside its k loop (indented by the caller's lines)."""
    lines = "\n".join("        " + line for line in body.splitlines())
    return f"""from numba import cuda
{head}
@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.y * 4 + cuda.threadIdx.y
    col = cuda.blockIdx.x * 4 + cuda.threadIdx.x
    x = 0.0
    for k in range(A.shape[1]):
{lines}
    C[row, col] = x


def launch(M, N, K):
    return ((N + 3) // 4, (M + 3) // 4), (4, 4)
"""


def refusal(source: str) -> ProgramError:
    started = time.perf_counter()
    with pytest.raises(ProgramError) as raised:
        compile_program(source)
    assert time.perf_counter() - started < SECONDS
    return raised.value


def test_a_call_with_ten_thousand_arguments_is_refused():
    error = refusal(kernel("x = max(" + ", ".join(["x"] * 10_000) + ")"))
    assert (
        error.line == BODY_LINE and f"more than {MAX_OPERATORS} operators" in error.message and "`,`" in error.message
    )


def test_unpacking_three_thousand_names_is_refused():
    names = ", ".join(f"v{i}" for i in range(3_000))
    error = refusal(kernel(f"{names} = {', '.join(['x'] * 3_000)}"))
    assert error.line == BODY_LINE and "operators" in error.message


def test_a_statement_at_the_operator_limit_still_compiles():
    # 50 arguments: 49 commas, the call's bracket, and the `+` of each `x + 0.0`... kept under the limit.
    compile_program(kernel("x = max(" + ", ".join(["x"] * 50) + ")"))


def test_an_elif_chain_is_as_deep_as_its_branches():
    chain = "if k == 0:\n    x += 1.0\n" + "".join(f"elif k == {i}:\n    x += 1.0\n" for i in range(1, 600))
    error = refusal(kernel(chain))  # 600 branches, as a 1,000-branch chain would be
    assert f"more than {MAX_BLOCKS} deep" in error.message and "elif" in error.message
    module_chain = "if a:0\n" + "elif a:0\n" * 3_500  # at module level, as the 286-character link
    assert f"more than {MAX_BLOCKS} deep" in refusal(kernel("x += 1.0", head=module_chain)).message


def test_a_short_elif_chain_still_compiles():
    chain = "if k == 0:\n    x += 1.0\n" + "".join(f"elif k == {i}:\n    x += 2.0\n" for i in range(1, 8))
    compile_program(kernel(chain + "else:\n    x += 3.0"))


@pytest.mark.parametrize("inside", ["1+" * 15_000 + "1", "not " * 7_000 + "x"], ids=["sum", "not"])
def test_f_strings_are_refused_before_python_parses_them(inside):
    error = refusal(kernel(f'y = f"{{{inside}}}"'))
    assert "f-strings" in error.message and error.line == BODY_LINE


def test_a_parser_that_runs_out_of_stack_is_a_refusal(monkeypatch):
    import pysim.play.compiler as compiler

    def deep(source: str) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(compiler, "check_file", deep)
    assert "nested too deeply" in refusal("").message


def test_the_cli_refuses_each_with_one_line_and_exit_2(tmp_path):
    for name, source in {
        "elif.py": "if a:0\n" + "elif a:0\n" * 3_600,
        "fstring.py": 'x = f"{' + "1+" * 15_000 + '1}"\n',
        "max.py": kernel("x = max(" + ", ".join(["x"] * 10_000) + ")"),
    }.items():
        (tmp_path / name).write_text(source)
        done = cli(tmp_path / name, "--json")
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, (name, done.stderr)
        assert json.loads(done.stdout)["ended"] == "refused"


def test_the_cli_stops_a_run_at_its_deadline(tmp_path):
    started = time.perf_counter()
    done = cli(ENDLESS, "--timeout", "2", "--max-steps", "10000000000", "--json")
    assert time.perf_counter() - started < 30
    assert done.returncode == 2 and "--timeout 2" in done.stderr
    assert json.loads(done.stdout)["ended"] == "timeout"


def test_the_json_says_how_a_run_ended():
    assert json.loads(cli(ENDLESS, "--max-steps", "2000", "--json").stdout)["ended"] == "budget"
    tiled = ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py"
    assert json.loads(cli(tiled, "--json").stdout)["ended"] == "done"
    assert run(tiled.read_text(), 8, 8, 8).completed
