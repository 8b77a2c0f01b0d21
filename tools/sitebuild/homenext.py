"""The home page's closing paragraph (issue 41 item 6): where the reuse argument leads, one level further
(registers → tensor-core fragments), with pysim's numbers for the walkthrough's opening sizes (the N and device
#/hierarchy opens at), written into the page at build time so it reads before (and without) Python. The same
numbers, for whatever N and device the student picks, end the walkthrough (site/partials/hierarchy.html)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from pysim.hardware.params import HierarchyParams
from pysim.lessons.next_level import next_level
from pysim.speed import SpeedReport, format_flops
from tools.sitebuild.errors import BuildError

MARK = "<!-- build: home-next -->"
LINK = "#/mma"


def rate(report: SpeedReport | str) -> str | None:
    return format_flops(report.gflops * 1e9) if isinstance(report, SpeedReport) else None


def paragraph() -> str:
    opening = HierarchyParams()
    found = next_level(opening.N, opening.device)
    if found.fragment_reads is None or found.fewer is None:  # the opening sizes are chosen so the rung runs
        raise BuildError(f"the tensor-core rung cannot run at the walkthrough's opening sizes: {found.tensor}")
    text = (
        f"<strong>Where this leads:</strong> the same reuse argument, one level further. Shared memory lets one "
        f"global load serve a tile's threads; registers let one shared-memory read serve a thread's patch of C "
        f"(siboehm's 8×8 patches read {float(found.register_reads):.3g} values from shared memory per "
        f"multiply-add at N = {found.N:,}). A tensor core's <code>mma.sync</code> spreads its tiles over the "
        f"registers of a warp's 32 lanes, the fragments: {float(found.fragment_reads):.3g} values per multiply-add, "
        f"{float(found.fewer):.3g}× fewer, and {found.instructions_fewer}× fewer instructions."
    )
    tensor, register = rate(found.tensor), rate(found.register)
    if tensor is not None and register is not None:
        text += (
            f" On the {escape(found.device.name)}, the speed model estimates {tensor} on its TF32 tensor cores "
            f"(peak {found.tf32_peak()}) against {register} for register tiling: estimates, not measurements."
        )
    return f'<p class="next-level" data-testid="home-next">{text} <a href="{LINK}">TF32 tensor cores →</a></p>'


def write_home_next(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    if MARK not in html:
        raise BuildError(f"{page} has no `{MARK}` on its home page")
    page.write_text(html.replace(MARK, paragraph()), encoding="utf-8")
