"""The Hopper listing is real CUDA: nvcc compiles it for sm_90a (the presets, one stage, three consumers, two m64
tiles a consumer) and its SASS has what the kernel teaches: UTMALDG.2D (the TMA copies, two per tile),
HGMMA.64xBNx8.F32.TF32 (wgmma on TF32, MITER per k-step), SYNCS (the mbarriers: EXCH to init them,
ARRIVE.TRANS64 for expect_tx and the release, PHASECHK.TRANS64.TRYWAIT for the waits) and WARPGROUP.ARRIVE /
DEPBAR (wgmma's fence and wait_group), USETMAXREG (setmaxnreg). Plain sm_90 refuses wgmma: the `a` features are Hopper's alone.
Through tools/sass: a missing compiler FAILS with the install command, and a warm cache compiles nothing.

`python -m pysim sass` does not take this kernel: pysim's instruction model (pysim/core/instructions.py)
counts FFMA, LDS and HMMA per main-loop iteration, not TMA, mbarriers or wgmma, and the sweep's architectures
stop at sm_90."""

import re

import pytest

from pysim.hardware.wgmma_params import WgmmaParams
from pysim.kernels import KERNELS
from tools.sass import render, toolchain

KERNEL = KERNELS["wgmma"]
TEACH, PRODUCTION = WgmmaParams.PRESETS.values()
CASES = [
    TEACH,
    PRODUCTION,
    {**TEACH, "stages": 1, "BN": 24},
    {**PRODUCTION, "BM": 192, "BN": 64, "consumers": 3},
    {**TEACH, "BM": 128, "BN": 40},
]


def _sass(values, arch="sm_90a"):
    params = KERNEL.PARAMS.parse({key: str(value) for key, value in values.items()})
    return params, toolchain.disassemble(toolchain.Job(render.cuda_source(KERNEL, params), arch))


@pytest.mark.parametrize("values", CASES)
def test_the_listing_compiles_for_sm_90a_with_tma_wgmma_and_mbarriers(values):
    p, sass = _sass(values)
    for instruction in (
        f"HGMMA.64x{p.BN}x8.F32.TF32",
        "UTMALDG.2D",
        "SYNCS.EXCH.64",
        "SYNCS.ARRIVE.TRANS64",
        "SYNCS.PHASECHK.TRANS64.TRYWAIT",
        "WARPGROUP.ARRIVE",
        "WARPGROUP.DEPBAR.LE",
        "USETMAXREG.DEALLOC",  # setmaxnreg: the producer gives registers back, the consumers take them
        "USETMAXREG.TRY_ALLOC",
    ):
        assert instruction in sass, instruction
    hgmma = len(re.findall(rf"\bHGMMA\.64x{p.BN}x8\.F32\.TF32\b", sass))
    assert hgmma and hgmma % (p.MITER * p.ksteps) == 0, hgmma
    assert len(re.findall(r"\bUTMALDG\.2D\b", sass)) % 2 == 0  # a box of A and one of Bt, however unrolled
    assert "HMMA" not in sass and "LDGSTS" not in sass and "FFMA" not in sass  # no mma.sync, cp.async, FP32 core


def test_plain_sm_90_refuses_wgmma():
    with pytest.raises(toolchain.CompileError, match="wgmma"):
        _sass(TEACH, "sm_90")
