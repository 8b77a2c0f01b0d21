"""The pipelined listing is real CUDA: nvcc compiles it for sm_80 at both presets, and its SASS has the
instructions the view names (LDGSTS for cp.async, LDGDEPBAR for commit_group, DEPBAR for wait_group).
Through tools/sass, so a missing compiler FAILS with the install command, and a warm cache compiles nothing."""

import pytest

from pysim.hardware.pipelined_params import PipelinedParams
from pysim.kernels import KERNELS
from tools.sass import report, toolchain


@pytest.mark.parametrize("preset", list(PipelinedParams.PRESETS))
def test_the_listing_compiles_for_sm_80_with_ldgsts(preset):
    kernel = KERNELS["pipelined"]
    params = kernel.PARAMS.parse({key: str(value) for key, value in PipelinedParams.PRESETS[preset].items()})
    sass = toolchain.disassemble(report.job(kernel, params, "sm_80"))
    for instruction in ("LDGSTS.E.BYPASS.128", "LDGSTS.E ", "LDGDEPBAR", "DEPBAR.LE"):
        assert instruction in sass, instruction
