"""The home page ends with where the reuse argument leads (issue 41 item 6; tools/sitebuild/homenext.py): its
numbers are pysim's for the walkthrough's opening sizes, the counts checked here against counts written out."""

from __future__ import annotations

import lxml.html

from pysim.hardware.params import HierarchyParams
from pysim.lessons.ladder import LadderParams, production, report_for, tensor_rung
from pysim.speed import format_flops
from tools.sitebuild import homenext, paths


def test_the_closing_paragraph_gives_the_fragments_reads_and_the_models_estimates():
    text = lxml.html.fragment_fromstring(homenext.paragraph()).text_content()
    opening = HierarchyParams()
    assert (opening.N, opening.device) == (1024, "a100")
    # An 8×8 register patch reads 8 + 8 values for 64 multiply-adds; per k-step of 8 the ladder's 64×64 warp tile
    # has each of 32 lanes read 4·4 + 2·8 = 32 fragment values for 64·64·8 multiply-adds; an mma does 16·8·8 = 1,024
    # multiply-adds, an FFMA warp instruction 32.
    register, fragment = 16 / 64, 32 * 32 / (64 * 64 * 8)
    assert f"read {register:.3g} values from shared memory per multiply-add at N = 1,024" in text
    assert f"{fragment:.3g} values per multiply-add, {register / fragment:.3g}× fewer" in text
    assert f"and {16 * 8 * 8 // 32}× fewer instructions" in text
    p = LadderParams(N=1024, device="a100")
    tensor = format_flops(report_for("mma", tensor_rung(p)).gflops * 1e9)
    ffma = format_flops(report_for("register", production(p)).gflops * 1e9)
    assert f"estimates {tensor} on its TF32 tensor cores (peak 156 TFLOP/s) against {ffma}" in text


def test_the_home_page_carries_the_mark_it_is_written_at():
    assert homenext.MARK in (paths.SITE / "index.html").read_text(encoding="utf-8")
