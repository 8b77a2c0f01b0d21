"""#/playground in CPython: an array's values that are not float32 carry their dtype in words beside them (issue 43:
float64 values marked as float64, a visible label, not a colour only), in the thread's accesses and on the
shared array's grid."""

from __future__ import annotations

import pytest

from app.views.codeurl import encode
from pysim.play import run
from pysim.play.replay import AccessRecord

INT32_SHARED = """from numba import cuda, float32, int32


@cuda.jit
def kernel(A, B, C):
    t = cuda.threadIdx.x
    counts = cuda.shared.array(32, int32)
    counts[t] = t * 3
    cuda.syncthreads()
    C[0, t] = counts[31 - t]


def launch(M, N, K):
    return 1, 32
"""


@pytest.fixture
def page(page):
    """The page where no worker starts: runs happen on it."""
    del page.window.Worker
    return page


def record(value: float) -> AccessRecord:
    return AccessRecord("shared", "load", "acc", (3,), value, 7, 0, 0)


def test_a_float64_value_is_marked_float64_in_words_with_every_digit(page):
    from app.views.playground.texts import access_text  # after the page's stand-in for Pyodide is in place

    shown = access_text(record(0.1 + 0.2), "float64")
    assert shown.endswith("→ 0.30000000000000004 float64"), shown
    assert access_text(record(0.5)) == "load shared acc[3] → 0.5"  # float32: no label, as before
    assert access_text(record(float("nan")), "float64").endswith("→ NaN float64")


def test_a_typed_shared_arrays_grid_and_accesses_name_its_dtype(page):
    page.go(f"#/playground?M=1&N=32&K=1&code={encode(INT32_SHARED)}").click("run")
    assert page.attribute("run-status", "data-state") == "done"
    assert "counts [32] int32" in page.text(page.find(".shared-grids"))
    page.click("step")  # the interval after the barrier: thread 0 reads counts[31]
    steps = page.inner_text("thread-steps")
    assert "load shared counts[31] → 93 int32" in steps, steps
    assert run(INT32_SHARED, 1, 32, 1).counters.shared_loads == 32


FLOAT64_SHARED = """from numba import cuda, float32, float64


@cuda.jit
def kernel(A, B, C):
    t = cuda.threadIdx.x
    thirds = cuda.shared.array(32, float64)
    thirds[t] = float64(t) / 3.0
    cuda.syncthreads()
    C[0, t] = thirds[31 - t]


def launch(M, N, K):
    return 1, 32
"""


def test_a_float64_shared_array_reaches_the_page_with_its_label_and_every_digit(page):
    """Issue 43: an 8-byte shared array runs (its banks by the 64-bit rule, tests/unit/test_play_shared_wide.py)
    and its values reach the grid and the thread's accesses as float64, not rounded to float32."""
    page.go(f"#/playground?M=1&N=32&K=1&code={encode(FLOAT64_SHARED)}").click("run")
    assert page.attribute("run-status", "data-state") == "done"
    assert "thirds [32] float64" in page.text(page.find(".shared-grids"))
    page.click("step")  # the interval after the barrier: thread 0 reads thirds[31]
    steps = page.inner_text("thread-steps")
    assert f"load shared thirds[31] → {31 / 3!r} float64" in steps, steps
    result = run(FLOAT64_SHARED, 1, 32, 1)
    assert float(result.memory_after(0)[0]["thirds"][0, 31]) == 31 / 3  # the grid's value keeps every digit


INT32_CONSTANT = """import numpy as np
from numba import cuda, float32

R = np.arange(10, 42, dtype=np.int32)


@cuda.jit
def kernel(A, B, C):
    t = cuda.threadIdx.x
    C[0, t] = R[31 - t]


def launch(M, N, K):
    return 1, 32
"""


def test_a_constant_arrays_reads_name_its_space_and_dtype(page):
    page.go(f"#/playground?M=1&N=32&K=1&code={encode(INT32_CONSTANT)}").click("run")
    assert page.attribute("run-status", "data-state") == "done"
    steps = page.inner_text("thread-steps")
    assert "load constant R[31] → 41 int32" in steps, steps
