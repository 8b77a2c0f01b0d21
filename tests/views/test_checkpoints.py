"""Prediction checkpoints against independent counts: each answer recounted from the trace itself."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.core import tries
from app.core.score import STEPPING_KERNELS, Answer, ScoreBook, parse_answers, quiz_on, scored_keys
from bruteforce import vector_banks
from pysim.core.constants import NUM_BANKS, WARP_SIZE
from pysim.core.trace import Trace
from pysim.core.warps import INACTIVE
from pysim.hardware.params import HierarchyParams, NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.kernels import KERNELS
from pysim.lessons import checkpoints
from pysim.lessons.walkthrough import Walkthrough, quiz, quiz_example
from pysim.play.puzzles import PUZZLES

CASES = [
    ("smem", SmemParams()),
    ("smem", SmemParams(M=7, N=5, K=9, T=3)),
    ("smem", SmemParams(M=1, N=1, K=1, T=1)),
    ("register", RegisterParams()),
    ("register", RegisterParams(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1)),
    ("naive", NaiveParams()),
    ("naive", NaiveParams(M=32, N=32, K=8, T=32, map="row")),
    ("transpose", TransposeParams()),
    ("transpose", TransposeParams(n=64, TILE=32, pad=1)),
]


def brute_degree(words) -> int:
    """Most different words one bank serves, over warp 0's lanes, counted by hand."""
    per_bank: dict[int, set[int]] = {}
    for word in words[:WARP_SIZE]:
        if word != INACTIVE:
            per_bank.setdefault(int(word) % NUM_BANKS, set()).add(int(word))
    return max((len(w) for w in per_bank.values()), default=0)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_answers_match_the_trace(name, params):
    kernel = KERNELS[name]
    trace = Trace(kernel, params)
    found = {c.key.split(":")[1]: c for c in checkpoints.checkpoints(kernel, params, trace)}
    assert tuple(sorted(found)) == tuple(sorted(checkpoints.kinds(kernel)))
    # Block loads: the global-load accesses of that block's steps, counted thread by thread.
    loads = found["block-loads"]
    number = trace.blocks.index(tuple(int(v) for v in loads.prompt.split("block (")[1].split(")")[0].split(",")))
    assert loads.step == trace.first_step(number) and trace[loads.step].phase == "setup"
    counted = sum(
        int((access.rows != INACTIVE).sum())
        for i in range(trace.first_step(number), trace.first_step(number) + trace.steps_per_block)
        for access in trace[i].accesses
        if access.space == "global" and access.op == "load"
    )
    assert loads.answer == counted
    if "bank-degree" in found:
        bank = found["bank-degree"]
        reads = [a for a in trace[bank.step].accesses if a.space == "shared" and a.op == "load"]
        assert reads and bank.answer == max(brute_degree(list(row)) for a in reads for row in a.words)
        assert all(not any(a.space == "shared" and a.op == "load" for a in trace[i].accesses) for i in range(bank.step))
    if "fma-per-read" in found:
        ratio = found["fma-per-read"]
        assert trace[ratio.step].barrier
        block = [trace[i] for i in range(trace.steps_per_block)]
        fma = sum(step.fma for step in block)
        reads = sum(
            int((a.rows != INACTIVE).sum())
            for step in block
            for a in step.accesses
            if (a.space, a.op) == ("shared", "load")
        )
        assert ratio.answer == Fraction(fma, reads)


def test_transpose_without_padding_asks_about_a_32_way_conflict():
    kernel = KERNELS["transpose"]
    found = checkpoints.bank_degree(kernel, TransposeParams(), Trace(kernel, TransposeParams()))
    assert found.answer == 32 and "32-way conflict" in found.explanation


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("1/2", True),
        ("0.5", True),
        (" 0.50 ", True),
        ("2/4", True),
        ("1", False),
        ("0.6", False),
        ("half", None),
        ("1/0", None),
        ("", None),
        ("٣", None),
    ],
)
def test_check_accepts_fractions_and_decimals(text, right):
    checkpoint = checkpoints.Checkpoint("smem:fma-per-read", 3, "?", Fraction(1, 2), "")
    assert checkpoints.check(checkpoint, text)[0] is right


@pytest.mark.parametrize(
    ("text", "right"),
    [("32", True), ("32.0", True), ("32.004", False), ("31.996", False), ("1,024", False), ("3,2", None)],
)
def test_a_whole_answer_must_be_typed_exactly(text, right):
    """The two-place tolerance is for a fraction's decimals (2/3 as 0.67): 32.004 is not 32."""
    checkpoint = checkpoints.Checkpoint("smem:block-loads", 3, "?", Fraction(32), "")
    assert checkpoints.check(checkpoint, text)[0] is right


def test_two_thirds_accepts_two_decimals_and_says_both():
    checkpoint = checkpoints.Checkpoint("register:fma-per-read", 3, "?", Fraction(2, 3), "")
    assert checkpoints.check(checkpoint, "0.67")[0] is True
    assert checkpoints.check(checkpoint, "0.6")[0] is False
    assert checkpoint.answer_text == "2/3 (≈ 0.67)"
    assert checkpoints.check(checkpoint, "1")[1] == "Not quite."  # the answer waits (app.core.tries)


# --- the score book (app.core.score): pure, no browser ---------------------------------------------
class Recorder:
    """Stands in for window.tilelabScore."""

    def __init__(self, restored: str = "{}") -> None:
        self.calls: list[tuple] = []
        self.saved = restored

    def answer(self, *args) -> bool:
        self.calls.append(args)
        return True

    def restored(self) -> str:
        return self.saved


def test_scored_questions_are_fixed():
    keys = scored_keys()
    assert len(keys) == len(set(keys)) == 14 + len(PUZZLES)  # 5 quiz, 9 checkpoints, every puzzle
    assert keys[:5] == tuple(f"hierarchy:{k}" for k in ("naive", "tiled", "bank", "padded", "largest"))
    assert {k.split(":")[0] for k in keys[5:14]} == set(STEPPING_KERNELS) - set(checkpoints.PRACTICE_ONLY)
    assert keys[14:] == tuple(f"puzzle:{p.key}" for p in PUZZLES)


def test_first_answer_counts_and_reaches_the_backend():
    backend = Recorder('{"hierarchy:naive": [1, "2147483648"], "bogus": [1, "x"], "hierarchy:bank": [2, "x"]}')
    book = ScoreBook(backend)
    assert book.recorded("hierarchy:naive") == Answer(True, "2147483648")
    assert book.recorded("bogus") is None and book.recorded("hierarchy:bank") is None
    assert book.record("hierarchy:naive", False, "1") is False  # an earlier session's answer stands
    assert book.record("smem:bank-degree", True, " 1 ") is True
    assert book.record("smem:bank-degree", False, "4") is False
    assert book.record("not-a-question", True, "1") is False
    assert backend.calls == [("smem:bank-degree", True, len(scored_keys()), "1")]


def test_a_page_without_a_backend_still_keeps_the_session():
    book = ScoreBook(None)
    assert book.record("hierarchy:tiled", True, "x" * 100) is True
    assert book.recorded("hierarchy:tiled") == Answer(True, "x" * 24)


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"hierarchy:naive": "right"}', "null"])
def test_damaged_answers_are_dropped(text):
    assert parse_answers(text) == {}


def test_quiz_is_off_unless_asked():
    assert not quiz_on({}, None) and not quiz_on({"quiz": "0"}, "")
    assert quiz_on({"quiz": "1"}, None) and quiz_on({}, "on")


# --- two tries, the answer only when asked (app.core.tries, pysim's quiz sizes) ---------------------
def test_a_wrong_first_try_hides_the_answer_and_offers_it():
    checkpoint = checkpoints.Checkpoint("smem:bank-degree", 3, "?", Fraction(4), "Degree 4: ...")
    right, verdict = checkpoints.check(checkpoint, "2")
    assert right is False and "4" not in verdict
    reply = tries.after_try(False, 1, checkpoint.answer_text)
    assert not reply.reveal and reply.offer and "4" not in reply.verdict
    second = tries.after_try(False, 2, checkpoint.answer_text)
    assert second.reveal and not second.offer and "4" in second.verdict
    assert tries.shown(checkpoint.answer_text) == tries.Reply("The answer is 4.", True, False)


def test_a_right_second_try_is_accepted_but_the_first_answer_is_the_score():
    reply = tries.after_try(True, 2, "4")
    assert reply.reveal and reply.verdict.startswith("Right.") and "first answer" in reply.verdict
    assert tries.after_try(True, 1, "4") == tries.Reply("Right.", True, False)
    recorder = Recorder()
    book = ScoreBook(recorder)
    key = scored_keys()[0]
    assert book.record(key, False, "2") is True
    assert book.record(key, True, "4") is False  # the second try is practice
    assert book.recorded(key) == Answer(False, "2")
    assert [call[:2] for call in recorder.calls] == [(key, False)]


@pytest.mark.parametrize("N", [1, 7, 256, 512, 1000, 1024, 4096])
def test_the_quiz_never_asks_about_the_sizes_the_page_prints(N):
    """Question 1 asked for the form's naive total, which the summary prints in bold just above it."""
    walk = Walkthrough(HierarchyParams(N=N, T=16))
    answers = {q.key: q.answer for q in quiz(walk)}
    example = quiz_example(walk.params)
    assert example.N != N
    loads = sum(2 * example.N for _ in range(example.N * example.N))  # N² threads, 2N loads each
    assert answers["naive"] == loads != 2 * N**3
    assert answers["tiled"] == 2 * example.N**2 * -(-example.N // example.T)


def test_the_bank_degree_is_the_issued_instructions():
    """Issue 40: BN/TN = 1 column of threads, As rows TM·BK = 4 words apart. Read as written (32-bit), warp 0's
    regM read would conflict 4 ways; nvcc issues a thread's 4 words As[ty·2 + i][0..1] as one LDS.128, served in
    quarter-warp phases whose 8 lanes' 32 words fill the 32 banks (bruteforce.vector_banks: 4 phases, 0 extra)."""
    params = RegisterParams(M=64, N=1, K=4, BM=64, BN=1, BK=2, TM=2, TN=1)
    kernel = KERNELS["register"]
    words = [ty * 4 for ty in range(WARP_SIZE)]
    assert brute_degree(words) == 4 and vector_banks(words, 4) == (4, 0)
    found = checkpoints.bank_degree(kernel, params, Trace(kernel, params))
    assert found is not None and found.answer == 1 and "LDS.128" in found.explanation
