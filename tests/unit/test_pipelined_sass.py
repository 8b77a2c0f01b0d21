"""The pipelined listing is real CUDA: nvcc compiles it for sm_80 at both presets, and its SASS has the
instructions the view names (LDGSTS for cp.async, LDGDEPBAR for commit_group, DEPBAR for wait_group).
Skipped without nvcc; the SASS half also needs nvdisasm (pip's nvidia-cuda-nvdisasm or the toolkit's).
tools/sass (the compiler as an oracle) will own this check for every kernel once it lands."""

import shutil
import subprocess
from pathlib import Path

import pytest

from pysim.hardware.pipelined_params import PipelinedParams
from pysim.kernels import k11_pipelined

NVCC = shutil.which("nvcc")
NVDISASM = shutil.which("nvdisasm") or shutil.which("cuobjdump")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
@pytest.mark.parametrize("preset", list(PipelinedParams.PRESETS))
def test_the_listing_compiles_for_sm_80_with_ldgsts(tmp_path: Path, preset):
    source = tmp_path / "pipelined.cu"
    source.write_text("\n".join(k11_pipelined.source(PipelinedParams(**PipelinedParams.PRESETS[preset]))) + "\n")
    cubin = tmp_path / "pipelined.cubin"
    built = subprocess.run(
        [str(NVCC), "-arch=sm_80", "-cubin", "-o", str(cubin), str(source)], capture_output=True, text=True, timeout=300
    )
    assert built.returncode == 0, built.stderr
    if NVDISASM is None:
        pytest.skip("compiled; no nvdisasm or cuobjdump to read its SASS")
    flags = [] if NVDISASM.endswith("nvdisasm") else ["-sass"]
    sass = subprocess.run([NVDISASM, *flags, str(cubin)], capture_output=True, text=True, timeout=120).stdout
    for instruction in ("LDGSTS.E.BYPASS.128", "LDGSTS.E ", "LDGDEPBAR", "DEPBAR.LE"):
        assert instruction in sass, instruction
