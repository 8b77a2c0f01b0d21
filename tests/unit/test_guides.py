"""Guided lessons: every moment's answer against an independent count, at four sizes per view.

A kernel moment is recounted from the trace's own records at its step (the lanes' rows and columns,
read in plain loops) or by tests/bruteforce.py; the guide computes it from closed forms and
pysim.core.lanes. The walkthrough's moments are recounted with plain loops over blocks and lanes.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from math import ceil
from pathlib import Path

import numpy as np
import pytest

import bruteforce
from pysim.core.counters import COUNTER_LABELS
from pysim.core.trace import Trace
from pysim.core.warps import INACTIVE
from pysim.hardware.blocktile_params import Blocktile1DParams, VectorizedParams, WarptileParams
from pysim.hardware.devices import device
from pysim.hardware.params import HierarchyParams, NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.hardware.pipelined_params import PipelinedParams
from pysim.kernels import KERNELS
from pysim.lessons.guides import ROUTES, Moment, Skipped, Task, guide_for

WARP = 32
# Four size sets per view: the sizes the view opens at, non-multiples, a tile larger than the matrix, larger.
SIZES = {
    "naive": [
        NaiveParams(M=32, N=32, K=8, T=32),
        NaiveParams(M=7, N=5, K=3, T=3),
        NaiveParams(M=3, N=2, K=4, T=4),
        NaiveParams(M=40, N=33, K=16, T=8, map="row"),
        NaiveParams(M=2, N=5, K=8, T=8),  # emptier warps: col touches fewer sectors, more per instruction
        NaiveParams(M=2, N=1, K=1, T=32),  # a column of C: the row map touches fewer
    ],
    "tiling": [
        SmemParams(),
        SmemParams(M=7, N=5, K=9, T=3),
        SmemParams(M=3, N=2, K=5, T=4),
        SmemParams(M=33, N=40, K=20, T=8),
    ],
    "register": [
        RegisterParams(),
        RegisterParams(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1),
        RegisterParams(M=3, N=5, K=2, BM=4, BN=8, BK=4, TM=2, TN=2),
        RegisterParams(M=32, N=32, K=32, BM=16, BN=16, BK=4, TM=4, TN=4),
    ],
    "blocktile1d": [
        Blocktile1DParams(M=8, N=8, K=8, BM=8, BN=8, BK=2, TM=4),
        Blocktile1DParams(M=9, N=11, K=5, BM=8, BN=8, BK=2, TM=4),
        Blocktile1DParams(M=5, N=3, K=7, BM=8, BN=8, BK=2, TM=4),
        Blocktile1DParams(),
    ],
    "vectorized": [
        VectorizedParams(M=16, N=16, K=8, BM=16, BN=16, BK=4, TM=4, TN=4),
        VectorizedParams(M=13, N=12, K=12, BM=16, BN=16, BK=4, TM=4, TN=4),
        VectorizedParams(M=5, N=8, K=4, BM=16, BN=16, BK=4, TM=4, TN=4),
        VectorizedParams(M=64, N=64, K=32, BM=32, BN=32, BK=8, TM=4, TN=4),
        VectorizedParams(M=48, N=16, K=32, BM=16, BN=16, BK=4, TM=2, TN=8),  # regM is a pair: one LDS.64
    ],
    "warptile": [
        WarptileParams(M=16, N=64, K=16, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32),
        WarptileParams(M=13, N=68, K=12, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32),
        WarptileParams(M=5, N=20, K=8, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32),
        WarptileParams(M=20, N=136, K=20, BM=16, BN=128, BK=16, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=64),
    ],
    "pipelined": [
        PipelinedParams(M=16, N=64, K=32, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32),
        PipelinedParams(M=13, N=68, K=36, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=3),
        PipelinedParams(M=5, N=20, K=8, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=4),
        PipelinedParams(
            M=20, N=136, K=36, BM=16, BN=128, BK=16, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=64, stages=4
        ),
    ],
    "transpose": [
        TransposeParams(),
        TransposeParams(n=10, TILE=4, pad=1),
        TransposeParams(n=3, TILE=4, pad=0),
        TransposeParams(n=48, TILE=16, pad=2),
    ],
}
CASES = [(view, params) for view, sizes in SIZES.items() for params in sizes]
BRUTE = {
    "naive": lambda p: bruteforce.naive(p.M, p.N, p.K, p.T, p.map),
    "tiling": lambda p: bruteforce.smem(p.M, p.N, p.K, p.T),
    "register": lambda p: bruteforce.register(p.M, p.N, p.K, p.BM, p.BN, p.BK, p.TM, p.TN),
    "blocktile1d": lambda p: bruteforce.blocktile1d(p.M, p.N, p.K, p.BM, p.BN, p.BK, p.TM),
    "vectorized": lambda p: bruteforce.vectorized(p.M, p.N, p.K, p.BM, p.BN, p.BK, p.TM, p.TN),
    "warptile": lambda p: bruteforce.warptile(
        p.M, p.N, p.K, p.BM, p.BN, p.BK, p.WM, p.WN, p.WNITER, p.TM, p.TN, p.threads
    ),
    "pipelined": lambda p: bruteforce.pipelined(
        p.M, p.N, p.K, p.BM, p.BN, p.BK, p.WM, p.WN, p.WNITER, p.TM, p.TN, p.threads, p.stages
    ),
}
# What each kind of question is about, and so the counter it must hide while open.
ABOUT = {
    "block-loads": "global_loads",
    "edge-loads": "global_loads",
    "thread-loads": "global_loads",
    "bank": "bank_extra_cycles",
    "async-bytes": "async_copy_bytes",
}
ABOUT |= {"reads": "shared_loads", "fma": "fma", "sectors-a": "global_sectors", "sectors-b": "global_sectors"}


# --- independent counts ------------------------------------------------------------------------
def pairs(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"\((\d+),(\d+)\)", text)]


def named_thread(kernel, p, question: str) -> int:
    """The linear id of the thread the question names, found by trying every thread's name."""
    lane = re.search(r"lane (\d+) of warp (\d+)", question)
    wanted = (int(lane[1]), int(lane[2])) if lane else pairs(question.split("thread")[1])[0]
    return next(t for t in range(kernel.threads(p)) if kernel.thread_xy(p, t) == wanted)


def lane_cells(access, thread: int) -> set[tuple[int, int]]:
    found = set()
    for i in range(access.rows.shape[0]):
        if access.rows[i, thread] != INACTIVE:
            for j in range(access.width):
                found.add((int(access.rows[i, thread]), int(access.cols[i, thread]) + j))
    return found


def warp0_starts(access, instruction: int = 0) -> list[int | None]:
    lanes = min(WARP, access.rows.shape[1])
    row, col = access.rows[instruction], access.cols[instruction]
    return [None if row[t] == INACTIVE else int(row[t]) * access.stride + int(col[t]) for t in range(lanes)]


def worst_phase(starts: list[int | None], width: int) -> int:
    """Most distinct words one bank serves in any phase of 32 // width lanes (SPEC §2, §6)."""
    worst = 0
    for first in range(0, len(starts), WARP // width):
        banks: dict[int, set[int]] = {}
        for start in starts[first : first + WARP // width]:
            for word in [] if start is None else range(start, start + width):
                banks.setdefault(word % 32, set()).add(word)
        worst = max([worst, *(len(words) for words in banks.values())])
    return worst


def block_loads_counted(trace, number: int) -> int:
    first = trace.first_step(number)
    return sum(
        int((a.rows != INACTIVE).sum()) * a.width
        for i in range(first, first + trace.steps_per_block)
        for a in trace[i].accesses
        if (a.space, a.op) == ("global", "load")
    )


def ones(trace, step: int, space: str, op: str, array: str | None = None):
    return [a for a in trace[step].accesses if (a.space, a.op) == (space, op) and array in (None, a.array)]


def recount(view: str, p, trace, m: Moment):
    """The answer of moment `m`, counted without the guide's code."""
    kernel, kind = trace.kernel, m.key.split(":")[1]
    if kind in ("block-loads", "edge-loads"):
        number = trace.blocks.index(pairs(m.question)[0])
        assert m.step == trace.first_step(number) and m.reveal == m.step + trace.steps_per_block - 1
        return block_loads_counted(trace, number)
    if kind == "zeros":
        return sum(
            int((a.zero_fill & (a.rows != INACTIVE)).sum()) * a.width
            for i in range(m.step, m.reveal + 1)
            for a in trace[i].accesses
            if a.zero_fill is not None
        )
    if kind in ("sectors-a", "sectors-b"):
        (access,) = ones(trace, m.reveal, "global", "load", kind[-1].upper())
        assert not any(ones(trace, i, "global", "load", access.array) for i in range(trace.first_step(0), m.reveal))
        return bruteforce.vector_sectors(warp0_starts(access), access.width)
    if kind in ("bank", "write-bank"):
        op = "store" if kind == "write-bank" else "load"
        return max(
            worst_phase(warp0_starts(a, i), a.width)
            for a in ones(trace, m.reveal, "shared", op)
            for i in range(a.rows.shape[0])
        )
    if kind in ("reads", "fma"):
        thread = 0
        round_ = [trace[i] for i in range(m.step, m.reveal + 1) if trace[i].k == 0 and trace[i].tile == 0]
        if kind == "fma":
            return sum(step.fma for step in round_) // kernel.threads(p)
        return sum(
            len(lane_cells(a, thread)) for s in round_ for a in s.accesses if (a.space, a.op) == ("shared", "load")
        )
    if m.kind == "cells":
        thread = named_thread(kernel, p, m.question)
        assert m.thread == thread  # the view follows the thread the question names
        array = m.question.split("cells of ")[1].split()[0]
        op = "store" if " write" in m.question else "load"
        (access,) = [a for a in trace[m.reveal].accesses if (a.array, a.op) == (array, op)]
        found = frozenset((array, r, c) for r, c in lane_cells(access, thread))
        into = re.search(r"into (\w+)", m.question)
        if into:  # the values that entered the register are the values at those cells
            held = np.atleast_1d(trace[m.reveal].registers[into[1]][thread]).ravel()
            tile = trace[m.reveal].shared[array]
            assert sorted(held.tolist()) == sorted(float(tile[r, c]) for _, r, c in found), m.key
        return found
    if kind == "thread-loads":
        return sum(len(lane_cells(a, 0)) for i in range(m.step, m.reveal + 1) for a in ones(trace, i, "global", "load"))
    if kind == "idle":
        bx, by = pairs(m.question)[0]
        return sum(
            not (r < p.M and c < p.N)
            for r, c in (bruteforce.naive_element(by, bx, tid, p.T, p.map) for tid in range(p.T * p.T))
        )
    if kind == "map":  # the question asks for the run's sectors in all
        total = {name: bruteforce.naive(p.M, p.N, p.K, p.T, name)["global_sectors"] for name in ("col", "row")}
        assert f"{total['col']:,} sectors" in m.why and f"row map's {total['row']:,}" in m.why
        return min(total, key=total.__getitem__)
    if kind == "barrier":
        assert trace[m.reveal].barrier and m.reveal == m.step + 1
        assert not ones(trace, m.step, "shared", "load")  # the tile is written, not read yet
        return "block"
    if kind == "width":
        length = p.TM if "regM" in m.question else p.TN
        return str(bruteforce.lds_width(length))
    if kind == "warp":
        row, col = (int(v) for v in re.search(r"C\[(\d+)\]\[(\d+)\]", m.question).groups())
        store = ones(trace, trace.steps_per_block - 1, "global", "store", "C")[0]
        return str(next(t for t in range(store.rows.shape[1]) if (row, col) in lane_cells(store, t)) // WARP)
    if kind == "pad":
        stride = p.TILE + p.pad + 1
        lanes = range(min(WARP, p.TILE * p.TILE))
        words = [(t % p.TILE) * stride + t // p.TILE for t in lanes]
        return "yes" if worst_phase(words, 1) == 1 else "no"
    if kind == "async-bytes":  # every async store of block (0,0), 4 bytes a word
        return sum(4 * a.elements for i in range(m.step, m.reveal + 1) for a in trace[i].accesses if a.asynchronous)
    if kind == "stage":  # the stage whose rows of Bs the next step's copy writes
        (store,) = ones(trace, m.reveal, "shared", "store", "Bs") or ones(trace, m.reveal + 1, "shared", "store", "Bs")
        return str(int(store.rows[store.active].min()) // p.BK)
    if kind == "in-flight":  # tiles copied before the wait and not computed by its round: replayed from the steps
        loaded = {trace[i].tile for i in range(trace.first_step(0), m.reveal) if trace[i].phase == "load"}
        return len(loaded - {0})
    raise AssertionError(f"no recount for {m.key}")


# --- the tests ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("view", "params"), CASES)
def test_every_answer_equals_an_independent_count(view, params):
    guide = guide_for(view, params)
    trace = Trace(KERNELS[ROUTES[view]], params)
    for m in guide.moments:
        assert m.answer == recount(view, params, trace, m), m.key


@pytest.mark.parametrize(("view", "params"), CASES)
def test_the_change_it_task_matches_a_brute_count(view, params):
    task = guide_for(view, params).task
    assert isinstance(task, Task), task
    changed = replace(params, **task.change)
    assert changed != params and task.instruction.startswith("set ")
    if view == "transpose":
        trace = Trace(KERNELS["transpose"], changed)
        assert task.moment.answer == recount(view, changed, trace, replace(task.moment, key="transpose:bank"))
        return
    counter = next(h for h in task.moment.hidden).removeprefix("counter-")
    assert task.moment.answer == BRUTE[view](changed)[counter]


@pytest.mark.parametrize(("view", "params"), CASES)
def test_every_guide_has_six_to_ten_entries_in_step_order(view, params):
    guide = guide_for(view, params)
    trace_length = len(Trace(KERNELS[ROUTES[view]], params))
    assert 6 <= len(guide.entries) <= 10
    assert len(guide.moments) >= 4
    assert all(s.reason for s in guide.skipped)
    asked = [(m.step, m.reveal) for m in guide.moments]
    assert asked == sorted(asked)  # in the order the player reaches them
    assert all(0 <= m.step <= m.reveal < trace_length for m in guide.moments)
    assert len({e.key for e in guide.entries}) == len(guide.entries)


def test_every_form_of_question_is_asked():
    kinds = {m.kind for view, params in CASES[::4] for m in guide_for(view, params).moments}
    assert kinds == {"number", "choice", "cells"}


@pytest.mark.parametrize(("view", "params"), CASES)
def test_no_number_answer_is_on_screen_while_it_is_asked(view, params):
    """Every counter that shows the answer's value at the step the question is asked is hidden, and so is
    the counter the question is about."""
    guide = guide_for(view, params)
    trace = Trace(KERNELS[ROUTES[view]], params)
    for m in guide.moments:
        if m.kind != "number":
            continue
        shown = trace[m.step].counters
        visible = [f.name for f in fields(shown) if f"counter-{f.name}" not in m.hidden]
        assert all(getattr(shown, name) != m.answer for name in visible), m.key
        about = ABOUT.get(m.key.split(":")[1])
        assert about is None or f"counter-{about}" in m.hidden, m.key


@pytest.mark.parametrize(("view", "params"), CASES)
def test_no_cells_answer_is_marked_while_it_is_asked(view, params):
    """The view marks the followed thread's operands and current cells (kernel.focus) at the step it shows:
    none of those marked sets may be the answer, nor hold it whole as the cells in use."""
    guide = guide_for(view, params)
    kernel = KERNELS[ROUTES[view]]
    trace = Trace(kernel, params)
    for m in guide.moments:
        if m.kind != "cells":
            continue
        focus = kernel.focus(params, trace[m.step], named_thread(kernel, params, m.question))
        cells = {(r, c) for _, r, c in m.answer}
        array = next(iter(m.answer))[0]
        assert set(focus.operands.get(array, ())) != cells, m.key
        assert not cells <= set(focus.current.get(array, ())), m.key


def question_gives_away(m: Moment, params) -> bool:
    """A number answer written in its own question, other than as a size or an index on screen."""
    sizes = {v for v in vars(params).values() if isinstance(v, int)}
    indices = {int(v) for v in re.findall(r"[(\[,](\d+)", m.question)} | {
        int(v) for v in re.findall(r"(?:lane|warp) (\d+)", m.question)
    }
    named = {int(v.replace(",", "")) for v in re.findall(r"\d{1,3}(?:,\d{3})+|\d+", m.question)}
    return m.kind == "number" and m.answer in named - sizes - indices


@pytest.mark.parametrize(("view", "params"), CASES)
def test_no_question_contains_its_answer(view, params):
    guide = guide_for(view, params)
    assert not [m.key for m in guide.moments if question_gives_away(m, params)]
    task = guide.task
    assert isinstance(task, Task) and not question_gives_away(task.moment, replace(params, **task.change))


def test_the_give_away_check_sees_an_answer_in_the_question():
    m = Moment("x:y", 0, 0, "number", "How many loads, 36 or so, will block (1,0) make?", 36, "why")
    assert question_gives_away(m, SmemParams())
    assert not question_gives_away(replace(m, question="How many loads will block (1,0) make?"), SmemParams())


# --- skips ------------------------------------------------------------------------------------------
def test_a_single_block_has_no_edge_block_and_a_full_grid_writes_no_zeros():
    guide = guide_for("tiling", SmemParams(M=2, N=2, K=2, T=2))
    reasons = {s.key: s.reason for s in guide.skipped}
    assert "only block (0,0) launches" in reasons["tiling:edge-loads"]
    assert "no zeros" in reasons["tiling:zeros"]
    assert "tiling:edge-loads" not in {m.key for m in guide.moments}


def test_an_edge_block_is_asked_only_when_it_is_cut():
    cut = guide_for("tiling", SmemParams(M=7, N=5, K=9, T=3))
    assert "tiling:edge-loads" in {m.key for m in cut.moments}
    assert "tiling:zeros" in {m.key for m in cut.moments}


def test_equal_maps_are_not_asked_which_coalesces():
    """T=1: a warp is one thread, so both maps touch one sector per load: the choice has no answer."""
    guide = guide_for("naive", NaiveParams(M=4, N=4, K=2, T=1))
    assert "naive:map" in {s.key for s in guide.skipped}
    assert "naive:map" in {m.key for m in guide_for("naive", NaiveParams(M=32, N=32, K=8, T=32)).moments}


def test_idle_threads_are_asked_only_where_a_block_sticks_out_of_c():
    assert "naive:idle" in {s.key for s in guide_for("naive", NaiveParams()).skipped}
    found = next(m for m in guide_for("naive", NaiveParams(M=5, N=6, K=3, T=4)).moments if m.key == "naive:idle")
    assert found.answer == 16 - 2  # block (1,1) of 4×4 threads holds row 4 and columns 4, 5 of C


def test_padding_without_a_conflict_is_not_asked_about():
    assert "transpose:pad" in {s.key for s in guide_for("transpose", TransposeParams(n=32, TILE=32, pad=1)).skipped}
    asked = next(
        m for m in guide_for("transpose", TransposeParams(n=32, TILE=32, pad=0)).moments if m.key == "transpose:pad"
    )
    assert asked.answer == "yes"


def test_one_warp_has_no_warp_to_choose():
    assert "warptile:warp" in {s.key for s in guide_for("warptile", SIZES["warptile"][0]).skipped}
    assert "warptile:warp" in {m.key for m in guide_for("warptile", SIZES["warptile"][3]).moments}


def test_a_view_is_named_by_route_or_kernel_and_sizes_by_address():
    assert guide_for("#/tiling", {"M": "6", "N": "6", "K": "9", "T": "3"}).params == SmemParams(M=6, N=6, K=9, T=3)
    assert guide_for("smem").view == "tiling"
    with pytest.raises(KeyError):
        guide_for("nowhere")


# --- the walkthrough --------------------------------------------------------------------------------
WALKS = [HierarchyParams(), HierarchyParams(N=13, T=5), HierarchyParams(N=7, T=16), HierarchyParams(N=64, T=8)]


def tiled_loads(N: int, T: int) -> int:
    """Per block (SPEC §2): its rows of A and its columns of B, K values each."""
    blocks = ceil(N / T)
    return sum(min(T, N - by * T) * N + N * min(T, N - bx * T) for by in range(blocks) for bx in range(blocks))


def walk_recount(p: HierarchyParams, m: Moment):
    N, T, kind = p.N, p.T, m.key.split(":")[1]
    naive = sum(2 * N for _ in range(N * N)) if N <= 64 else N * N * (2 * N)
    if kind == "per-thread":
        return len([("A", k) for k in range(N)] + [("B", k) for k in range(N)])
    if kind == "naive-total":
        return naive
    if kind == "reuse":
        return sum(1 for tx in range(T) if tx < N)
    if kind == "tiles":
        return len(range(0, N, T))
    if kind in ("tiled-total", "task"):
        return tiled_loads(N, T)
    if kind == "ideal":
        exact, ideal = tiled_loads(N, T), 2 * N**3 / T
        return "equal" if exact == ideal else ("above" if exact > ideal else "below")
    if kind == "reduction":
        return naive // tiled_loads(N, T)
    if kind in ("bank", "padding"):
        stride = 32 + (kind == "padding")
        degree = worst_phase([lane * stride for lane in range(WARP)], 1)
        return degree if kind == "bank" else ("yes" if degree > 1 else "no")
    if kind == "largest":
        preset = device(p.device)
        return max(
            t for t in range(1, 200) if t * t <= preset.thread_limit and 2 * t * t * 4 <= preset.shared_limit_bytes
        )
    raise AssertionError(m.key)


@pytest.mark.parametrize("params", WALKS)
def test_the_walkthrough_answers_equal_plain_counts(params):
    guide = guide_for("hierarchy", params)
    assert 6 <= len(guide.entries) <= 10 and all(0 <= m.step < m.reveal <= 7 for m in guide.moments)
    for m in guide.moments:
        assert m.answer == walk_recount(params, m), m.key
        assert not question_gives_away(m, params), m.key
    task = guide.task
    assert isinstance(task, Task)
    assert task.moment.answer == walk_recount(replace(params, **task.change), task.moment)


def test_the_walkthrough_skips_a_reduction_that_is_not_whole():
    assert isinstance(
        next(e for e in guide_for("hierarchy", WALKS[1]).entries if e.key == "hierarchy:reduction"), Skipped
    )
    assert next(m for m in guide_for("hierarchy", WALKS[0]).moments if m.key == "hierarchy:reduction").answer == 16


def test_hidden_names_are_counters_or_walkthrough_slots():
    """A stepping view hides counters by their data-testid (SPEC §3); the walkthrough hides its number
    slots, each of which the page has."""
    page = (Path(__file__).resolve().parents[2] / "site" / "partials" / "hierarchy.html").read_text()
    counters = {f"counter-{name}" for name in COUNTER_LABELS}
    for view, params in CASES:
        for m in guide_for(view, params).moments:
            assert set(m.hidden) <= counters, m.key
    for params in WALKS:
        for m in guide_for("hierarchy", params).moments:
            assert all(f'data-slot="{slot}"' in page for slot in m.hidden), m.key


@pytest.mark.parametrize(
    ("view", "raw"),
    [(view, preset) for view, key in ROUTES.items() for preset in KERNELS[key].PARAMS.PRESETS.values()],
)
def test_every_preset_has_a_whole_guide_and_a_task_the_address_can_carry(view, raw):
    """At every preset of every view, including siboehm's large ones: 6–10 entries, and a task whose change,
    written into the address as the view writes it, parses back to the changed sizes."""
    params = KERNELS[ROUTES[view]].PARAMS.parse({name: str(value) for name, value in raw.items()})
    guide = guide_for(view, params)
    assert 6 <= len(guide.entries) <= 10 and len(guide.moments) >= 4
    task = guide.task
    assert isinstance(task, Task)
    address = {**params.as_strings(), **{name: str(value) for name, value in task.change.items()}}
    assert type(params).parse(address) == replace(params, **task.change)


def test_a_task_with_no_valid_change_is_skipped_with_its_reason():
    """1×1 tiles and patches: neither TM nor TN can double (BM, BN = 1) or halve (below 1)."""
    task = guide_for("register", RegisterParams(M=2, N=2, K=2, BM=1, BN=1, BK=1, TM=1, TN=1)).task
    assert isinstance(task, Skipped) and "valid" in task.reason


def test_a_guide_reads_the_views_own_trace_and_refuses_one_of_other_sizes():
    kernel = KERNELS["smem"]
    params = kernel.PARAMS.parse({"M": "4", "N": "4", "K": "8", "T": "2"})
    trace = Trace(kernel, params)
    assert guide_for("tiling", params, trace) == guide_for("tiling", params)
    with pytest.raises(ValueError, match="other sizes"):
        guide_for("tiling", params, Trace(kernel, kernel.PARAMS.parse({"M": "4", "N": "4", "K": "8", "T": "4"})))


def test_the_hopper_task_at_every_bn_the_form_accepts():
    """#/wgmma's task doubles BN, or halves it to a multiple of 8 where doubling passes 256 (the largest wgmma N): at
    every BN the form takes (8 to 256 in steps of 8, the teaching preset's other sizes), a task the address can
    carry, whose answer is tests/bruteforce_wgmma.py's TMA bytes at the changed sizes. (Halved as it stood, BN=136
    to 248 in steps of 16 gave no wgmma N, and the guide had no task there.)"""
    import bruteforce_wgmma

    from pysim.hardware.wgmma_params import WgmmaParams

    teaching = next(iter(WgmmaParams.PRESETS.values()))
    for bn in range(8, 257, 8):
        params = WgmmaParams(**{**teaching, "BN": bn})
        task = guide_for("wgmma", params).task
        assert isinstance(task, Task), (bn, task)
        assert task.change == {"BN": 2 * bn if bn <= 128 else bn // 16 * 8}, bn
        changed = WgmmaParams.parse({**params.as_strings(), "BN": str(task.change["BN"])})
        assert task.moment.answer == bruteforce_wgmma.wgmma(**{**teaching, "BN": changed.BN})["tma_bytes"], bn
