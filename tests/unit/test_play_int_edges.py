"""An integer variable stops the run exactly where Numba's int64 ends: [-2**63, 2**63).

The rewritten kernel checks an assignment typed an integer inline (pysim.play.nodes `stored`) and
calls the runtime's check only past the limits, so the limits themselves are what these kernels probe:
the last value inside runs, the first one outside stops the run at its line, by `=` and by `op=`.
"""

import numpy as np
import pytest

from pysim.play import run

HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1  # the kernel body's first line
INT64 = (-(2**63), 2**63 - 1)  # Numba's int64, from its definition (two's complement, 64 bits)


def kernel(body: str) -> str:
    return HEAD + body + "\n\ndef launch(M, N, K):\n    return 1, 1\n"


@pytest.mark.parametrize("end", INT64, ids=["lowest", "highest"])
def test_the_ends_of_int64_fit(end):
    body = f"    x = {end // 2} + {end - end // 2}\n    C[0, 0] = float32(x // 2**62)\n"
    result = run(kernel(body), 1, 1, 1, expected=lambda a, b: np.full((1, 1), end // 2**62, dtype=np.float32))
    assert result.c_matches and not result.diagnostics


@pytest.mark.parametrize(
    "body",
    [
        f"    x = {INT64[1] // 2} + {INT64[1] - INT64[1] // 2 + 1}\n",  # 2**63 by an assignment
        f"    x = {INT64[1]}\n    x += 1\n",  # 2**63 by an update
        f"    x = {INT64[0] // 2} + {INT64[0] - INT64[0] // 2 - 1}\n",  # -2**63 - 1
        f"    x = -{INT64[1]} - 1\n    x -= 1\n",
    ],
    ids=["2**63 assigned", "2**63 by +=", "-2**63 - 1 assigned", "-2**63 - 1 by -="],
)
def test_one_past_either_end_stops_the_run_at_its_line(body):
    (error,) = run(kernel(body + "    C[0, 0] = float32(1.0)\n"), 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST + body.count("\n") - 1 and "does not fit in 64 bits" in error.message
