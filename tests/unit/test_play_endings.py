"""How a run ended (pysim/play/endings.py): SPEC §7's five words, the same for the page's worker and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from pysim.play import run
from pysim.play.endings import ENDINGS, FAILURE_ENDINGS, ending_words, run_ending
from pysim.play.limits import DEFAULT_MAX_STEPS
from pysim.play.protocol import RunRequest
from pysim.play.session import Session, encode_request, loads

ROOT = Path(__file__).resolve().parents[2]
ENDLESS = (ROOT / "tests" / "unit" / "play" / "endless_loop.py").read_text()
TILED = (ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text()


def test_a_run_that_finished_is_done_and_one_the_budget_stopped_is_budget():
    assert run_ending(run(TILED, 8, 8, 8).diagnostics) == "done"
    assert run_ending(run(ENDLESS, 4, 4, 4, max_steps=2000).diagnostics) == "budget"


def test_the_worker_sends_the_ending_and_the_budget_it_ran_under():
    summary = loads(Session().handle(encode_request(RunRequest(ENDLESS, 4, 4, 4))))["summary"]
    assert (summary.ended, summary.max_steps, summary.completed) == ("budget", DEFAULT_MAX_STEPS, False)


def test_every_way_the_page_stops_a_request_is_one_of_the_five_words():
    assert set(FAILURE_ENDINGS.values()) <= set(ENDINGS)
    assert FAILURE_ENDINGS["stopped"] == "stopped" and FAILURE_ENDINGS["timeout"] == "timeout"
    assert FAILURE_ENDINGS["crashed"] == FAILURE_ENDINGS["error"] == "refused"


@pytest.mark.parametrize("ended", ENDINGS)
def test_the_words_begin_with_the_ending(ended):
    text = ending_words(ended, 2_500_000, 1.5)
    assert text.split(":")[0] == ended
    if ended == "budget":
        assert "step budget of 2,500,000 steps" in text  # the budget is named
