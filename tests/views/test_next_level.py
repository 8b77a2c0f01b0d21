"""Issue 41 item 6: the walkthrough ends with where the reuse argument leads (registers, then tensor-core fragments),
its numbers for the N and the device on screen: the kernels' closed-form counters and the speed model's estimates,
counted here independently where they are counts."""

import pytest

from pysim.hardware.devices import DEVICES
from pysim.lessons.ladder import LadderParams, report_for, tensor_rung
from pysim.speed import format_flops


def slot(page, name: str) -> str:
    return page.text(page.find(f'[data-testid="next-level"] [data-slot="{name}"]'))


def shown(page, case: str) -> bool:
    return page.visible(page.find(f'[data-testid="next-level"] [data-when="{case}"]'))


@pytest.mark.parametrize("N", [1024, 512])
def test_fragments_read_8_times_fewer_values_per_multiply_add_than_8x8_register_tiles(page, N):
    page.go(f"#/hierarchy?N={N}&T=16&device=a100")
    # Per k-step of 8, a 64×64 warp tile: each of 32 threads reads 4·4 + 2·8 = 32 fragment values for 64·64·8
    # multiply-adds of the warp; an 8×8 register tile reads 8 + 8 values for 64 multiply-adds.
    assert slot(page, "next-fragment-reads") == f"{32 * 32 / (64 * 64 * 8):.3g}" == "0.0312"
    assert slot(page, "next-register-reads") == f"{16 / 64:.3g}" and slot(page, "next-fewer") == "8"
    assert slot(page, "next-instructions-fewer") == "32"  # 1,024 multiply-adds an mma, 32 an FFMA
    assert shown(page, "fragments") and shown(page, "tensor-priced") and not shown(page, "no-fragments")
    report = report_for("mma", tensor_rung(LadderParams(N=N, device="a100")))
    assert slot(page, "next-tensor-estimate") == format_flops(report.gflops * 1e9)
    assert slot(page, "next-tf32-peak") == format_flops(DEVICES["a100"].tf32_tensor.value * 1e12)


def test_the_t4_says_why_there_are_no_fragments(page):
    page.go("#/hierarchy?N=1024&T=16&device=t4")
    assert shown(page, "no-fragments") and not shown(page, "fragments") and not shown(page, "tensor-priced")
    assert "compute capability 7.5" in slot(page, "next-why-not")


def test_the_a6000_has_fragments_but_no_tensor_estimate(page):
    page.go("#/hierarchy?N=1024&T=16&device=rtxa6000")
    assert shown(page, "fragments") and shown(page, "tensor-unpriced") and not shown(page, "tensor-priced")
    assert "no dense TF32 tensor-core rate" in slot(page, "next-no-estimate")
