"""pysim.play.session: what the playground's worker sends the page is exactly what the RunResult holds,
in JSON text, and the decoder builds nothing but the playground's records."""

import json
from pathlib import Path

import numpy as np
import pytest

from pysim.play import run
from pysim.play import session as session_module
from pysim.play.protocol import REQUESTS, GradeRequest, IntervalRequest, PictureRequest, RunRequest, StorerRequest
from pysim.play.puzzles import PUZZLE_BY_KEY
from pysim.play.session import (
    Session,
    decode,
    decode_request,
    dumps,
    encode,
    encode_request,
    expected_shape,
    interval_view,
    loads,
)

ROOT = Path(__file__).resolve().parents[2]
TILED = (ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text()
TRANSPOSE = (ROOT / "pysim" / "play" / "solutions" / "transpose.py").read_text()
NAIVE = (ROOT / "pysim" / "play" / "solutions" / "naive.py").read_text()
SKIPS_LAST_K = NAIVE.replace("range(K)", "range(K - 1)")  # a wrong C wherever A's last column is not 0


def ask(session: Session, **request) -> dict:
    reply = session.handle(json.dumps(request))
    json.loads(reply)  # plain JSON text (NaN and Infinity as Python's json writes them)
    return loads(reply)


def same(a, b) -> bool:
    """Records equal field by field, arrays equal element by element (NaN equal to NaN)."""
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return a == b or (a != a and b != b)


def test_a_run_summary_carries_the_results_counters_and_arrays():
    session = Session()
    summary = ask(session, op="run", source=TILED, M=16, N=16, K=16, puzzle=None)["summary"]
    direct = run(TILED, 16, 16, 16)
    assert summary.counters == direct.counters and summary.metrics == direct.metrics
    assert summary.diagnostics == direct.diagnostics and summary.launch == direct.launch
    assert summary.intervals == len(direct.intervals) and summary.steps == direct.steps
    assert summary.c_matches and summary.mismatches == 0 and summary.wrong == ()
    for name in ("A", "B", "expected"):
        assert same(getattr(summary, name), getattr(direct, name))
    assert summary.shared == direct.shared_allocations
    assert summary.next_block == tuple(direct.next_block_interval(i) for i in range(len(direct.intervals)))


def test_a_wrong_kernel_reports_its_first_mismatch_and_every_wrong_cell():
    summary = ask(Session(), op="run", source=SKIPS_LAST_K, M=8, N=8, K=8, puzzle=None)["summary"]
    direct = run(SKIPS_LAST_K, 8, 8, 8)
    assert summary.mismatches == direct.mismatches > 0
    assert summary.wrong == tuple(direct.mismatched_cells())
    row, col = summary.first_mismatch
    assert same(summary.first_values, (float(direct.C[row, col]), float(direct.expected[row, col])))


@pytest.mark.parametrize("source", [TILED, TRANSPOSE])
def test_every_interval_view_equals_the_result_it_comes_from(source):
    session = Session()
    ask(session, op="run", source=source, M=16, N=16, K=16, puzzle=None)
    direct = run(source, 16, 16, 16)
    for index in range(len(direct.intervals)):
        thread = (index * 7) % direct.launch.threads
        view = ask(session, op="interval", index=index, thread=thread)["view"]
        shared, c = direct.memory_after(index)
        assert same(view.c, c) and same(view.shared, shared)
        assert view.thread_steps == direct.intervals[index].thread_steps(thread)[: len(view.thread_steps)]
        assert view.delta == direct.intervals[index].delta
        assert view.warp_count == sum(1 for _ in direct.warp_instructions(index))
        assert same(view, interval_view(direct, index, thread))


def test_pictures_and_storers_are_the_results_own():
    session = Session()
    ask(session, op="run", source=TRANSPOSE, M=32, N=32, K=32, puzzle=None)
    direct = run(TRANSPOSE, 32, 32, 32)
    instructions = list(direct.warp_instructions(1))
    for row, instruction in enumerate(instructions[:4]):
        expected = instruction.sectors() if instruction.is_global else instruction.banks()
        assert same(ask(session, op="picture", index=1, row=row)["picture"], expected)
    assert ask(session, op="storer", row=3, col=5)["storer"] == direct.storer_of(3, 5)


def test_a_file_that_cannot_run_is_an_error_with_its_line_and_keeps_the_last_good_run():
    session = Session()
    ask(session, op="run", source=TILED, M=8, N=8, K=8, puzzle=None)
    reply = ask(session, op="run", source="x = (\n", M=8, N=8, K=8, puzzle=None)
    assert reply["error"]["line"] == 1 and reply["error"]["message"]
    assert "view" in ask(session, op="interval", index=0, thread=0)  # the last good run still steps


def test_a_grade_comes_back_whole():
    source = (ROOT / "pysim" / "play" / "solutions" / "copy.py").read_text()
    grade = ask(Session(), op="grade", source=source, puzzle="copy")["grade"]
    assert grade.passed and grade.checks and all(check.passed for check in grade.checks)


def test_progress_counts_every_thread_and_ends_at_the_runs_steps(monkeypatch):
    monkeypatch.setattr(session_module, "PROGRESS_EVERY_S", 0.0)  # every interval reports
    heard: list[tuple[int, int]] = []
    request = json.dumps({"op": "run", "source": TILED, "M": 16, "N": 24, "K": 16})
    summary = loads(Session().handle(request, lambda *a: heard.append(a)))["summary"]
    assert len(heard) == summary.intervals
    assert heard[-1] == (16 * 24, summary.steps)  # every thread of C's 16 × 24 ran to its end
    assert all(a[0] <= b[0] and a[1] < b[1] for a, b in zip(heard, heard[1:]))  # both only grow


def test_the_decoder_builds_only_playground_records():
    with pytest.raises(ValueError, match="not a playground record"):
        decode({"@": "Popen", "args": ["sh"]})
    assert decode(encode({"x": (1, 2.5, None)})) == {"x": (1, 2.5, None)}
    array = np.array([[1.5, np.nan], [-0.0, np.inf]], dtype=np.float32)
    assert same(loads(dumps(array)), array)


def test_the_answers_shape_is_what_numpy_computes_for_each_puzzle():
    assert expected_shape(None, 4, 6, 3) == (4, 6)
    assert expected_shape(PUZZLE_BY_KEY["copy"], 4, 6, 6) == (4, 6)
    assert expected_shape(PUZZLE_BY_KEY["naive"], 4, 6, 3) == (4, 6)
    assert expected_shape(PUZZLE_BY_KEY["transpose"], 8, 8, 4) == (4, 8)  # Aᵀ of an 8 × 4 A


@pytest.mark.parametrize(
    "request_, wire",
    [
        (RunRequest("src", 1, 2, 3), {"op": "run", "source": "src", "M": 1, "N": 2, "K": 3, "puzzle": None}),
        (GradeRequest("src", "naive"), {"op": "grade", "source": "src", "puzzle": "naive"}),
        (IntervalRequest(4, 5), {"op": "interval", "index": 4, "thread": 5}),
        (PictureRequest(4, 6), {"op": "picture", "index": 4, "row": 6}),
        (StorerRequest(7, 8), {"op": "storer", "row": 7, "col": 8}),
    ],
    ids=lambda value: type(value).__name__ if not isinstance(value, dict) else "",
)
def test_each_request_travels_as_its_kind_and_fields_and_comes_back_equal(request_, wire):
    text = encode_request(request_)
    assert json.loads(text) == wire
    assert decode_request(text) == request_


def test_every_request_kind_is_listed_once_and_an_unknown_one_is_refused():
    assert sorted(REQUESTS) == ["grade", "interval", "picture", "run", "storer"]
    assert len(set(REQUESTS.values())) == len(REQUESTS)
    with pytest.raises(ValueError, match="not a playground request"):
        decode_request(json.dumps({"op": "delete", "index": 0}))


def test_the_worker_script_forwards_requests_without_naming_a_kind():
    """site/playworker.js passes the page's text to Session.handle: only pysim.play.protocol names the kinds."""
    script = (ROOT / "site" / "playworker.js").read_text()
    assert "session.handle(message.text" in script
    for kind in REQUESTS:
        assert f'"{kind}"' not in script and f"'{kind}'" not in script, kind
