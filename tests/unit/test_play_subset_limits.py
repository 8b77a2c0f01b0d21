"""Limits before work (pysim.play.tokens): a file is refused, naming the line and the limit, before the parser
or the constant evaluator can be made to work without end; natural kernels stay within every limit."""

import __future__

import ast
import sys
import time
from pathlib import Path

import pytest

from app.views import codeurl
from pysim.play import ProgramError, compile_program, run
from pysim.play.limits import MAX_BLOCKS, MAX_BRACKETS, MAX_OPERATORS, MAX_SOURCE_BYTES

HEAD = "from numba import cuda, float32\n\n"
KERNEL = "@cuda.jit\ndef kernel(A, B, C):\n    C[0, 0] = 1.0\n\n\n"
LAUNCH = "def launch(M, N, K):\n    return 1, 1\n"


def refusal(source: str) -> ProgramError:
    with pytest.raises(ProgramError) as caught:
        compile_program(source)
    return caught.value


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.fixture
def no_parse(monkeypatch):
    """Fails the test after it if ast.parse was reached: each refusal must come before the parser."""
    parsed = []
    original = ast.parse

    def parse(source, filename="<unknown>", *args, **kwargs):
        if filename == "<kernel>":  # the playground's (pytest parses too, to show a failure)
            parsed.append(source)
        return original(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    yield
    monkeypatch.undo()
    assert not parsed, "ast.parse saw a file past the limits"


def test_a_16000_term_sum_is_refused_before_the_parser_and_quickly(no_parse):
    # The link: 214 characters of zlib + base64 in the address, 32,003 bytes of code: inside the size cap.
    source = HEAD + "X = " + "+".join(["1"] * 16_000) + "\n" + KERNEL + LAUNCH
    assert len(codeurl.encode(source)) < 400 and len(source.encode()) <= MAX_SOURCE_BYTES
    start = time.perf_counter()
    error = refusal(source)
    assert time.perf_counter() - start < 2.0  # generous for a loaded machine: the refusal stops at term 101
    assert error.line == line_of(source, "X = ") and f"more than {MAX_OPERATORS} operators" in error.message


@pytest.mark.parametrize(
    "expression, over",
    [
        ("+".join(["1"] * (MAX_OPERATORS + 2)), "operators"),  # MAX_OPERATORS + 1 pluses (`=` is no operator)
        ("A" + "[0]" * (MAX_OPERATORS + 1), "operators"),  # trailers nest in the tree without nesting brackets
        ("not " * (MAX_OPERATORS + 1) + "1", "operators"),
        ("(" * (MAX_BRACKETS + 1) + "1" + ")" * (MAX_BRACKETS + 1), "brackets"),
    ],
    ids=["sum", "subscripts", "not", "brackets"],
)
def test_long_or_deep_expressions_are_refused_before_the_parser(no_parse, expression, over):
    source = HEAD + KERNEL.replace("C[0, 0] = 1.0", f"x = {expression}") + LAUNCH
    error = refusal(source)
    assert error.line == line_of(source, "x = ") and over in error.message


def test_the_limits_leave_room_for_natural_code():
    at_the_limit = "+".join(["1"] * (MAX_OPERATORS + 1))  # MAX_OPERATORS pluses: within
    deep = "(" * MAX_BRACKETS + "1" + ")" * MAX_BRACKETS
    source = HEAD + KERNEL.replace("C[0, 0] = 1.0", f"x = {at_the_limit}\n    y = {deep}") + LAUNCH
    compile_program(source)


def test_blocks_nested_past_the_limit_are_refused(no_parse):
    body = (
        "".join("    " * (depth + 1) + "if M > 0:\n" for depth in range(MAX_BLOCKS + 1))
        + "    " * (MAX_BLOCKS + 2)
        + "pass\n"
    )
    source = HEAD + KERNEL + "def launch(M, N, K):\n" + body + "    return 1, 1\n"
    error = refusal(source)
    # launch's body is the first block (its line follows `def launch`), each `if` opens the next.
    assert error.line == len((HEAD + KERNEL).splitlines()) + 2 + MAX_BLOCKS and str(MAX_BLOCKS) in error.message


def test_a_file_past_the_link_cap_is_refused_at_the_line_that_crosses_it(no_parse):
    assert MAX_SOURCE_BYTES == codeurl.MAX_SOURCE_BYTES  # one limit: what a link can hold is what runs
    padding = "# " + "x" * 70 + "\n"
    source = HEAD + KERNEL + LAUNCH + padding * (MAX_SOURCE_BYTES // len(padding) + 1)
    error = refusal(source)
    crossing = source.encode()[:MAX_SOURCE_BYTES].count(b"\n") + 1  # by hand: the line holding byte MAX_SOURCE_BYTES
    assert error.line == crossing and f"{MAX_SOURCE_BYTES:,}" in error.message


@pytest.mark.parametrize(
    "constant",
    [
        "(1 << 10**8) - 1",
        "1 << 63",
        "2 ** 63",
        "3 ** 65536",
        "3 ** 10**7",
        "-(-(2**62) * 2) - 1",
        "99999999999999999999",
        "1e308 * 10",
    ],
)
def test_module_constants_past_64_bits_are_refused_with_their_line_before_computing(constant):
    source = HEAD + "T = 4\nX = " + constant + "\n" + KERNEL + LAUNCH
    start = time.perf_counter()
    error = refusal(source)
    assert time.perf_counter() - start < 1.0
    assert error.line == 4 and ("64 bits" in error.message or "finite" in error.message)


def test_module_constants_within_64_bits_are_exact():
    source = HEAD + "X = (1 << 62) - 1 + (1 << 62)\nY = -(2**62) * 2\nZ = 2.0**-3\n" + KERNEL + LAUNCH
    assert compile_program(source).constants == {"X": 2**63 - 1, "Y": -(2**63), "Z": 0.125}


@pytest.mark.parametrize(
    "launch, offset, fragment",
    [
        ("def launch(M, N, K) -> print('annotation'):\n    return 1, 1\n", 0, "annotation"),
        ("def launch(M, N, K):\n    t = (1,) * 1000000000\n    return t, 1\n", 1, "tuple"),
        ("def launch(M, N, K):\n    g = (1, 1)\n    g = g + g\n    return g, 1\n", 2, "shape"),
        ("def launch(M, N, K):\n    g = (1, 1)\n    g += g\n    return g, 1\n", 2, "shape"),
        ("def launch(M, N, K):\n    s = 'a' * 1000000000\n    return 1, 1\n", 1, "numbers"),
    ],
    ids=["annotation", "repeat", "concatenate", "augmented", "string"],
)
def test_launch_is_checked_whole_and_cannot_grow_a_tuple(launch, offset, fragment):
    error = refusal(HEAD + KERNEL + launch)
    assert error.line == len((HEAD + KERNEL).splitlines()) + 1 + offset and fragment in error.message


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters are Python 3.12 syntax (Pyodide runs 3.12)")
def test_launch_with_type_parameters_is_refused():
    error = refusal(HEAD + KERNEL + "def launch[T](M, N, K):\n    return 1, 1\n")
    assert "type parameters" in error.message


def test_natural_launch_shapes_are_accepted():
    launch = (
        "def launch(M, N, K):\n    bx, by = 8, 4\n    grid = ((N + bx - 1) // bx, (M + by - 1) // by)\n"
        "    block = (bx, by)\n    if M > 100:\n        block = (bx, by)\n    return grid, block\n"
    )
    result = run(HEAD + KERNEL + launch, 9, 7, 1)
    assert (result.launch.grid, result.launch.block) == ((1, 3), (8, 4))


def test_integers_launch_computes_are_bounded():
    squarings = "".join("    x = x * x\n" for _ in range(40))  # 2**(2**40) without the bound: the page freezes
    source = HEAD + KERNEL + "def launch(M, N, K):\n    x = M + 1\n" + squarings + "    return 1, 1\n"
    start = time.perf_counter()
    with pytest.raises(ProgramError) as caught:
        run(source, 2, 2, 2)
    assert time.perf_counter() - start < 1.0
    # (M + 1) = 3: 3**(2**k) passes 2**63 at k = 6, the sixth squaring.
    assert caught.value.line == line_of(source, "x = M + 1") + 6 and "64 bits" in caught.value.message


def test_both_functions_compile_without_this_module_s_future_flags():
    program = compile_program(HEAD + KERNEL + LAUNCH)
    flag = __future__.annotations.compiler_flag
    assert not program.kernel_code.co_flags & flag and not program.launch_code.co_flags & flag


def test_the_page_states_the_limits_pysim_enforces():
    page = (Path(__file__).resolve().parents[2] / "site" / "partials" / "view-playground.html").read_text()
    for slot, value in (
        ("max_source_bytes", MAX_SOURCE_BYTES),
        ("max_operators", MAX_OPERATORS),
        ("max_brackets", MAX_BRACKETS),
        ("max_blocks", MAX_BLOCKS),
    ):
        assert f'<span data-slot="{slot}">{value:,}</span>' in page, slot
