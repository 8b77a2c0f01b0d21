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


def test_one_command_builds_naive_map_row_at_4096_and_4097(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42 item 1: the odd-size comparison is one command; each size and map gets its own runner, its grid
    pysim's and threadIdx.x along C's rows."""
    argv = ["--kernel", "naive", "--map", "row", "col", "--size", "4096", "4097", "--build-only", str(tmp_path)]
    assert run.main(argv) == 0
    built = sorted(path.name for path in tmp_path.iterdir() if path.suffix != ".cu")
    assert built == ["naive-4096-col", "naive-4096-row", "naive-4097-col", "naive-4097-row"]
    odd = (tmp_path / "naive-4097-row.cu").read_text()
    assert "int row = blockIdx.y * 32 + threadIdx.x;" in odd
    assert "dim3 grid(129, 129), block(32, 32);" in odd
    assert "sgemm_naive<<<grid, block, 0>>>(4097, 4097, 4097, A, B, C);" in odd
    assert "int row = blockIdx.y * 32 + threadIdx.y;" in (tmp_path / "naive-4096-col.cu").read_text()


def test_the_table_gives_model_and_hardware_gflops_per_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without a GPU: the timing replaced by a fixed 0.5 s, the rest of a real run (the model's column is pysim's
    estimate on the a100 preset, 295 vs 1,058 GFLOP/s); a size a float4 kernel refuses is a line, not a stop."""
    monkeypatch.setattr(run, "time_it", lambda program, reps: 0.5)
    monkeypatch.setattr(run, "counters", lambda program: None)
    monkeypatch.setattr(run.toolchain, "cache_dir", lambda: str(tmp_path))
    lines: list[str] = []
    monkeypatch.setattr("builtins.print", lambda text: lines.extend(str(text).splitlines()))
    argv = ["--kernel", "naive", "--kernel", "vectorized", "--map", "row", "--size", "4096", "4097", "--arch", "sm_80"]
    assert run.main(argv) == 0
    gflops = [line.split()[-2:] for line in lines if line.split()[:1] == ["GFLOP/s"]]
    assert gflops[:2] == [["294.6", f"{2 * 4096**3 / 0.5e9:.1f}"], ["1057.7", f"{2 * 4097**3 / 0.5e9:.1f}"]]
    assert any(line.startswith("vectorized-4097") and "refused: K=4097" in line for line in lines)


def test_map_without_the_naive_kernel_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--map is the naive kernel's alone: asked for with other kernels only, it is refused, not silently ignored."""
    with pytest.raises(SystemExit):
        run.main(["--kernel", "smem", "--map", "row", "--build-only", str(tmp_path)])
    assert "add --kernel naive" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
