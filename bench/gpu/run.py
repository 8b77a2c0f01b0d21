"""Ground truth on a GPU (issue 40 item 7): each listing compiled with nvcc into a small runner, timed with CUDA
events, its counters read with Nsight Compute where `ncu` is installed, printed beside pysim's model.

    python -m bench.gpu.run                      (every kernel at siboehm's runner sizes, on the GPU found)
    python -m bench.gpu.run --kernel smem --size 2048 --reps 20
    python -m bench.gpu.run --kernel naive --map row --size 4096 4097   (the odd-size cliff, issue 42 item 1)
    python -m bench.gpu.run --build-only DIR     (write and compile the runners; no GPU needed)

Each kernel runs at every --size (M = N = K, or the transpose's n); --map sets the naive kernel's map (both
maps with `--map row col`), which the other kernels do not have. A GEMM's table gives GFLOP/s beside the time, so
naive map=row at 4096 and 4097 is the comparison the speed model makes from an unverified rule (pysim/speed/
wavefronts.py: 295 vs 1,058 GFLOP/s on the a100 preset).

The runner is the listing itself (tools/sass/render.py: the page's lines, `@@` markers stripped) and a main()
that fills A and B, launches the kernel once to warm up, then `reps` times between two events, checks C (exact
against the host at 514 entries, runner.py), and prints one JSON line: {"ms": per launch, "checked": entries}; a
CUDA error or a wrong C is the run's row ("failed: ..."), and so is nvcc's refusal, with no time. The launch is
the listing's: its grid (pysim's), its block (the first line's `blockDim = (x, y)` or pysim's thread count), the
dynamic shared memory of the kernels that declare it, and the Hopper kernel's tensor maps (sm_90a only).
See bench/gpu/README.md for the counters and what each is compared with.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from pysim.hardware.params import NAIVE_MAPS, ParamError
from pysim.kernels import KERNELS, ORDER, Kernel
from pysim.speed import estimate
from pysim.speed.profiles import BUILDERS
from tools.sass import render, toolchain

from . import runner

# KernelProfile's field (pysim's count, warp-level instructions as the model counts them; fma per thread) -> the
# Nsight Compute metrics whose sum measures it. DRAM bytes have no field: the model prices them, it does not count.
METRICS: dict[str, tuple[str, ...]] = {
    "shared_instructions": ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"),
    "shared_wavefronts": ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",),
    "global_loads": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",),
    "global_load_sectors": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",),
    "dram_bytes": ("dram__bytes_read.sum", "dram__bytes_write.sum"),
    "fma": ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",),
}
# nvidia-smi's names, by a part that tells the card, and the speed model's preset for each (H200 before H100).
PRESET_OF_NAME = (
    ("H200", "h200"),
    ("H100", "h100"),
    ("A100", "a100"),
    ("T4", "t4"),
    ("4090", "rtx4090"),
    ("A6000", "rtxa6000"),
)
# One runner or one ncu: the slowest run (naive at 4097³) takes seconds; a hung kernel must not eat a lease.
TIMEOUT_S = 120
# Kernels whose listing uses one architecture's own features (wgmma, setmaxnreg: sm_90a), built for it and run only on
# a GPU of its family.
ARCH_SPECIFIC = {"wgmma": "sm_90a"}
# Each kernel runs at its view's runner preset ("siboehm's A6000 runner", the pipelined "production"), sizes
# from --size; the kernels without one, at these (siboehm's kernels 1, 3 and 5; the transpose padded).
WITHOUT_RUNNER_PRESET: dict[str, dict[str, int]] = {
    "naive": {"T": 32},
    "smem": {"T": 32},
    "register": {"BM": 128, "BN": 128, "BK": 8, "TM": 8, "TN": 8},
    "transpose": {"TILE": 32, "pad": 1},
}


class RunError(Exception):
    """A run that gave no time: its runner reported a CUDA error or a wrong C, or it cannot run on this GPU."""


def runner_values(name: str) -> dict[str, Any]:
    """The kernel's tile parameters at its runner preset (sizes left to the caller)."""
    presets = KERNELS[name].PARAMS.PRESETS
    label = next((label for label in presets if "runner" in label or label.startswith("production")), None)
    if label is None:
        return dict(WITHOUT_RUNNER_PRESET[name])
    return {key: value for key, value in presets[label].items() if key not in ("M", "N", "K", "n")}


def run_values(name: str, size: int, naive_map: str | None = None) -> dict[str, Any]:
    """The parameters of one timed run: the runner preset at M = N = K = size (the transpose's n), and for the
    naive kernel the map asked for (None: the preset's)."""
    sizes = {"n": size} if name == "transpose" else {"M": size, "N": size, "K": size}
    chosen = {"map": naive_map} if name == "naive" and naive_map else {}
    return {**runner_values(name), **sizes, **chosen}


def runs(names: list[str], sizes: list[int], maps: list[str] | None) -> list[dict[str, Any]]:
    """Every (kernel, size, map) the command asked for, in that order: each kernel at each size, the naive kernel
    once per map (the others have none)."""
    return [
        {"name": name, **run_values(name, size, naive_map)}
        for name in names
        for size in sizes
        for naive_map in ((maps or [None]) if name == "naive" else [None])
    ]


def label(values: dict[str, Any]) -> str:
    """A run's name in the table and its runner's file name: 'naive-4097-row', 'smem-4096', 'transpose-4096'."""
    size = values.get("n", values.get("N"))
    return "-".join(str(part) for part in (values["name"], size, values.get("map")) if part is not None)


def build(kernel: Kernel, params: Any, arch: str, folder: Path, name: str | None = None) -> Path:
    """nvcc -O3 of the runner into folder/<name> (default: the kernel's); CompileError with nvcc's lines if it
    refuses."""
    folder.mkdir(parents=True, exist_ok=True)
    name = name or kernel.NAME
    source, program = folder / f"{name}.cu", folder / name
    source.write_text(runner.source(kernel, params))
    # -gencode, not -arch: nvcc's -arch=sm_90a also builds compute_90 PTX, where wgmma does not assemble.
    code = ["-gencode", f"arch=compute_{arch.removeprefix('sm_')},code={arch}"]
    done = subprocess.run(
        [toolchain.tool("nvcc"), "-O3", *code, "-o", str(program), str(source)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise toolchain.CompileError(f"nvcc -arch={arch} {source.name}: {done.stderr.strip()}")
    return program


def arch_for(name: str, arch: str) -> str:
    """The architecture a kernel's runner is built for on a GPU of `arch`: its own where its listing needs one
    (ARCH_SPECIFIC), refused by name on a GPU of another family."""
    specific = ARCH_SPECIFIC.get(name)
    if specific is None:
        return arch
    if specific.rstrip("a") != arch.rstrip("a"):
        raise RunError(f"its listing needs {specific} (an H100 or H200); this GPU is {arch}")
    return specific


def time_it(program: Path, reps: int) -> tuple[float, str]:
    """Seconds per launch, from the runner's events, and what of C it checked; RunError with the runner's own
    message where a CUDA call failed or C was wrong (runner.py), or where it ran past TIMEOUT_S (a hang)."""
    done = _run([str(program), str(reps)])
    if done.returncode:
        raise RunError(" ".join(done.stderr.split()) or f"exit status {done.returncode}")
    found = json.loads(done.stdout)
    return float(found["ms"]) / 1e3, f"{found['checked']} ({found['reps']} timed launches)"


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as late:
        raise RunError(f"{Path(command[0]).name}: no answer in {TIMEOUT_S} s (a hang?)") from late


def counters(program: Path) -> dict[str, float] | str:
    """Nsight Compute's METRICS for the first launch after the warm-up (launch 0), in base units; without ncu, or
    where it reads no counter (no permission, an unknown metric), why not."""
    ncu = shutil.which("ncu")
    if ncu is None:
        return "no ncu"
    metrics = ",".join(sum(METRICS.values(), ()))
    try:
        done = _run(
            [
                ncu,
                "--csv",
                "--print-units",
                "base",
                "--launch-skip",
                "1",
                "--launch-count",
                "1",
                "--metrics",
                metrics,
                str(program),
                "1",
            ]
        )
    except RunError as late:
        return str(late)
    if '"ID"' not in done.stdout:
        said = [line for line in (done.stdout + done.stderr).splitlines() if "ERR" in line.upper()]
        return said[0].strip() if said else f"ncu exit status {done.returncode}, no table"
    rows = csv.DictReader(io.StringIO(done.stdout[done.stdout.find('"ID"') :]))
    found = {}
    for row in rows:
        try:
            found[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:  # "n/a": the metric is left out, its row says so
            continue
    return found


def gpu() -> tuple[str, str]:
    """GPU 0's sm_XX and name, from nvidia-smi."""
    done = subprocess.run(
        ["nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=True,
    )
    capability, name = (part.strip() for part in done.stdout.splitlines()[0].split(",", 1))
    major, minor = capability.split(".")
    return f"sm_{major}{minor}", name


def preset_for(name: str) -> str | None:
    """The speed model's device preset for a GPU by nvidia-smi's name ('NVIDIA H100 80GB HBM3' -> 'h100'), or None."""
    return next((preset for mark, preset in PRESET_OF_NAME if mark in name), None)


def compare(values: dict[str, Any], arch: str, device: str, reps: int, folder: Path) -> list[str]:
    """The table's lines for one run (`runs`): time, GFLOP/s for a GEMM, then each counter, model vs hardware."""
    name, tag = values["name"], label(values)
    kernel, params = render.kernel_params(name, {**without_name(values), "device": device})
    program = build(kernel, params, arch_for(name, arch), folder, tag)
    (seconds, checked), modelled = time_it(program, reps), _model_seconds(name, params, device)
    lines = [f"{tag:<18}{'seconds per launch':<30}{modelled:>14.4g}{seconds:>14.4g}", f"{'':<18}C exact: {checked}"]
    if name != "transpose":
        flop = 2 * params.M * params.N * params.K
        lines.append(f"{'':<18}{'GFLOP/s':<30}{flop / modelled / 1e9:>14.1f}{flop / seconds / 1e9:>14.1f}")
    if name in BUILDERS:
        profile = BUILDERS[name](params)
        found = counters(program)
        if isinstance(found, str):
            lines.append(f"{'':<18}counters: {found}")
            found = {}
        for field, metrics in METRICS.items():
            modelled = getattr(profile, field, None)
            parts = [found.get(metric) for metric in metrics]
            measured = None if None in parts else sum(part for part in parts if part is not None)
            shown = "-" if measured is None else f"{measured:.4g}"
            lines.append(f"{'':<18}{field:<30}{'-' if modelled is None else f'{modelled:.4g}':>14}{shown:>14}")
    return lines


def without_name(values: dict[str, Any]) -> dict[str, Any]:
    """A run's parameters as the kernel's form takes them."""
    return {key: value for key, value in values.items() if key != "name"}


def _model_seconds(name: str, params: Any, device: str) -> float:
    """The speed model's estimate; NaN for the transpose, which it does not model."""
    return float("nan") if name == "transpose" else estimate(name, params, device).estimate_s


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu.run", description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", choices=[kernel.NAME for kernel in ORDER], action="append")
    parser.add_argument("--size", type=int, nargs="+", default=[4096], help="M = N = K (the transpose's n); several")
    parser.add_argument("--map", nargs="+", choices=tuple(NAIVE_MAPS), help="the naive kernel's map(s)")
    parser.add_argument("--reps", type=_positive, default=10, help="timed launches at least (and 200 ms at least)")
    parser.add_argument("--device", help="pysim's device preset the model uses (default: the GPU's, by its name)")
    parser.add_argument("--build-only", metavar="DIR", help="write and compile the runners into DIR, run nothing")
    parser.add_argument("--arch", help="sm_XX (default: the GPU's, from nvidia-smi)")
    args = parser.parse_args(argv)
    names = args.kernel or [kernel.NAME for kernel in ORDER]
    if args.map and "naive" not in names:
        parser.error("--map is the naive kernel's: add --kernel naive")
    wanted = runs(names, args.size, args.map)
    if args.build_only:
        for values in wanted:
            try:
                kernel, params = render.kernel_params(values["name"], without_name(values))
                arch = ARCH_SPECIFIC.get(values["name"], args.arch or "sm_80")
                print(build(kernel, params, arch, Path(args.build_only), label(values)))
            except ParamError as refused:
                print(f"{label(values)}: refused: {refused}")
            except toolchain.CompileError as failed:
                print(f"{label(values)}: failed: {failed}")
        return 0
    try:
        toolchain.tool("nvcc")
    except toolchain.MissingToolchainError as missing:
        parser.exit(1, f"{missing}\n")
    found, card = gpu() if args.arch is None or args.device is None else (args.arch, "the GPU named by --arch")
    arch, device = args.arch or found, args.device or preset_for(card)
    if device is None:
        parser.exit(1, f"no speed-model preset for {card}: name one with --device (a100, h100, t4, ...)\n")
    folder = Path(toolchain.cache_dir()) / "gpu-runners"
    print(f"{'run':<18}{'quantity':<30}{'model':>14}{'hardware':>14}   ({card}, {arch}, model: {device})", flush=True)
    for values in wanted:
        try:
            lines = compare(values, arch, device, args.reps, folder)
        except ParamError as refused:  # a size the kernel's form refuses (a float4 kernel at an odd K)
            lines = [f"{label(values):<18}refused: {refused}"]
        except (toolchain.CompileError, RunError) as failed:  # nvcc's refusal, a CUDA error, a wrong C: no time
            lines = [f"{label(values):<18}failed: {failed}"]
        print("\n".join(lines), flush=True)  # a run cut off later keeps the rows already measured
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1")
    return value


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
