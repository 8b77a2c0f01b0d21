"""Where the dotIdx loop is long (`kept-loop-base`, pysim/core/instructions.py), the shared reads' widths are
nvcc's choice, and no question may have one of them as its answer: the vectorized guide's "which instructions"
question and its bank-degree question are skipped with the reason, and the bank-degree checkpoint, whose degree
depends on the reads' widths, is withheld; the listing's comments and the step narration call the widths the model's. At the presets (held exact against nvcc
by tests/unit/test_sass_model.py) all of them stay. The loop's length is counted here from the sizes alone."""

from __future__ import annotations

import pytest

from pysim.core.trace import Trace
from pysim.hardware.blocktile_params import VectorizedParams
from pysim.kernels import KERNELS, k06_vectorized
from pysim.lessons import checkpoints
from pysim.lessons.guides import common, vectorized
from pysim.lessons.guides.common import Run
from pysim.lessons.guides.model import Skipped
from pysim.lessons.narration import vectorized as narration
from pysim.lessons.narration import warptile as warptile_narration
from tools.sass import toolchain

KERNEL = KERNELS["vectorized"]
RUNNER = next(values for label, values in VectorizedParams.PRESETS.items() if "runner" in label)
SIZES = [
    dict(RUNNER),  # 8 × (64 + 2 + 2) = 544, a preset
    dict(M=115, N=80, K=28, BM=32, BN=32, BK=4, TM=4, TN=8),  # 4 × (32 + 1 + 2) = 140: nvcc splits As's float4
    dict(M=20, N=24, K=12, BM=16, BN=16, BK=4, TM=4, TN=4),  # 4 × (16 + 1 + 1) = 72
    {**RUNNER, "M": 64, "N": 64, "K": 64},  # the runner's tiles: M, N and K are runtime arguments, the code the same
]
TILES = ("BM", "BN", "BK", "TM", "TN")


def kept(values: dict) -> bool:
    """BK rounds of TM·TN FFMA and the reads the trace writes (TM/4 + TN/4 float4s, or TM + TN words) over 130,
    and not a preset."""
    p = VectorizedParams(**values)
    reads = sum(n // 4 if n % 4 == 0 else n for n in (p.TM, p.TN))
    return p.BK * (p.TM * p.TN + reads) > 130 and any(values[name] != RUNNER[name] for name in TILES)


@pytest.mark.parametrize("values", SIZES)
def test_the_width_question_and_the_bank_checkpoint_only_where_nvccs_widths_are_known(values):
    params = VectorizedParams(**values)
    entries = {e.key: e for e in vectorized.entries(Run.of(KERNEL, params))}
    for key in ("vectorized:width", "vectorized:bank"):
        assert isinstance(entries[key], Skipped) == kept(values), entries[key]
        assert not kept(values) or entries[key].reason == common.WIDTHS_UNKNOWN
    found = checkpoints.bank_degree(KERNEL, params, Trace(KERNEL, params))
    assert (found is None) == kept(values)
    comments = [line for line in KERNEL.source(params) if "regM[i] =" in line or "regN[i] =" in line]
    assert all(("in pysim's model (nvcc may keep this loop here" in line) == kept(values) for line in comments)
    trace = Trace(KERNEL, params)
    read = next(step for step in trace if step.lines == k06_vectorized.LOAD_M)
    told = narration.phase_detail(read, params)
    assert "128-bit load" in told and ("in pysim's model (nvcc may keep this loop here" in told) == kept(values), told


def test_a_pair_of_values_is_named_a_64_bit_load_as_nvcc_issues_it() -> None:
    """TM=2 below the bound (8 × (8 + 2 + 1) = 88): nvcc issues As's pair as one LDS.64 each round (its SASS, here),
    and the listing, the narration and the guide's answer say so (they said 2 LDS.32 and '32-bit loads')."""
    from tools.sass import report

    try:
        toolchain.tool("nvcc")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    values = dict(M=32, N=32, K=32, BM=16, BN=16, BK=8, TM=2, TN=4)
    params = VectorizedParams(**values)
    assert report.report(KERNEL, params, "sm_80")["per_iteration"].get("LDS.64") == params.BK
    (comment,) = [line for line in KERNEL.source(params) if "regM[i] =" in line]
    assert comment.rstrip().endswith("// 1 LDS.64"), comment
    read = next(step for step in Trace(KERNEL, params) if step.lines == k06_vectorized.LOAD_M)
    assert "with 1 64-bit load." in narration.phase_detail(read, params)
    entry = next(e for e in vectorized.entries(Run.of(KERNEL, params)) if e.key == "vectorized:width")
    assert entry.answer == "2"


@pytest.mark.parametrize("preset", [True, False])
def test_the_warptile_narration_calls_the_widths_the_models_off_its_presets(preset) -> None:
    kernel = KERNELS["warptile"]
    values = dict(next(iter(kernel.PARAMS.PRESETS.values())))
    if not preset:
        values["BK"] = 8 if values["BK"] != 8 else 16
    params = kernel.PARAMS.parse({name: str(value) for name, value in values.items()})
    read = next(step for step in Trace(kernel, params) if step.phase == "compute" and step.accesses)
    told = warptile_narration.phase_detail(read, params)
    assert "each thread fills its registers from" in told
    assert ("in pysim's model (nvcc may keep this loop here" in told) == (not preset), told


def register_kept(values: dict) -> bool:
    """The rung below #/vectorized (the register kernel, same tiles): BK rounds of TM·TN FFMA and TM + TN reads."""
    from pysim.hardware.params import RegisterParams

    presets = [{k: v for k, v in preset.items() if k in TILES} for preset in RegisterParams.PRESETS.values()]
    length = values["BK"] * (values["TM"] * values["TN"] + values["TM"] + values["TN"])
    return length > 130 and {k: values[k] for k in TILES} not in presets


@pytest.mark.parametrize("values", SIZES)
def test_the_rung_table_says_its_shared_costs_are_the_models_where_either_rung_is_unsure(values):
    """#/vectorized's table compares it with the register kernel at the same tiles: its wavefronts and bank cycles
    are the model's where either loop is long (the runner's tiles are a vectorized preset, not a register one)."""
    from pysim.lessons import blocktiled

    shown = blocktiled.shown("vectorized", VectorizedParams(**values))
    assert shown["widths-unsure"] == (kept(values) or register_kept(values))
