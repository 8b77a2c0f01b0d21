"""bench/gpu (issue 40 item 7) without a GPU: each runner is the listing plus a timed launch at pysim's launch
shape, and nvcc builds it for every kernel (a GEMM, the transpose's signature, dynamic shared memory, the Hopper
kernel's tensor maps for sm_90a); a runner with no GPU to run on says so and gives no time. Timing, C's check and
Nsight Compute need a GPU: where one is at hand (nvidia-smi answers), a runner whose kernel leaves a row of C
unwritten fails its check."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bench.gpu import run, runner
from tools.sass import render, toolchain


def nvcc() -> None:
    try:
        toolchain.tool("nvcc")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))


def has_gpu() -> bool:
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("name", [kernel.NAME for kernel in run.ORDER])
def test_the_runner_builds_with_the_listings_launch(name: str, tmp_path: Path) -> None:
    nvcc()
    kernel, params = render.kernel_params(name, run.runner_values(name))
    source = runner.source(kernel, params)
    grid = kernel.grid(params)
    assert f"dim3 grid({grid[0]}, {grid[1]})" in source
    assert "\n".join(kernel.source(params)) in source
    if name in ("pipelined", "wgmma"):
        assert f"<<<grid, block, {params.shared_bytes}>>>" in source
    if name == "wgmma":
        assert f"({params.M}, {params.N}, {params.K}, mapA, mapBt, C)" in source
    assert run.build(kernel, params, run.ARCH_SPECIFIC.get(name, "sm_80"), tmp_path).is_file()


def test_a_runner_reports_a_failed_cuda_call_and_gives_no_time(tmp_path: Path) -> None:
    """Here, with no GPU, the runner's first CUDA call fails: the run is a RunError naming the CUDA error, never a
    time (on a GPU the same runner's C passes its check)."""
    nvcc()
    kernel, params = render.kernel_params("smem", {"M": 40, "N": 36, "K": 20, "T": 8})
    program = run.build(kernel, params, "sm_80", tmp_path)
    if has_gpu():
        assert run.time_it(program, 1)[1] == runner.CHECKED + 2
    else:
        with pytest.raises(run.RunError, match="CUDA error"):
            run.time_it(program, 1)


@pytest.mark.skipif(not has_gpu(), reason="C's check runs a kernel: only where a GPU is at hand")
def test_a_kernel_that_leaves_a_row_of_c_unwritten_fails_the_check(tmp_path: Path) -> None:
    nvcc()
    kernel, params = render.kernel_params("naive", {"M": 33, "N": 40, "K": 17, "T": 8})
    broken = runner.source(kernel, params).replace("if (row >= M ||", "if (row >= M - 1 ||", 1)
    assert broken != runner.source(kernel, params)
    source = tmp_path / "broken.cu"
    source.write_text(broken)
    subprocess.run([toolchain.tool("nvcc"), "-o", str(tmp_path / "broken"), str(source)], check=True)
    with pytest.raises(run.RunError, match=r"C\[32\]\[\d+\] is -?nan"):
        run.time_it(tmp_path / "broken", 1)


def test_a_listing_for_another_architecture_is_refused_by_name() -> None:
    assert run.arch_for("wgmma", "sm_90") == "sm_90a" and run.arch_for("smem", "sm_75") == "sm_75"
    with pytest.raises(run.RunError, match="needs sm_90a .* this GPU is sm_80"):
        run.arch_for("wgmma", "sm_80")


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
    monkeypatch.setattr(run, "time_it", lambda program, reps: (0.5, runner.CHECKED + 2))
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


SESSION = Path(__file__).resolve().parents[2] / "bench" / "gpu" / "session.sh"


def test_the_session_script_names_a_preset_for_every_card_the_model_knows() -> None:
    """bench/gpu/session.sh picks the model's preset from nvidia-smi's name: each preset once."""
    from pysim.hardware.devices import DEVICES

    named = re.findall(r"\) device=(\w+) ;;", SESSION.read_text())
    assert sorted(named) == sorted(DEVICES)


@pytest.mark.skipif(has_gpu(), reason="with a GPU the script measures it (minutes)")
def test_the_session_script_without_a_gpu_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(SESSION)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path)}
    )
    assert done.returncode == 1 and "no GPU answers nvidia-smi" in done.stderr
