"""3-D shared and local arrays, and 8-byte (float64, int64) shared arrays (issue 43 item 1), counted like the
rest; Numba's simulator gives the same C (tests/unit/test_play_subset3.py: shared_3d.py, shared_float64.py)."""

import pytest

from pysim.play import ProgramError, run

HEAD = "from numba import cuda, float32, float64, int64\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1


def kernel(body: str, launch: str = "1, 32") -> str:
    return HEAD + body + f"\n\ndef launch(M, N, K):\n    return {launch}\n"


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("    t = cuda.shared.array((2, 2, 2, 2), float32)\n", "one, two or three whole numbers"),
        ("    t = cuda.shared.array((2, 2, 2), float32)\n    t[0][1][1] = 1.0\n", "index a 3-D array as X[i, j, k]"),
    ],
)
def test_a_fourth_dimension_or_chained_3d_indexing_is_refused_with_the_line(body, fragment):
    with pytest.raises(ProgramError) as caught:
        run(kernel(body), 1, 1, 1)
    assert caught.value.line == FIRST + body.count("\n") - 1 and fragment in caught.value.message, caught.value


def test_a_3d_array_indexed_with_two_indices_or_out_of_bounds_is_a_diagnostic_with_the_line():
    body = "    t = cuda.shared.array((2, 2, 8), float32)\n    t[1, 1, cuda.threadIdx.x] = 1.0\n"
    (outside,) = run(kernel(body, "1, 9"), 1, 1, 1).diagnostics_of("out_of_bounds")
    assert outside.line == FIRST + 1 and "t[1, 1, 8]" in outside.message, outside.message
    (error,) = run(kernel(body.replace("t[1, 1, cuda", "t[1, cuda")), 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST + 1 and "t has 3 dimension(s) but is indexed with 2" in error.message
