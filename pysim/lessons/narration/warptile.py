"""What the page says about the steps of the warptile kernel (pysim/kernels/k10_warptile.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.instructions import widths_unsure
from ...core.trace import Step
from ...core.words import count, plural
from ...hardware.blocktile_params import WarptileParams
from ...kernels import k10_warptile as kernel
from . import tiled


def describe(step: Step, p: WarptileParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    if step.phase == "setup":
        return f"owns {p.WMITER}×{p.WNITER} patches of {p.TM}×{p.TN} in its warp's {p.WM}×{p.WN} warp tile"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        return tiled.describe_load(step, thread)
    if step.phase == "compute" and step.accesses:  # the regM or regN loads (pipelined warptiling's too)
        tile = step.accesses[0].array
        register = "regM" if tile == "As" else "regN"
        return f"{register} = {tiled.values(step.registers[register][thread])} from row {step.k} of {tile}"
    if step.phase == "compute":
        sub_m, sub_n = step.inner
        return f"adds the {p.TM}×{p.TN} outer product of subtile ({sub_m},{sub_n}) to its results"
    stored = int(np.count_nonzero(step.accesses[0].active[:, thread]))
    return f"stores {count(stored, 'float4')} of its {count(p.WMITER * p.TM * p.WNITER * p.TN, 'result')} to C"


def position(step: Step, p: WarptileParams) -> str:
    return tiled.position(step, p.BK, p.tiles, ("wSubRowIdx", "wSubColIdx"))


def narrate(step: Step, p: WarptileParams, thread: int) -> str:
    lane, warp = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (lane {lane} of warp {warp}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: WarptileParams, module: Any = kernel) -> str:
    """What the whole block is doing in this step (`module`: the kernel whose step it is, this one or the
    pipelined kernel that tells its compute steps the same way)."""
    if step.phase == "setup":
        return (
            f"Setup: {count(p.threads // 32, 'warp')} {plural(p.threads // 32, 'takes', 'each take')} one {p.WM}×{p.WN} warp tile, computed as "
            f"{p.WMITER}×{p.WNITER} subtiles of {p.WSUBM}×{p.WSUBN}."
        )
    if step.phase == "barrier":
        return tiled.barrier_detail(step, kernel.SYNC_LOADED)
    if step.phase == "load":
        return tiled.load_detail(step, p.threads)
    if step.phase == "compute" and step.accesses:
        loads = tiled.issued_loads(step, 0, widths_unsure(module, p))
        return f"dotIdx={step.k}: each thread fills its registers from {step.accesses[0].array} with {loads}."
    if step.phase == "compute":
        sub_m, sub_n = step.inner
        return (
            f"Warp-tile outer product, dotIdx={step.k}, subtile ({sub_m},{sub_n}): "
            f"every thread performs {count(p.TM * p.TN, 'FMA')} from registers."
        )
    return tiled.store_detail(step)
