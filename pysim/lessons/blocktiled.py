"""What the blocktiled views (#/blocktile1d, #/vectorized, #/warptile) say and draw, computed.

Each rung of siboehm's ladder is compared with the rung before it at the same M, N, K:
1D blocktiling with shared-memory tiling, vectorized 2D blocktiling with 2D register tiling
(the same block and thread tiles), warptiling with the vectorized kernel. The costs each
rung removes are measured on the kernels' own steps and closed-form counters:

- load instructions per block: warp-wide global load instructions one block issues per
  bkIdx step, and the floats each one moves (a float4 load moves 4 per lane);
- shared wavefronts per FMA: passes shared memory takes (conflicts and 128-bit phases
  included) per multiply-add, over the whole run;
- register reuse per warp: the FMAs warp 0 performs per distinct shared value it reads
  into registers, for one dotIdx.

Also the drawing aids the views ask for (they do no index arithmetic): the four-cell groups
of every 128-bit access of a step, and the sides of a set of cells that face outward (to
outline a group, a warp tile or a subtile). No browser imports.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..core import placement
from ..core.constants import WARP_SIZE
from ..core.instructions import KEPT_LOOP_TOTAL, widths_unsure
from ..core.matrices import operands
from ..core.trace import Cell, Step
from ..core.warps import INACTIVE, by_warp
from ..core.words import count
from ..hardware.blocktile_params import Blocktile1DParams, VectorizedParams, WarptileParams
from ..hardware.params import ParamError, RegisterParams, SmemParams
from ..kernels import KERNELS
from .checkpoints import format_number
from .comparison import comparison_tile
from .rung_words import BUILT_TO_REMOVE, change, counted_change, fraction_texts, removed, removes, than

PREVIOUS = {"blocktile1d": "smem", "vectorized": "register", "warptile": "vectorized"}
VECTOR = 4  # floats in a float4 (LDG.128 / LDS.128 / STG.128)


# --- drawing aids ------------------------------------------------------------------------------
def vector_groups(step: Step) -> dict[str, list[tuple[Cell, ...]]]:
    """Per array, the cells each lane's 128-bit (or 64-bit) access of this step moves, one group
    per lane and instruction (lanes asking for the same group appear once), row by row."""
    found: dict[str, set[tuple[Cell, ...]]] = {}
    for access in step.accesses:
        if access.width == 1:
            continue
        active = access.active
        firsts = set(zip(access.rows[active].tolist(), access.cols[active].tolist()))
        groups = found.setdefault(access.array, set())
        groups.update(tuple((r, c + i) for i in range(access.width)) for r, c in firsts)
    return {array: sorted(groups) for array, groups in found.items()}


def edges(groups: Iterable[Iterable[Cell]]) -> dict[Cell, str]:
    """For each cell of each group, the sides ("t", "b", "l", "r") that face out of its group,
    so that a group (a float4, a warp tile, a subtile) can be drawn with one outline."""
    sides: dict[Cell, set[str]] = {}
    for group in groups:
        inside = set(group)
        for r, c in inside:
            out = {
                side
                for side, neighbour in (("t", (r - 1, c)), ("b", (r + 1, c)), ("l", (r, c - 1)), ("r", (r, c + 1)))
                if neighbour not in inside
            }
            sides.setdefault((r, c), set()).update(out)
    return {cell: " ".join(sorted(found)) for cell, found in sides.items() if found}


def panel_captions(name: str, p: Any) -> dict[str, str]:
    """The grids' captions: each array with its shape, As marked transposed where it is."""
    gx, gy = KERNELS[name].grid(p)
    transposed = name != "blocktile1d"
    if name == "blocktile1d":
        per_thread = f"each thread computes {count(p.TM, 'result')} of one column"
    elif name == "vectorized":
        per_thread = f"each thread computes one {p.TM}×{p.TN} patch"
    else:
        per_thread = (
            f"each warp one {p.WM}×{p.WN} warp tile, each thread {p.WMITER}×{p.WNITER} patches of {p.TM}×{p.TN}"
        )
    return {
        "A": f"Matrix A ({p.M} × {p.K})",
        "B": f"Matrix B ({p.K} × {p.N})",
        "As": f"As [{p.BK}][{p.BM}] (A transposed: row dotIdx → regM)"
        if transposed
        else f"As [{p.BM}][{p.BK}] (column dotIdx → threadResults)",
        "Bs": f"Bs [{p.BK}][{p.BN}] (row dotIdx → " + ("regN)" if transposed else "tmpB)"),
        "C": f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks; {per_thread}",
    }


# --- the costs of a rung -----------------------------------------------------------------------
@dataclass(frozen=True)
class RungCosts:
    """One kernel's costs at one size (see the module docstring)."""

    kernel: str
    label: str
    threads: int
    load_instructions: int  # warp-wide global load instructions per block and bkIdx step
    run_load_instructions: int  # the same for every block and bkIdx step of the run (full tiles)
    floats_per_load: int  # floats one such instruction moves, with every lane inside the matrices
    shared_loads_per_fma: Fraction
    wavefronts_per_fma: Fraction
    bank_extra_cycles: int  # over the whole run
    warp_fmas: int  # FMAs warp 0 performs in one dotIdx
    warp_values: int  # distinct shared values warp 0 reads into registers in that dotIdx

    @property
    def warp_reuse(self) -> Fraction:
        return Fraction(self.warp_fmas, self.warp_values)


def _tile_sizes(p: Any) -> dict[str, int]:
    """M, N, K of a run that is exactly one block and one bkIdx step of `p`'s kernel."""
    if isinstance(p, SmemParams):
        return {"M": p.T, "N": p.T, "K": p.T}
    return {"M": p.BM, "N": p.BN, "K": p.BK}


@lru_cache(maxsize=32)
def _one_tile(name: str, p: Any) -> tuple[int, int, int, int]:
    """(load instructions, floats they move, warp 0's FMAs and distinct shared values in dotIdx 0) of
    one block's first bkIdx step, read from the kernel's own steps on a one-block, one-tile run."""
    kernel = KERNELS[name]
    one = replace(p, **_tile_sizes(p))
    A, B = operands(one.M, one.N, one.K)
    lanes = min(WARP_SIZE, kernel.threads(one))
    instructions = floats = fmas = 0
    words: set[tuple[str, int]] = set()
    for step in kernel.block_steps(one, A, B, 0, 0):
        for access in step.accesses:
            if access.space == "global" and access.op == "load":
                issued = by_warp(np.where(access.active, 1, 0)).max(axis=-1) == 1  # (instruction, warp) with a lane
                instructions += int(issued.sum())
                floats += access.elements
            if access.space == "shared" and access.op == "load" and step.k == 0:
                first = access.words[:, :lanes]
                first = first[first != INACTIVE]
                words.update((access.array, int(w) + i) for w in np.unique(first) for i in range(access.width))
        if step.k == 0:
            fmas += step.fma * lanes // kernel.threads(one)
    return instructions, floats // max(instructions, 1), fmas, len(words)


def costs(name: str, p: Any, label: str) -> RungCosts:
    kernel = KERNELS[name]
    totals = kernel.counters(p)
    instructions, per_load, fmas, values = _one_tile(name, p)
    gx, gy = kernel.grid(p)
    return RungCosts(
        name,
        label,
        kernel.threads(p),
        instructions,
        instructions * gx * gy * p.tiles,
        per_load,
        Fraction(totals.shared_loads, totals.fma),
        Fraction(totals.shared_wavefronts, totals.fma),
        totals.bank_extra_cycles,
        fmas,
        values,
    )


# The sizes a rung's label names, as the address writes them.
LABEL_SIZES = {
    "smem": ("T",),
    "blocktile1d": ("BM", "BN", "BK", "TM"),
    "register": ("BM", "BN", "BK", "TM", "TN"),
    "vectorized": ("BM", "BN", "BK", "TM", "TN"),
    "warptile": ("BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN"),
}


def _label(name: str, p: Any) -> str:
    kernel = KERNELS[name]
    sizes = ", ".join(f"{key}={getattr(p, key)}" for key in LABEL_SIZES[name])
    return f"{kernel.TITLE} ({sizes}, {kernel.threads(p)} threads)"


def previous_params(name: str, p: Any) -> tuple[Any | None, str]:
    """The rung below `name` at the same M, N, K, and why those block sizes (or why none runs)."""
    same = {"M": p.M, "N": p.N, "K": p.K, "device": p.device}
    if name == "blocktile1d":
        T, note = comparison_tile(p)
        return SmemParams(T=T, **same), note.split(". ")[0] + "."
    if name == "vectorized":
        fields = {key: getattr(p, key) for key in ("BM", "BN", "BK", "TM", "TN")}
        return RegisterParams(
            **fields, **same
        ), "The same block and thread tiles, with scalar loads and As not transposed."
    tries = (
        (
            dict(BM=p.BM, BN=p.BN, BK=VECTOR * p.threads // p.BM, TM=p.WMITER * p.TM, TN=p.WNITER * p.TN),
            "The same block tile, threads and results per thread, without the warp level "
            "(BK chosen so each thread loads one float4 of A and one of B, as kernel 6 requires).",
        ),
        (
            next(iter(VectorizedParams.PRESETS.values())),
            "Kernel 6's teaching sizes (the same thread tile cannot run there).",
        ),
    )
    reasons = []
    for sizes, note in tries:
        try:
            return VectorizedParams(**{**sizes, **same}), note
        except ParamError as error:
            reasons.append(error.message)
    return None, "The vectorized kernel cannot run at these sizes: " + "; ".join(reasons)


@dataclass(frozen=True)
class Rung:
    """A page's comparison: this kernel and the rung below it (None when that cannot run here)."""

    this: RungCosts
    previous: RungCosts | None
    note: str


def rung(name: str, p: Any) -> Rung:
    before, note = previous_params(name, p)
    previous = None if before is None else costs(PREVIOUS[name], before, _label(PREVIOUS[name], before))
    return Rung(costs(name, p, _label(name, p)), previous, note)


def fraction_text(value: Fraction) -> str:
    return format_number(value)


COMPARED = (
    "load_instructions",
    "floats_per_load",
    "run_load_instructions",
    "shared_loads_per_fma",
    "wavefronts_per_fma",
    "warp_reuse",
)


def slot_values(name: str, p: Any) -> dict[str, object]:
    """Every slot of site/partials/<name>-explain.html: the table (prev_*, this_*) and the page's own numbers."""
    r = rung(name, p)
    values: dict[str, object] = {"M": p.M, "N": p.N, "K": p.K, "compare_note": r.note}
    values["kept_loop_total"] = KEPT_LOOP_TOTAL
    values["placement"] = placement_either(name, p)
    for prefix, row in (("prev", r.previous), ("this", r.this)):
        values[f"{prefix}_label"] = "cannot run at these sizes" if row is None else row.label
        for key in COMPARED:
            value = None if row is None else getattr(row, key)
            values[f"{prefix}_{key}"] = (
                "—" if value is None else fraction_text(value) if isinstance(value, Fraction) else value
            )
        values[f"{prefix}_bank_extra_cycles"] = "—" if row is None else row.bank_extra_cycles
    for key in ("wavefronts_per_fma", "shared_loads_per_fma", "warp_reuse"):
        if r.previous is not None:  # the pair to as many decimals as tell them apart: never "≈ 0.05 → ≈ 0.05"
            values[f"prev_{key}"], values[f"this_{key}"] = fraction_texts(
                getattr(r.previous, key), getattr(r.this, key)
            )
    values |= _own(name, p, r)
    return values


def shown(name: str, p: Any) -> dict[str, bool]:
    """Which alternative sentences (`data-show="name"`) are visible for these sizes."""
    found = {"partial-warp": KERNELS[name].threads(p) < WARP_SIZE, "widths-unsure": widths_unsure_either(name, p)}
    found["widths-placed"] = not found["widths-unsure"] and bool(placement_either(name, p))
    r = rung(name, p)
    if name == "blocktile1d":
        # The rung is built to cut shared-memory traffic per FMA; the page claims so only where it does.
        removes = removed(r, *BUILT_TO_REMOVE[name][0][:2])
        found |= {"removes-shared": removes, "keeps-shared": not removes, "reuses-b": p.TM > 1, "no-reuse": p.TM == 1}
    if name == "vectorized":  # why the rung below had conflicts, said only where this rung removes them
        found["conflicts-reason"] = removed(r, *BUILT_TO_REMOVE[name][1][:2])
    return found


def placement_either(name: str, p: Any) -> str:
    """`placement` for this rung, else the one below, at these sizes: why the table's widths may not be nvcc's."""
    before, _ = previous_params(name, p)
    below = "" if before is None else placement.unsure(KERNELS[PREVIOUS[name]], before)
    return placement.unsure(KERNELS[name], p) or below


def widths_unsure_either(name: str, p: Any) -> bool:
    """`kept-loop-base` for this rung or the one below at these sizes: the table's wavefronts and bank cycles then
    price pysim's model of the widths nvcc gives the shared loads."""
    before, _ = previous_params(name, p)
    return widths_unsure(KERNELS[name], p) or (before is not None and widths_unsure(KERNELS[PREVIOUS[name]], before))


def _lanes_text(threads: int) -> str:
    """Lanes per warp, on average: a warp runs 32 lanes, the last one of a block only its remainder."""
    lanes = Fraction(threads, -(-threads // WARP_SIZE))
    return str(lanes) if lanes.denominator == 1 else f"{float(lanes):.1f}"


def _warps_text(threads: int) -> str:
    if threads < WARP_SIZE:
        return f"its {threads} threads fill {threads} of a warp's {WARP_SIZE} lanes"
    return f"its {threads} threads fill {-(-threads // WARP_SIZE)} warps, {_lanes_text(threads)} lanes each on average"


def _fuller(before: int, after: int) -> bool:
    """Whether `before` threads fill their warps with more lanes on average than `after` do."""
    return Fraction(before, -(-before // WARP_SIZE)) > Fraction(after, -(-after // WARP_SIZE))


def _shared_reason(before: RungCosts, after: RungCosts, p: Any) -> str:
    """Why shared wavefronts per FMA do not fall (the page shows it only then), from the counts."""
    if p.TM == 1:
        return "with TM = 1 each thread computes one result from two shared values, as in the rung below"
    if _fuller(before.threads, after.threads):
        return (
            f"{_warps_text(after.threads)}, against {_lanes_text(before.threads)} lanes per warp in the rung below: "
            "a shared wavefront is one pass however few lanes take part, so each serves fewer FMAs"
        )
    return "the extra passes of its shared accesses (conflicts, partly filled warps) outweigh the reads it saves"


def _loads_reason(before: RungCosts, after: RungCosts, p: Any, T: int) -> str:
    """Why the whole run's global load instructions change as they do: the floats the blocks move (whole tiles)
    and the floats one instruction moves, each named only in the direction it went."""
    moved = before.run_load_instructions * before.floats_per_load, after.run_load_instructions * after.floats_per_load
    if moved[1] < moved[0]:
        cause = (
            "a bigger block tile means fewer trips to global memory for the same C"
            if p.BM > T
            else "its tiles overhang the matrices less"
        )
        total = f"{cause} (the blocks move {moved[1]:,} floats in all, not {moved[0]:,})"
    elif moved[1] > moved[0]:
        total = (
            f"the blocks move {moved[1]:,} floats in all, not {moved[0]:,}, because whole tiles are loaded and its "
            "tiles overhang the matrices more"
        )
    else:
        why = (
            "its bigger block tile saves no trips at these sizes"
            if p.BM > T
            else "its block tile is no bigger than the rung below's T×T"
        )
        total = f"the blocks move the same {moved[0]:,} floats ({why})"
    per = before.floats_per_load, after.floats_per_load
    if per[1] < per[0]:
        return (
            f"{total}, and one instruction moves {per[1]} of them, not {per[0]}, because {_warps_text(after.threads)}"
        )
    if per[1] > per[0]:
        return f"{total}, and one instruction moves {per[1]} of them, not {per[0]}"
    return f"{total}, at {per[1]} per instruction in both"


# The page's own slots, beyond the table's (each template uses exactly these).
PAGE_SLOTS = {
    "blocktile1d": (
        "threads",
        "BM",
        "BN",
        "TM",
        "reads",
        "waves_change",
        "reuse_change",
        "this_reuse",
        "loads_change",
        "shared_reason",
        "loads_reason",
    ),
    "vectorized": (
        "threads",
        "BM",
        "BN",
        "BK",
        "TM",
        "TN",
        "removes",
        "loads_change",
        "cycles_change",
        "waves_change",
        "reuse_change",
    ),
    "warptile": (
        "warps",
        "WM",
        "WN",
        "WMITER",
        "WNITER",
        "WSUBM",
        "WSUBN",
        "TM",
        "TN",
        "warp_sum",
        "warp_values",
        "warp_fmas",
        "removes",
        "this_reuse",
        "reuse_than",
        "waves_change",
    ),
}


def _own(name: str, p: Any, r: Rung) -> dict[str, object]:
    this, prev = r.this, r.previous
    found: dict[str, object] = {
        "threads": this.threads,
        "loads_change": change(prev, this, "run_load_instructions"),
        "waves_change": change(prev, this, "wavefronts_per_fma"),
        "reuse_change": change(prev, this, "warp_reuse"),
        "cycles_change": counted_change(prev, this, "bank_extra_cycles"),
        "reuse_than": than(prev, this, "warp_reuse"),
        "removes": removes(name, r),
        "warp_fmas": this.warp_fmas,
        "warp_values": this.warp_values,
        "this_reuse": fraction_text(this.warp_reuse),
        "BM": p.BM,
        "BN": p.BN,
        "BK": p.BK,
        "TM": p.TM,
    }
    if isinstance(p, Blocktile1DParams):
        found["reads"] = p.TM + 1
        smem, _ = previous_params(name, p)
        assert prev is not None and smem is not None  # kernel 4's rung below (smem, T capped) runs at every size
        found["shared_reason"] = _shared_reason(prev, this, p)
        found["loads_reason"] = _loads_reason(prev, this, p, smem.T)
    else:
        found["TN"] = p.TN
    if isinstance(p, WarptileParams):
        found |= {
            "WM": p.WM,
            "WN": p.WN,
            "WMITER": p.WMITER,
            "WNITER": p.WNITER,
            "WSUBM": p.WSUBM,
            "WSUBN": p.WSUBN,
            "warps": p.threads // WARP_SIZE,
            "warp_sum": p.WM + p.WN,
        }
    return {key: found[key] for key in PAGE_SLOTS[name]}
