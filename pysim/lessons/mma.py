"""What #/mma says and draws, computed: the m16n8k8 tiles with the lane and register that hold each element
(pysim/core/fragments.py), the bank wavefronts of a step's shared accesses under both layouts (padded rows
and the XOR swizzle, from pysim/kernels/mma_layout.py and pysim/core/banks.py), the tensor-core counts, C's
error against float64 in TF32 and 3xTF32 (pysim/core/tf32.py) and the explanation's numbers. The view
draws these; it counts nothing."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core import banks, tf32
from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.counters import Counters
from ..core.fragments import A_MAP, B_MAP, C_MAP, MMA_K, MMA_M, MMA_N
from ..core.trace import Step
from ..core.words import count
from ..hardware.mma_params import MmaParams
from ..hardware.params import ParamError
from ..kernels import KERNELS
from ..kernels import k12_mma as kernel
from ..kernels import mma_layout as layout

CITATION = "PTX ISA §9.7.14.5.7, “Matrix Fragments for mma.m16n8k8” (.tf32)"
LAYOUTS = {0: "padded rows", 1: "XOR swizzle"}
ERROR_SEED = 0  # the random operands of the error table: uniform [-1, 1], one seed, the sizes on screen


@dataclass(frozen=True)
class FragmentTile:
    """One operand tile of mma.m16n8k8: for each element, the lane that holds it and in which register."""

    name: str  # "A", "B" or "C"
    shape: tuple[int, int]
    lanes: tuple[tuple[int, ...], ...]
    registers: tuple[tuple[str, ...], ...]  # "a0".."a3", "b0", "b1", "c0".."c3"

    def cells_of(self, lane: int) -> tuple[tuple[int, int], ...]:
        """The elements `lane` holds, row by row."""
        return tuple((r, c) for r, row in enumerate(self.lanes) for c, held in enumerate(row) if held == lane)


def _tile(name: str, frag: np.ndarray, shape: tuple[int, int]) -> FragmentTile:
    lanes = np.full(shape, -1)
    registers = np.full(shape, "", dtype=object)
    for lane in range(WARP_SIZE):
        for i, (row, col) in enumerate(frag[lane].tolist()):
            lanes[row, col] = lane
            registers[row, col] = f"{name.lower()}{i}"
    return FragmentTile(name, shape, tuple(map(tuple, lanes.tolist())), tuple(map(tuple, registers.tolist())))


FRAGMENTS = (
    _tile("A", A_MAP, (MMA_M, MMA_K)),
    _tile("B", B_MAP, (MMA_K, MMA_N)),
    _tile("C", C_MAP, (MMA_M, MMA_N)),
)


def fragment_now(step: Step) -> str | None:
    """The fragment a step reads or computes ("A", "B", or "C" for the mmas and the store), else None."""
    return {kernel.FRAG_A: "A", kernel.FRAG_B: "B", kernel.MMA: "C", kernel.STORE: "C"}.get(step.lines)


def other(p: MmaParams) -> tuple[MmaParams | None, str]:
    """The same sizes in the other layout, or None with the message Params.check refuses it with."""
    try:
        return replace(p, swizzle=1 - p.swizzle), ""  # construction runs Params.check
    except ParamError as error:
        return None, error.message


def _step_words(p: MmaParams, step: Step) -> tuple[str, np.ndarray, int] | None:
    """(what, physical words (instructions, threads), words a lane) of the step's shared access in layout
    `p`, worked out from the listing again so that the other layout can be priced too."""
    if step.tile is None or step.phase not in ("load", "compute") or step.lines == kernel.MMA:
        return None
    stage, width = step.tile % p.stages, 1
    if step.lines == kernel.LOAD_A:
        what, words, width = "copy A", layout.a_words(p, stage, *layout.copy_rounds(p, p.BM, p.BK)), layout.COPY_FLOATS
    elif step.lines == kernel.LOAD_B:
        what, words, width = "copy B", layout.b_words(p, stage, *layout.copy_rounds(p, p.BK, p.BN)), layout.COPY_FLOATS
    else:
        a_rows, a_cols, b_rows, b_cols = layout.fragment_reads(p)
        k = (step.k or 0) % p.BK
        if step.lines == kernel.FRAG_A:
            what, words = "fragments A", layout.a_words(p, stage, a_rows, a_cols + k)
        else:
            what, words = "fragments B", layout.b_words(p, stage, b_rows + k, b_cols)
    return what, layout.physical_words(p, words), width


@dataclass(frozen=True)
class StepBanks:
    """The followed warp's shared access in this step: its first instruction bank by bank, and the
    wavefronts of all its instructions in each layout (None where the layout is refused at these sizes)."""

    what: str
    instructions: int
    words_per_bank: tuple[int, ...]  # distinct words the first instruction asks of each bank
    wavefronts: dict[str, int | None]  # by layout name
    ideal: int  # wavefronts with no conflict: one per phase (4 for 16-byte lanes, 1 for 4-byte)
    refused: str


def step_banks(p: MmaParams, step: Step, thread: int) -> StepBanks | None:
    """Bank wavefronts of the followed thread's warp in this step, for both layouts (None: no shared access)."""
    found = _step_words(p, step)
    if found is None:
        return None
    what, words, width = found
    warp = slice(thread // WARP_SIZE * WARP_SIZE, (thread // WARP_SIZE + 1) * WARP_SIZE)
    swapped, refused = other(p)
    wavefronts: dict[str, int | None] = {LAYOUTS[p.swizzle]: banks.wavefronts(words[:, warp], width)}
    alternative = _step_words(swapped, step) if swapped is not None else None
    wavefronts[LAYOUTS[1 - p.swizzle]] = (
        None if alternative is None else banks.wavefronts(alternative[1][:, warp], width)
    )
    report = banks.analyse(words[0, warp], width)
    phases = 4 if width == layout.COPY_FLOATS else 1
    return StepBanks(
        what,
        words.shape[0],
        tuple(len(bank) for bank in report.words_per_bank),
        {name: wavefronts[name] for name in LAYOUTS.values()},
        phases * words.shape[0],
        refused,
    )


def tile_table(p: MmaParams) -> dict[str, dict[str, tuple[int, int] | None]]:
    """(wavefronts, bank-conflict cycles) of one tile of the whole block, by access kind and layout (None
    where the layout is refused): what the counters add per tile, split up."""
    swapped, _ = other(p)
    table: dict[str, dict[str, tuple[int, int] | None]] = {}
    for params in (p, swapped):
        if params is None:
            continue
        name = LAYOUTS[params.swizzle]
        for kind, words, width in layout.tile_accesses(params, 0):
            extra, waves = banks.costs(words, width)
            total = table.setdefault(kind, dict.fromkeys(LAYOUTS.values())).get(name) or (0, 0)
            table[kind][name] = (total[0] + waves, total[1] + extra)
    return table


@dataclass(frozen=True)
class ErrorRow:
    """C's error max|C − C64| / max|C64| for one arithmetic: on the page's operands and on random ones."""

    label: str
    split: int | None  # None: float32 FMAs (the rungs before), for comparison
    page: float
    random: float


def _float32(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """C as float32 FMAs make it: one float32 rounding per multiply-add, k in order."""
    c = np.zeros((A.shape[0], B.shape[1]), dtype=np.float32)
    for k in range(A.shape[1]):
        c = (c + A[:, k : k + 1] * B[k : k + 1]).astype(np.float32)
    return c


def errors(p: MmaParams, A: np.ndarray, B: np.ndarray) -> tuple[ErrorRow, ...]:
    """TF32, 3xTF32 and float32 against float64 at the sizes on screen, on `A`, `B` (the page's) and on
    uniform [-1, 1] operands of the same shapes (seed ERROR_SEED)."""
    rng = np.random.default_rng(ERROR_SEED)
    RA = rng.uniform(-1, 1, A.shape).astype(np.float32)
    RB = rng.uniform(-1, 1, B.shape).astype(np.float32)
    rows = [
        ErrorRow(
            name,
            split,
            tf32.relative_error(tf32.gemm(A, B, split), A, B),
            tf32.relative_error(tf32.gemm(RA, RB, split), RA, RB),
        )
        for name, split in (("TF32 (split=1)", 1), ("3xTF32 (split=3)", 3))
    ]
    rows.append(
        ErrorRow(
            "float32 FMAs",
            None,
            tf32.relative_error(_float32(A, B), A, B),
            tf32.relative_error(_float32(RA, RB), RA, RB),
        )
    )
    return tuple(rows)


def tensor_flops(counters: Counters) -> int:
    return layout.tensor_flops(counters)


def slot_values(p: MmaParams) -> dict[str, object]:
    """Every slot of site/partials/mma-explain.html, for these sizes."""
    counters = KERNELS["mma"].counters(p)
    return {
        "warps": p.warps,
        "mmas_per_kstep": p.MITER * p.NITER * p.split,
        "mma_instructions": counters.mma_instructions,
        "tensor_flops": tensor_flops(counters),
        "useful_flops": 2 * p.M * p.N * p.K,
        "async_copy_bytes": counters.async_copy_bytes,
        "shared_bytes": p.shared_bytes,
        "stages": p.stages,
        # The sentence names the padded strides (swizzle=0) beside the swizzle, whichever layout is on screen.
        "a_stride": p.padded_strides[0],
        "b_stride": p.padded_strides[1],
    }


def captions(p: MmaParams) -> dict[str, str]:
    """The grids' captions: As and Bs with every stage stacked, rows padded or swizzled."""
    gx, gy = KERNELS["mma"].grid(p)
    xor = p.xor
    rows = f"{WORD_BYTES * xor.chunk}-byte chunks XOR-swizzled ({xor})" if p.swizzle else "rows padded"
    return {
        "A": f"Matrix A ({p.M} × {p.K})",
        "B": f"Matrix B ({p.K} × {p.N})",
        "As": f"As [{p.stages}·{p.BM}][{p.a_stride}]: {p.stages} stages, A as it lies (row m → a fragment), {rows}",
        "Bs": f"Bs [{p.stages}·{p.BK}][{p.b_stride}]: {p.stages} stages (row k → b fragment), {rows}",
        "C": f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks; each warp one {p.WM}×{p.WN} tile of "
        f"{p.MITER}×{p.NITER} mma tiles (16×8)",
    }


def banks_text(p: MmaParams, found: StepBanks | None, warp: int) -> str:
    """The sentence above the bank strip."""
    if found is None:
        return "This step reads and writes no shared memory."
    now, then = LAYOUTS[p.swizzle], LAYOUTS[1 - p.swizzle]
    mine, theirs = found.wavefronts[now], found.wavefronts[then]
    named = {LAYOUTS[0]: LAYOUTS[0], LAYOUTS[1]: f"{LAYOUTS[1]} {p.xor}"}
    other_text = f"with {named[then]}: {theirs}" if theirs is not None else f"{then} is refused here ({found.refused})"
    return (
        f"{found.what.capitalize()}, warp {warp}: {count(found.instructions, 'warp instruction')}, {mine} wavefronts with {named[now]} "
        f"(no conflict: {found.ideal}); {other_text}. The strip: words each bank serves in the first instruction."
    )


def flops_text(p: MmaParams, counters: Counters) -> str:
    """The tensor-core FLOPs of the counters so far, beside the 2·M·N·K the product needs."""
    return (
        f"Tensor FLOPs so far: {tensor_flops(counters):,} (mma_instructions × {layout.FLOPS_PER_MMA:,}); the "
        f"product needs {2 * p.M * p.N * p.K:,} in all"
        + (", and 3xTF32 executes three per useful one" if p.split == 3 else "")
        + "."
    )
