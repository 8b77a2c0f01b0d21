"""bench/gpu (issue 40 item 7) without a GPU: each runner is the listing plus a timed launch at pysim's launch
shape, and nvcc builds it (the three launch kinds: a GEMM, the transpose's signature, the pipelined kernel's
dynamic shared memory). Timing and Nsight Compute need a GPU and run only where one is at hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.gpu import run
from tools.sass import render, toolchain


@pytest.mark.parametrize("name", ["smem", "transpose", "pipelined"])
def test_the_runner_builds_with_the_listings_launch(name: str, tmp_path: Path) -> None:
    try:
        toolchain.tool("nvcc")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    kernel, params = render.kernel_params(name, run.runner_values(name))
    source = run.runner_source(kernel, params)
    grid = kernel.grid(params)
    assert f"dim3 grid({grid[0]}, {grid[1]})" in source
    assert "\n".join(kernel.source(params)) in source
    if name == "pipelined":
        assert f"<<<grid, block, {params.shared_bytes}>>>" in source
    assert run.build(kernel, params, "sm_80", tmp_path).is_file()


def test_without_ncu_there_are_no_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    assert run.counters(Path("/nonexistent")) is None


def test_every_kernel_has_runner_values_the_form_accepts() -> None:
    for kernel in run.ORDER:
        render.kernel_params(kernel.NAME, run.runner_values(kernel.NAME))
