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

from pysim.hardware.params import ParamError
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


# Tiles on both sides of the two register rules (WgmmaParams._check_registers): (consumers, BM, BN).
AT_THE_EDGE = [(1, 128, 216), (1, 128, 224), (2, 256, 200), (2, 256, 208), (3, 192, 200), (3, 192, 208)]
AT_THE_EDGE += [(4, 256, 136), (4, 256, 144), (1, 256, 104), (1, 256, 112), (2, 128, 256)]


def _verdict(consumers: int, BM: int, BN: int) -> str:
    """nvcc's, on the listing rendered as the form would render it past the rules: refused, spills or clean."""
    values = dict(M=512, N=512, K=512, BM=BM, BN=BN, BK=32, stages=2, consumers=consumers)
    params = object.__new__(WgmmaParams)  # the listing of a tile the form refuses, built without its check
    for name, value in {**TEACH, **values, "device": "h100"}.items():
        object.__setattr__(params, name, value)
    try:
        sass = toolchain.disassemble(toolchain.Job(render.cuda_source(KERNEL, params), "sm_90a"))
    except toolchain.CompileError as error:
        assert "Insufficient registers" in str(error), error
        return "refused"
    return "spills" if re.search(r"\b(STL|LDL)\b", sass) else "clean"


@pytest.mark.parametrize("tile", AT_THE_EDGE, ids=lambda t: f"c{t[0]}-BM{t[1]}-BN{t[2]}")
def test_the_form_accepts_a_tile_exactly_where_nvcc_compiles_it_without_local_memory(tile):
    """The register rules against ptxas itself: a tile the form accepts compiles with no local memory (no STL/LDL),
    and one it refuses on BN either stops ptxas or spills."""
    consumers, BM, BN = tile
    try:
        WgmmaParams(M=512, N=512, K=512, BM=BM, BN=BN, BK=32, stages=2, consumers=consumers)
        accepted = True
    except ParamError as error:
        assert error.param == "BN", error.message
        accepted = False
    assert (_verdict(*tile) == "clean") == accepted, tile
