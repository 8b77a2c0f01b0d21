"""Where a multi-stage kernel's step is (#/mma and #/wgmma's focus line): the tile counted from 1 out of
ceil(K / BK), the stage it lands in (tiles go round the stages in order), and the k inside the tile, named as
each listing names it."""

from __future__ import annotations

import math

import pytest

from pysim.core.matrices import operands
from pysim.kernels import KERNELS
from pysim.lessons.narration import mma, wgmma

CASES = (
    (mma, "mma", {"M": "16", "N": "16", "K": "40", "BM": "16", "BN": "16", "BK": "8", "WM": "16", "WN": "16"}, "kk"),
    (wgmma, "wgmma", {"M": "64", "N": "32", "K": "96", "BM": "64", "BN": "32", "BK": "32", "stages": "2"}, "k"),
)


@pytest.mark.parametrize(("narration", "name", "raw", "k_name"), CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_position_names_tile_stage_and_k(narration, name, raw, k_name):
    kernel = KERNELS[name]
    p = kernel.PARAMS.parse({**{k: str(v) for k, v in next(iter(kernel.PARAMS.PRESETS.values())).items()}, **raw})
    tiles = math.ceil(int(raw["K"]) / int(raw["BK"]))
    A, B = operands(p.M, p.N, p.K, 0)
    seen = set()
    for step in kernel.block_steps(p, A, B, 0, 0):
        text = narration.position(step, p)
        assert text.startswith("Block (0,0)"), text
        if step.tile is not None:
            assert f"tile {step.tile + 1} of {tiles} (stage {step.tile % p.stages})" in text, text
            seen.add(step.tile)
        if step.k is not None:
            assert text.endswith(f"{k_name}={step.k % int(raw['BK'])}"), text
    assert seen == set(range(tiles))
