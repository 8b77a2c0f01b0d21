"""The register view's "what each step buys" table: naive, shared-memory tiled and register tiled
at the same M, N, K, counted by the kernels themselves.

Modelling choice (the kernels do not fix it): the naive and shared-memory rows use square
T×T blocks with T = min(BM, BN), the largest square tile inside the register kernel's BM×BN
block tile, capped at the largest T the device allows (T² threads per block, two T×T tiles
in static shared memory). Both rows use the same T because the naive kernel's global loads
(2·M·N·K) do not depend on T but its global sectors do (a warp spans T columns of C), so
with one block shape the sector counts compare like with like.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.counters import Counters
from ..hardware.devices import device
from ..hardware.params import NaiveParams, ParamError, RegisterParams, SmemParams
from ..kernels import KERNELS
from .formulas import largest_tile

COMPARED = ("global_loads", "shared_loads", "register_reads", "fma", "global_sectors", "bank_extra_cycles")


@dataclass(frozen=True)
class Row:
    """One kernel's counters for the table, or None and the reason it cannot run."""

    kernel: str
    label: str
    counters: Counters | None
    reason: str = ""


@dataclass(frozen=True)
class Comparison:
    T: int
    T_note: str  # why this T: shown under the table
    rows: tuple[Row, ...]


def comparison_tile(p: RegisterParams) -> tuple[int, str]:
    """The square block side T of the naive and shared-memory rows, and the sentence that justifies it."""
    wanted = min(p.BM, p.BN)
    cap = largest_tile(device(p.device))
    shared = (
        "Naive and shared-memory rows use T×T blocks with the same T: the naive kernel's global loads "
        "(2·M·N·K) do not depend on T, its sectors do."
    )
    if wanted <= cap:
        return (
            wanted,
            f"T = min(BM, BN) = {wanted}, the largest square tile inside the {p.BM}×{p.BN} block tile. {shared}",
        )
    return cap, (
        f"T = {cap}: min(BM, BN) = {wanted} is over the largest T×T block the device allows "
        f"(T² threads, two T×T tiles in shared memory), so T is capped there. {shared}"
    )


def _row(kernel: str, label: str, build) -> Row:
    try:
        return Row(kernel, label, KERNELS[kernel].counters(build()))
    except ParamError as error:
        return Row(kernel, label, None, error.message)


def compare(p: RegisterParams) -> Comparison:
    T, note = comparison_tile(p)
    rows = (
        _row(
            "naive",
            f"Naive (one thread per C element, {T}×{T} blocks)",
            lambda: NaiveParams(M=p.M, N=p.N, K=p.K, T=T, device=p.device),
        ),
        _row(
            "smem",
            f"Shared-memory tiled, T = {T}",
            lambda: SmemParams(M=p.M, N=p.N, K=p.K, T=T, device=p.device),
        ),
        _row("register", f"2D register tiled (TM = {p.TM}, TN = {p.TN})", lambda: p),
    )
    return Comparison(T, note, rows)
