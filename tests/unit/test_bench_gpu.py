"""bench/gpu (issue 40 item 7) without a GPU: each runner is the listing plus a timed launch at pysim's launch
shape, and nvcc builds it for every kernel (a GEMM, the transpose's signature, dynamic shared memory, the Hopper
kernel's tensor maps for sm_90a); a runner with no GPU to run on says so and gives no time. Timing, C's check and
Nsight Compute need a GPU: where one is at hand (nvidia-smi answers), a runner whose kernel leaves a row of C
unwritten fails its check."""

from __future__ import annotations

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
        assert run.time_it(program, 1)[1].startswith(f"{runner.CHECKED + 2} entries")
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
    assert run.counters(Path("/nonexistent")) == "no ncu"


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
    monkeypatch.setattr(run, "time_it", lambda program, reps: (0.5, "514 entries"))
    monkeypatch.setattr(run, "counters", lambda program: "no ncu")
    monkeypatch.setattr(run.toolchain, "cache_dir", lambda: str(tmp_path))
    lines: list[str] = []
    monkeypatch.setattr("builtins.print", lambda text, **_: lines.extend(str(text).splitlines()))
    argv = ["--kernel", "naive", "--kernel", "vectorized", "--map", "row", "--size", "4096", "4097"]
    argv += ["--arch", "sm_80", "--device", "a100"]
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


def test_every_card_the_model_knows_is_found_by_its_nvidia_smi_name() -> None:
    from pysim.hardware.devices import DEVICES

    names = {
        "NVIDIA H200": "h200",
        "NVIDIA H100 80GB HBM3": "h100",
        "NVIDIA A100-SXM4-40GB": "a100",
        "Tesla T4": "t4",
        "NVIDIA GeForce RTX 4090": "rtx4090",
        "NVIDIA RTX A6000": "rtxa6000",
    }
    assert {run.preset_for(name) for name in names} == set(DEVICES)
    assert all(run.preset_for(name) == preset for name, preset in names.items())
    assert run.preset_for("NVIDIA L4") is None


@pytest.mark.skipif(has_gpu(), reason="with a GPU the script measures it (minutes)")
def test_the_session_script_without_a_gpu_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(SESSION)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path)}
    )
    assert done.returncode == 1 and "no GPU answers nvidia-smi" in done.stderr


# The runner's host half (runner.host: the fill of A and B, the check of C) with a C made on the host, right or
# wrong in one way, compiled with g++: the check C's time depends on, able to fail with no GPU at hand.
HOST_GEMM = """
#include <cstring>
int main(int argc, char **argv) {
  const size_t M = %(M)d, N = %(N)d, K = %(K)d;
  float *hA = (float *)malloc(M * K * sizeof(float)), *hB = (float *)malloc(K * N * sizeof(float));
  float *hC = (float *)malloc(M * N * sizeof(float));
  for (size_t i = 0; i < M * K; ++i) hA[i] = fill(i, 1, 7);
  for (size_t i = 0; i < K * N; ++i) hB[i] = fill(i, 2, 5);
  const char *fault = argc > 1 ? argv[1] : "";
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      float sum = 0;
      for (size_t k = 0; k < K; ++k) sum += hA[i * K + k] * (strcmp(fault, "B^T") ? hB[k * N + j] : hB[j * K + k]);
      hC[i * N + j] = sum;
    }
  if (!strcmp(fault, "last row unwritten"))
    for (size_t j = 0; j < N; ++j) hC[(M - 1) * N + j] = NAN;
  if (!strcmp(fault, "one entry off")) hC[(M / 2) * N + N / 3] += 1;
  return check(hA, hB, hC) ? 1 : 0;
}
"""
HOST_TRANSPOSE = """
#include <cstring>
int main(int argc, char **argv) {
  const size_t n = %(n)d;
  float *hA = (float *)malloc(n * n * sizeof(float)), *hC = (float *)malloc(n * n * sizeof(float));
  for (size_t i = 0; i < n * n; ++i) hA[i] = fill(i, 1, 7);
  const bool copies = argc > 1 && !strcmp(argv[1], "copies");
  for (size_t y = 0; y < n; ++y)
    for (size_t x = 0; x < n; ++x) hC[y * n + x] = copies ? hA[y * n + x] : hA[x * n + y];
  return check(hA, nullptr, hC) ? 1 : 0;
}
"""


def host_program(tmp_path: Path, name: str, values: dict[str, int], main: str) -> Path:
    kernel, params = render.kernel_params(name, values)
    source = tmp_path / f"{name}.cpp"
    source.write_text(runner.host(kernel, params) + main % values)
    program = tmp_path / name
    subprocess.run(["g++", "-O1", "-o", str(program), str(source)], check=True)
    return program


@pytest.mark.parametrize("fault", ["", "last row unwritten", "one entry off", "B^T"])
def test_the_check_of_c_passes_a_right_gemm_and_fails_each_wrong_one(tmp_path: Path, fault: str) -> None:
    program = host_program(tmp_path, "naive", {"M": 33, "N": 40, "K": 40}, HOST_GEMM)
    done = subprocess.run([str(program), fault], capture_output=True, text=True)
    assert done.returncode == (1 if fault else 0), done.stderr
    assert ("C wrong at" in done.stderr) == bool(fault)


@pytest.mark.parametrize("fault", ["", "copies"])
def test_the_check_of_the_transpose_fails_a_copy(tmp_path: Path, fault: str) -> None:
    program = host_program(tmp_path, "transpose", {"n": 36}, HOST_TRANSPOSE)
    done = subprocess.run([str(program), fault], capture_output=True, text=True)
    assert done.returncode == (1 if fault else 0), done.stderr


def test_a_runner_that_hangs_is_a_failed_row_not_a_lost_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run, "TIMEOUT_S", 1)
    with pytest.raises(run.RunError, match="sleep: no answer in 1 s"):
        run.time_it(Path("/bin/sleep"), 5)


FAKE_NCU = """#!/bin/sh
echo '==PROF== Connected to process'
echo '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'
echo '"0","k","dram__bytes_read.sum","byte","1,024"'
echo '"0","k","dram__bytes_write.sum","byte","n/a"'
"""


def test_ncu_in_base_units_a_value_it_cannot_read_left_out_and_its_error_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ncu = tmp_path / "ncu"
    ncu.write_text(FAKE_NCU)
    ncu.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert run.counters(Path("program")) == {"dram__bytes_read.sum": 1024.0}
    ncu.write_text("#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - no permission to the counters'\nexit 1\n")
    assert run.counters(Path("program")) == "==ERROR== ERR_NVGPUCTRPERM - no permission to the counters"
