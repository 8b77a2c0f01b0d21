"""The checkpoint gate never moves a deep link backwards (issue 38 item 5): a teacher's `step=14&quiz=1`
link opens at step 14, and the open checkpoints before it are skipped, not asked on the way back."""

from __future__ import annotations

from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS
from pysim.lessons.checkpoints import checkpoints

LINK = "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14&quiz=1&guide=0"
PARAMS = SmemParams(M=6, N=6, K=9, T=3)


def test_a_deep_link_opens_at_its_step_with_the_earlier_checkpoints_skipped(page):
    kernel = KERNELS["smem"]
    items = checkpoints(kernel, PARAMS, Trace(kernel, PARAMS))
    earlier = [c for c in items if c.step < 14]
    assert earlier and any(c.step > 14 for c in items)  # the link jumps over one, and one lies ahead
    page.go(LINK)
    assert page.params()["step"] == "14"
    gate = page.shell.views["/tiling"].checkpoints
    assert {c.key for c in earlier} <= gate.skipped
    assert not {c.key for c in items if c.step >= 14} & gate.skipped
    # Stepping on from there still stops at the next open checkpoint.
    later = min(c.step for c in items if c.step > 14)
    page.go(LINK.replace("step=14", f"step={later + 1}"))
    assert page.params()["step"] == str(later)


def test_a_link_to_the_start_skips_nothing(page):
    page.go(LINK.replace("step=14", "step=0"))
    gate = page.shell.views["/tiling"].checkpoints
    assert page.params()["step"] == "0" and gate.items and not gate.skipped


def test_the_prose_waits_for_the_scored_checkpoints(page):
    """A course's checkpoints (quiz=1) ask what the route's prose states (the bank degree, a block's loads): it is
    out of the page while one is still to be asked, the guide off or not; with every one skipped it is back."""
    page.go("#/tiling?M=6&N=6&K=9&T=3&quiz=1&guide=0")
    assert page.view.querySelector("section.explain") is None
    assert "checkpoints are answered or skipped" in page.text("prose-withheld")
    assert "Explore freely" not in page.text("prose-withheld")  # the guide is off: only the checkpoints wait
    gate = page.shell.views["/tiling"].checkpoints
    gate.skipped |= {item.key for item in gate.items}
    page.click("step")
    assert page.view.querySelector("section.explain") is not None and not page.visible("prose-withheld")


def test_the_last_checkpoint_skipped_brings_the_prose_back_at_once(page):
    """A checkpoint answered or skipped settles it there and then: the prose need not wait for the next step."""
    page.go("#/naive?quiz=1&guide=0")
    gate = page.shell.views["/naive"].checkpoints
    assert page.view.querySelector("section.explain") is None and page.visible("checkpoint")
    gate.skipped |= {item.key for item in gate.items[1:]}  # all but the one open now
    page.click("checkpoint-skip")
    assert page.view.querySelector("section.explain") is not None and not page.visible("prose-withheld")


def test_with_the_guide_and_the_checkpoints_the_note_names_both(guided_page):
    guided_page.go("#/tiling?M=6&N=6&K=9&T=3&quiz=1")
    note = guided_page.text("prose-withheld")
    assert "Explore freely" in note and "checkpoints are answered or skipped" in note
