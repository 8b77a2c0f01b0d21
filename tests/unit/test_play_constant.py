"""Constant memory (issue 43, pysim.play.constants): module-level NumPy arrays read directly or through
cuda.const.array_like, counted as constant reads (neither global nor shared loads) with the passes the
constant cache serves a warp's request in; a store into one, and a form the playground cannot hold, are
refused with the line. Numba's simulator gives the same C (tests/unit/test_play_subset3.py, constant_memory.py)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pysim.play import ProgramError, run

HEAD = "import numpy as np\nfrom numba import cuda, float32\n\nW = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5], dtype=np.float32)\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1


def kernel(body: str, launch: str = "1, 32", head: str = HEAD) -> str:
    return head + body + f"\n\ndef launch(M, N, K):\n    return {launch}\n"


def test_one_word_for_the_warp_is_one_pass_and_eight_words_are_eight():
    body = "    t = cuda.threadIdx.x\n    c = cuda.const.array_like(W)\n    C[0, t] = W[0]\n    C[1, t] = c[t % 8]\n"
    weights = np.arange(8) + 0.5
    expected = np.stack([np.full(32, 0.5), weights[np.arange(32) % 8]])
    result = run(kernel(body), 2, 32, 1, expected=lambda A, B: expected)
    assert result.c_matches and not result.diagnostics, result.diagnostics
    m = result.metrics
    assert (m.constant_loads, m.constant_requests, m.constant_passes) == (64, 2, 1 + 8)
    assert result.counters.global_loads == 0 and result.counters.shared_loads == 0


def test_the_json_names_the_constant_reads(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(kernel("    C[0, cuda.threadIdx.x] = W[cuda.threadIdx.x % 2]\n"))
    out = subprocess.run(
        [sys.executable, "-m", "pysim", "run", str(path), "--M", "1", "--N", "32", "--K", "1", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    metrics = json.loads(out.stdout)["metrics"]
    assert (metrics["constant_loads"], metrics["constant_requests"], metrics["constant_passes"]) == (32, 1, 2)


def test_dtypes_and_two_dimensions_read_as_numpy_holds_them():
    head = HEAD.replace(
        "W = np.array(",
        "R = np.arange(3, 9, 2, dtype=np.int32)\nD = np.array([[1.0 / 3.0, 2.0], [4.0, 5.0]])\nW = np.array(",
    )
    body = "    C[0, 0] = R[2] + R[0]\n    C[0, 1] = D[0, 0] * 3.0\n    C[0, 2] = D.shape[0] + len(R)\n"
    result = run(kernel(body, "1, 1", head), 1, 3, 1, expected=lambda A, B: np.array([[10.0, 1.0, 5.0]]))
    assert result.c_matches and not result.diagnostics, result.diagnostics


STORE = "constant memory (a module-level NumPy array, frozen into the kernel): it cannot be written"


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("    W[0] = 1.0\n", STORE),
        ("    c = cuda.const.array_like(W)\n    c[1] += 1.0\n", STORE),
        ("    cuda.atomic.add(W, 0, 1.0)\n", STORE),
        ("    c = cuda.const.array_like(A)\n", "cuda.const.array_like takes a module-level NumPy array"),
        ("    x = W\n", "W is a constant array: read its elements"),
        ("    W = 2\n", "'W' is constant memory (W): it cannot be assigned"),
        ("    C[0, 0] = cuda.const.array_like(W)[0]\n", "only named arrays can be indexed"),
    ],
)
def test_a_store_into_constant_memory_or_a_misuse_is_refused_with_its_line(body, fragment):
    with pytest.raises(ProgramError) as caught:
        run(kernel(body), 1, 1, 1)
    assert caught.value.line == FIRST + body.count("\n") - 1 and fragment in caught.value.message, caught.value


@pytest.mark.parametrize(
    "definition,fragment",
    [
        ("W = np.array([1.0, 2.0], dtype=np.float16)", "pass dtype=np.float32, np.float64, np.int32 or np.int64"),
        ("W = np.arange(20000, dtype=np.float32)", "takes 80,000 bytes; constant memory holds 65,536 (64 KB)"),
        ("W = np.array([2**40], dtype=np.int32)", "does not fit in int32"),
        ("W = np.array([1e39], dtype=np.float32)", "does not fit in float32 (it would be infinite)"),
        ("W = np.arange(0, 1e308, 1e-308)", "constant memory holds 65,536 (64 KB)"),
        ("W = np.array([[1.0, 2.0], [3.0]])", "rows of a 2-D constant array"),
        ("W = np.zeros(4)", "np.zeros is not supported: make a constant array with np.array"),
        ("W = cuda.const.array_like(1)", "call cuda.const.array_like inside the kernel"),
        ("W = np.array(A)", "np.array takes a list of numbers here"),
    ],
)
def test_a_constant_array_the_playground_cannot_hold_is_refused_at_its_line(definition, fragment):
    text = kernel("    pass\n").replace(
        "W = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5], dtype=np.float32)", definition
    )
    with pytest.raises(ProgramError) as caught:
        run(text, 1, 1, 1)
    assert caught.value.line == 4 and fragment in caught.value.message, caught.value


def test_numpy_is_imported_as_np_or_not_at_all():
    for head, fragment in (
        (HEAD.replace("import numpy as np\n", ""), "import NumPy first: `import numpy as np`"),
        (HEAD.replace("import numpy as np", "import numpy"), "`import numpy as np`"),
    ):
        with pytest.raises(ProgramError) as caught:
            run(kernel("    pass\n", head=head), 1, 1, 1)
        assert fragment in caught.value.message, caught.value
