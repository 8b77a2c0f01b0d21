"""#/playground in CPython: a 3-D launch runs and steps on the page, naming threads and blocks as (x, y, z)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.views.codeurl import encode
from pysim.play import run

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "play" / "blocks_3d.py"


@pytest.fixture
def page(page):
    """The page where no worker starts: runs happen on it."""
    del page.window.Worker
    return page


def test_a_3d_kernel_runs_and_steps_with_three_coordinates(page):
    source = FIXTURE.read_text()
    page.go(f"#/playground?M=7&N=11&K=5&code={encode(source)}").click("run")
    assert page.attribute("run-status", "data-state") == "done"
    assert page.value("counter-global_loads") == run(source, 7, 11, 5).counters.global_loads == 770
    page.select("thread", "37")  # thread (5, 0, 2) of an 8 × 2 × 4 block
    page.click("step")
    assert "Thread (5, 0, 2) of block (0, 0, 0)" in page.inner_text("thread-steps") + page.text(page.find(".stepping"))
