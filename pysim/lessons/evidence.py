"""What the ladder shows as measured: the published run of a rung's kernel that applies to the page's card and
size (pysim.hardware.measurements), marked calibration or out-of-sample, and in words how it differs otherwise.

A run applies where it was drawn on the page's device preset at the page's N, with siboehm's tile for kernels
1-3. Where none applies, the cell still shows the calibration run (siboehm's RTX A6000) and says how the card,
size or tile differ; the roofline draws a diamond only where a run applies as the rung stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..hardware.measurements import CALIBRATION, Run, runs_on
from ..hardware.params import NaiveParams, SmemParams

# siboehm's kernel number of each rung that is one of his kernels (the reader's own row is not).
SIBOEHM_NUMBER = {
    "naive-row": 1,
    "naive-col": 2,
    "smem": 3,
    "blocktile1d": 4,
    "register-production": 5,
    "vectorized": 6,
    "warptile": 10,
}
SIBOEHM_TILE = 32  # his kernels 1-3 use 32×32 blocks and tiles


class Sized(Protocol):
    """What a rung's parameters tell evidence: its device and size."""

    @property
    def device(self) -> str: ...

    @property
    def M(self) -> int: ...

    @property
    def N(self) -> int: ...

    @property
    def K(self) -> int: ...


class Placed(Protocol):
    """A ladder rung as evidence reads it: its key and parameters (None when it cannot run)."""

    @property
    def key(self) -> str: ...

    @property
    def params(self) -> Sized | None: ...


@dataclass(frozen=True)
class Evidence:
    """One measured GFLOP/s for a rung, the run it comes from, and how that run differs from the rung."""

    gflops: float
    run: Run
    number: int  # siboehm's kernel number
    differences: tuple[str, ...]  # empty: the run is of this very card (preset), size and tile

    @property
    def applies(self) -> bool:
        return not self.differences

    @property
    def by(self) -> str:
        """Who measured it, on which card, at which N, and its role: the roofline key's words."""
        return f"{self.run.who}, {self.run.card.removeprefix('NVIDIA ')}, N={self.run.size}, {self.run.role}"

    @property
    def note(self) -> str:
        card = self.run.card.removeprefix("NVIDIA ")
        words = [f"{self.run.who}'s kernel {self.number}, measured on {card}, N={self.run.size}", self.run.role]
        words.append(f"source: {self.run.cite}")
        words += [text for text in (self.run.card_note, self.run.note, self.run.note_of(self.number)) if text]
        return "; ".join([*words, *self.differences])


def evidence(rung: Placed) -> Evidence | None:
    """The published measurement shown for a rung: a run on its card and size where one exists, else the
    calibration run with how it differs; None for a rung that is not one of siboehm's kernels."""
    number, p = SIBOEHM_NUMBER.get(rung.key), rung.params
    if number is None or p is None:
        return None
    square = p.M == p.N == p.K
    candidates = [*(runs_on(p.device, p.N) if square else ()), CALIBRATION]
    for run in candidates:
        gflops = run.of(number)
        if gflops is not None:
            return Evidence(gflops, run, number, tuple(_differences(p, run)))
    return None


def _differences(p: Sized, run: Run) -> list[str]:
    """How a rung's card, size or tile differ from a run, in words; none: the run applies."""
    notes = []
    if p.device != run.preset:
        notes.append("on another card")
    if (p.M, p.N, p.K) != (run.size,) * 3:
        notes.append("at another size")
    if isinstance(p, NaiveParams | SmemParams) and p.T != SIBOEHM_TILE:
        notes.append(f"with another tile (his is {SIBOEHM_TILE})")
    return notes


def measured_seconds(gflops: float, size: int = CALIBRATION.size) -> float:
    """A run's time at its size, from its GFLOP/s."""
    return 2 * size**3 / (gflops * 1e9)
