"""pysim's instruction model (pysim/core/instructions.py) against what nvcc emits (tools/sass), issue 40.

Every kernel at every preset and at SAMPLES sampled parameter sets per kernel (SAMPLES_OF where fewer;
tools/sass/samples.py), on the five device architectures (the pipelined and mma kernels' cp.async from sm_80
on): the instruction mix of one main-loop iteration (FFMA, HMMA, FADD, LDS/STS/LDG/STG/LDGSTS by width) and
the stores after the loop equal nvcc's, except the shared loads' widths where the `kept-loop-base` rule says
NVVM's choice of base register decides them (the words they read still equal). A missing compiler FAILS these tests with the install command: a
test that cannot ask the compiler must not pass. Each compile is cached (~/.cache/tilelab-sass), so a warm
run compiles nothing. The first test compiles every case, many listings per nvcc run (toolchain.BATCH), two
runs at a time; under pytest-xdist each worker sweeps the batches from its own end (a lock per batch), so the
two workers share the compiles instead of repeating them.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pysim.cli import SASS_UNMODELLED
from pysim.core.instructions import KEPT_LOOP_TOTAL, loop_length, widths_unsure
from pysim.kernels import ORDER
from tools.sass import disasm, render, report, toolchain, widths
from tools.sass.samples import samples

SAMPLES = 20
ALL = toolchain.ARCHS
# The `kept-loop-base` rule's two sides (pysim/core/instructions.py), pinned: the longest dotIdx loop found whose
# widths nvcc emits as `merge` says on every architecture (loop_length 130, the rule's bound), and the shortest
# found whose widths differ (140: As's float4 split into two LDS.64 on sm_75 to sm_89), so the bound can be
# neither raised to 140 nor dropped without a test noticing.
LONGEST_AGREEING = ("blocktile1d", {"BM": 64, "BN": 64, "BK": 2, "TM": 32, "M": 106, "N": 6, "K": 131}, 130)
SHORTEST_DIFFERING = ("vectorized", {"BM": 32, "BN": 32, "BK": 4, "TM": 4, "TN": 8, "M": 115, "N": 80, "K": 28}, 140)


# Kernels that compile only from sm_80 on, each with why; sm_75's refusal is tested below.
FROM_SM_80 = {
    "pipelined": "cp.async (LDGSTS, cp.async.wait_group) needs sm_80 or later",
    "mma": "cp.async and mma.sync with .tf32 operands need sm_80 or later",
}

# Fewer samples where each compile is slow: the mma listing's main loop unrolls into many HMMA (3xTF32: three
# per tile and k-step), and its mix has fewer shapes to vary (the fragments' reads are fixed by the ISA).
SAMPLES_OF = {"mma": 6}


def _cases() -> list:
    found = []
    for kernel in (kernel for kernel in ORDER if kernel.NAME not in SASS_UNMODELLED):
        archs = ALL[1:] if kernel.NAME in FROM_SM_80 else ALL
        for label, preset in kernel.PARAMS.PRESETS.items():
            for arch in archs:
                found.append(pytest.param(kernel.NAME, preset, arch, id=f"{kernel.NAME}-{arch}-{label[:24]}"))
        for number, values in enumerate(samples(kernel.NAME, SAMPLES_OF.get(kernel.NAME, SAMPLES))):
            for arch in archs:
                found.append(pytest.param(kernel.NAME, values, arch, id=f"{kernel.NAME}-{arch}-sample{number}"))
    return found


CASES = _cases()


@pytest.fixture(scope="session")
def compiler() -> None:
    """Fail (never skip) without nvcc; compile every case up front (the cache keeps them): alone two batches at
    a time, under pytest-xdist worker gw1 from the last batch back while gw0 goes from the first on."""
    try:
        toolchain.tool("nvcc"), toolchain.tool("nvdisasm")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    jobs = [report.job(*render.kernel_params(case.values[0], case.values[1]), case.values[2]) for case in CASES]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        toolchain.disassemble_all(jobs)
    else:  # one nvcc per worker: two workers on two cores
        toolchain.disassemble_all(jobs, reverse=worker != "gw0", parallel=1)


@pytest.mark.parametrize("name, values, arch", CASES)
def test_model_counts_what_nvcc_emits(compiler: None, name: str, values: dict, arch: str) -> None:
    """Equal, class by class; where `kept-loop-base` applies (widths_unsure), equal but for the shared loads'
    widths, which NVVM's choice of base register decides: the words they read are still equal."""
    kernel, params = render.kernel_params(name, values)
    found = report.report(kernel, params, arch)
    nvcc, model = found["per_iteration"], found["model"]["per_iteration"]
    assert found["after_loop"] == found["model"]["after_loop"], f"{name} {values} {arch}"
    if widths_unsure(kernel, params):
        assert widths.folded(nvcc) == widths.folded(model), f"{name} {values} {arch}"
    else:
        assert nvcc == model, f"{name} {values} {arch}"


@pytest.mark.parametrize("arch", ALL)
def test_the_longest_loop_the_rule_leaves_to_merge_agrees_with_nvcc(compiler: None, arch: str) -> None:
    name, values, length = LONGEST_AGREEING
    kernel, params = render.kernel_params(name, values)
    assert loop_length(kernel, params) == length == KEPT_LOOP_TOTAL and not widths_unsure(kernel, params)
    found = report.report(kernel, params, arch)
    assert found["per_iteration"] == found["model"]["per_iteration"]


def test_the_shortest_loop_whose_widths_differ_is_above_the_bound(compiler: None) -> None:
    name, values, length = SHORTEST_DIFFERING
    kernel, params = render.kernel_params(name, values)
    assert loop_length(kernel, params) == length > KEPT_LOOP_TOTAL and widths_unsure(kernel, params)
    found = report.report(kernel, params, "sm_80")
    nvcc, model = found["per_iteration"], found["model"]["per_iteration"]
    assert nvcc != model and widths.folded(nvcc) == widths.folded(model)
    assert (nvcc.get("LDS.64", 0), model.get("LDS.64", 0)) == (8, 0)  # As's float4, two LDS.64 in each of 4 rounds


def test_the_presets_are_never_unsure() -> None:
    """The pages state widths at a preset without the rule's caveat: the sweep above holds them exact there."""
    for kernel in (kernel for kernel in ORDER if kernel.NAME not in SASS_UNMODELLED):
        for values in kernel.PARAMS.PRESETS.values():
            assert not widths_unsure(*render.kernel_params(kernel.NAME, values)), (kernel.NAME, values)


def test_the_issue_figures(compiler: None) -> None:
    """Issue 40's figures: kernel 3 at T=32 merges a thread's 32 reads of tileA into eight LDS.128; kernel 4
    at siboehm's sizes issues 16 LDS.128 and 8 LDS per iteration, on sm_80 and sm_90 alike."""
    kernel, params = render.kernel_params("smem", {"M": 64, "N": 64, "K": 64, "T": 32})
    assert report.report(kernel, params, "sm_80")["per_iteration"] == {
        "FFMA": 32,
        "LDG.E": 2,
        "LDS": 32,
        "LDS.128": 8,
        "STS": 2,
    }
    kernel, params = render.kernel_params("blocktile1d", {"BM": 64, "BN": 64, "BK": 8, "TM": 8})
    for arch in ("sm_80", "sm_90"):
        mix = report.report(kernel, params, arch)["per_iteration"]
        assert (mix["FFMA"], mix["LDS"], mix["LDS.128"]) == (64, 8, 16)


def test_a_refused_kernel_is_reported_with_nvccs_line(compiler: None, tmp_path, monkeypatch) -> None:
    """Too much shared memory: ptxas refuses, and the error carries its line (not a skip, not an empty mix)."""
    monkeypatch.setenv("TILELAB_SASS_CACHE", str(tmp_path))
    source = "__global__ void k(float *x) { __shared__ float s[40000]; s[threadIdx.x] = 1; x[0] = s[5]; }\n"
    with pytest.raises(toolchain.CompileError, match="ptxas error.*shared"):
        toolchain.disassemble(toolchain.Job(source, "sm_80"))
    with pytest.raises(toolchain.CompileError, match="ptxas error.*shared"):  # the refusal is cached too
        toolchain.disassemble(toolchain.Job(source, "sm_80"))


@pytest.mark.parametrize("name", sorted(FROM_SM_80))
def test_a_kernel_from_sm_80_is_refused_on_sm_75_with_ptxas_line(compiler: None, name: str) -> None:
    kernel, params = render.kernel_params(name, {})
    with pytest.raises(toolchain.CompileError, match="ptxas.*requires .target sm_80 or higher"):
        toolchain.disassemble(report.job(kernel, params, "sm_75"))


def test_a_batch_compiles_each_listing_as_a_lone_compile_does(compiler: None) -> None:
    """The sweep's batches (many listings per nvcc run) give each listing the instructions a lone compile gives,
    branch labels and listing lines included (the kernel's mangled name differs); not through the cache."""
    jobs = [report.job(*render.kernel_params(name, {}), "sm_86") for name in ("register", "pipelined")]

    def read(text: str | toolchain.CompileError) -> list[tuple[str, int]]:
        assert isinstance(text, str)
        return [(instruction.text, instruction.line) for instruction in disasm.parse(text)]

    assert [read(text) for text in toolchain._compile_batch(jobs)] == [read(toolchain._compile(job)) for job in jobs]


def test_a_missing_compiler_names_the_install_command(monkeypatch) -> None:
    monkeypatch.setattr(toolchain, "_wheel_bins", lambda: [])
    monkeypatch.setenv("PATH", "")
    toolchain.tool.cache_clear()
    try:
        with pytest.raises(toolchain.MissingToolchainError, match="pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm"):
            toolchain.tool("nvcc")
    finally:
        toolchain.tool.cache_clear()


def test_the_cli_prints_spec_7_json(compiler: None) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pysim", "sass", "--kernel", "register", "--arch", "sm_90", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    import json

    found = json.loads(done.stdout)
    assert set(found) >= {"kernel", "params", "arch", "per_iteration", "lines", "model"}
    assert found["arch"] == "sm_90" and found["per_iteration"]["FFMA"] == 16
    assert all({"line", "sass"} <= set(entry) for entry in found["lines"])


def test_the_cli_and_the_toolchain_name_the_same_architectures() -> None:
    from pysim.cli import SASS_ARCHS

    assert SASS_ARCHS == toolchain.ARCHS


def test_the_kept_loop_rule(compiler: None) -> None:
    """`kept-loop` (pysim/core/instructions.py): a dotIdx round of 80 instructions (kernel 5 at siboehm's runner
    shape) or 65 (kernel 4 at TM=32) stays a loop, its As reads scalar; one of 44 (kernel 5 at TM=4, TN=8) is
    unrolled and As merged across rounds into LDS.128. The rule's bound sits between them."""
    cases = {
        ("register", (128, 128, 8, 8, 8)): {"FFMA": 512, "LDS": 64, "LDS.128": 16},
        ("blocktile1d", (64, 64, 2, 32)): {"FFMA": 64, "LDG.E": 2, "LDS": 66, "STS": 2},
        ("register", (64, 16, 2, 4, 8)): {"FFMA": 64, "LDS.128": 6},
    }
    for (name, sizes), mix in cases.items():
        values = dict(zip(("BM", "BN", "BK", "TM", "TN"), sizes, strict=False))
        found = report.report(*render.kernel_params(name, values), "sm_80")
        assert (found["per_iteration"], found["model"]["per_iteration"]) == (mix, mix), (name, values)


def test_the_rules_measurement_tool_prints_both_sides(compiler: None, capsys) -> None:
    """tools/sass/widths.py (the command the rule cites) on the sweep's first samples: below the bound every set
    equal, and no difference anywhere outside the loads' widths."""
    assert widths.main(["--samples", "3", "--seeds", "40", "--arch", "sm_80"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    below, above = (row for row in rows if row[0] == "sm_80")
    assert below[1:3] == ["<=", str(KEPT_LOOP_TOTAL)] and int(below[3]) > 0 and below[4:] == ["0", "0", "0"]
    assert above[1:3] == [">", str(KEPT_LOOP_TOTAL)] and above[5] == "0"
