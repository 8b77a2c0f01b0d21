"""Issue 25 ("Every sentence true, round two"), items 1, 2, 5, 6, 10 and 11: the prose of #/naive,
#/transpose, #/register and #/tiling read as the page shows it, at the sizes the issue quotes.

`visible_text` renders a partial the way the views fill it (slots.fill writes each slot's text,
slots.show hides the `data-show` alternatives that are off), so each test reads the sentences a
reader sees. The numbers they must contain are counted here by brute force (tests/bruteforce.py
and the loops below), never taken from pysim's closed forms.
"""

from __future__ import annotations

import re
from fractions import Fraction
from html.parser import HTMLParser
from math import ceil
from pathlib import Path

import pytest

from app.views import naive_explain, register_explain, tiling_explain, transpose_explain
from bruteforce import naive, naive_element, register, smem, tile_reads, transpose, vector_banks
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.lessons import explain

PARTIALS = Path(__file__).resolve().parents[2] / "site" / "partials"
VOID = {"br", "img", "input", "wbr", "hr", "meta", "link"}


class Render(HTMLParser):
    """Text of every `data-testid` element with slots filled and hidden alternatives dropped."""

    def __init__(self, values: dict[str, object], shown: dict[str, bool]) -> None:
        super().__init__()
        self.values, self.shown = values, shown
        self.stack: list[tuple[str, bool, str | None]] = []  # (tag, skipping, testid)
        self.texts: dict[str, list[str]] = {}

    def skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def write(self, text: str) -> None:
        for _, _, testid in self.stack:
            if testid is not None:
                self.texts[testid].append(text)

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        a = dict(attrs)
        skip = self.skipping() or ("data-show" in a and not self.shown[a["data-show"]])
        if not skip and "data-slot" in a:
            value = self.values[a["data-slot"]]
            self.write(f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value))
            skip = True  # the slot's shipped default is replaced
        elif not skip and "data-noun" in a:  # a noun that agrees with its slot's number
            self.write(a["data-one"] if self.values[a["data-noun"]] == 1 else a["data-many"])
            skip = True
        testid = a.get("data-testid")
        if testid is not None and not skip:
            self.texts.setdefault(testid, [])
        self.stack.append((tag, skip, testid if not skip else None))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if not self.skipping():
            self.write(data)


def visible_text(partial: str, values: dict[str, object], shown: dict[str, bool]) -> dict[str, str]:
    render = Render(values, shown)
    render.feed((PARTIALS / partial).read_text(encoding="utf-8"))
    return {testid: " ".join("".join(parts).split()) for testid, parts in render.texts.items()}


def page(module, partial: str, params) -> dict[str, str]:
    return visible_text(partial, module.slot_values(params), module.shown(params))


# --- item 1: #/naive ---------------------------------------------------------------------------------


def noun(number: int, one: str) -> str:
    return f"{number:,} {one if number == 1 else one + 's'}"


def warp0_load(M, N, K, T, map_, array):
    """(lanes inside C, distinct words, distinct sectors) of warp 0 of block (0, 0) loading A or B at k = 0."""
    words = []
    for tid in range(min(T * T, 32)):
        row, col = naive_element(0, 0, tid, T, map_)
        if row < M and col < N:
            words.append(row * K if array == "A" else col)
    return len(words), len(set(words)), len({w // 8 for w in words})


def naive_page(M, N, K, T):
    return page(naive_explain, "view-naive.html", NaiveParams(M=M, N=N, K=K, T=T))


@pytest.mark.parametrize(
    "M,N,K,T", [(16, 16, 8, 8), (32, 32, 8, 32), (4, 4, 8, 2), (32, 32, 1, 32), (5, 3, 2, 4), (1, 1, 1, 1)]
)
def test_naive_warp_sentences_count_what_the_warp_loads(M, N, K, T):
    text = naive_page(M, N, K, T)["why-coalescing"]
    for map_ in ("col", "row"):
        item = re.search(rf"map={map_}: (.*?)(?= map=|$)", text).group(1)
        for array, index in (("A", "A[row][k]"), ("B", "B[k][col]")):
            lanes, words, sectors = warp0_load(M, N, K, T, map_, array)
            asks = (
                f"{index} ask for {words:,} distinct {'word' if words == 1 else 'words'} in {noun(sectors, 'sector')}"
            )
            assert asks in item, (map_, array, item)
            assert (f"{index} is a broadcast" in item) == (words == 1 < lanes), (map_, array)
            assert (f"{index} each need a sector of their own" in item) == (sectors == words > 1), (map_, array)


def test_naive_sentences_at_the_page_preset_16_16_8_8():
    """The issue's case: a map=col warp reads A as 4 words in 4 sectors, a map=row warp touches 8 sectors."""
    text = naive_page(16, 16, 8, 8)["why-coalescing"]
    assert "a broadcast" not in text and "each lane needs a sector of its own" not in text
    assert "A[row][k] ask for 4 distinct words in 4 sectors" in text
    assert "A[row][k] ask for 8 distinct words in 8 sectors" in text


@pytest.mark.parametrize("M,N,K,T", [(4, 4, 8, 2), (32, 32, 1, 32), (16, 16, 8, 8), (32, 32, 8, 32), (3, 40, 5, 4)])
def test_naive_verdict_compares_the_two_maps_whole_run(M, N, K, T):
    col, row = naive(M, N, K, T, "col")["global_sectors"], naive(M, N, K, T, "row")["global_sectors"]
    verdict = naive_page(M, N, K, T)["coalescing-verdict"]
    if col == row:
        assert f"both maps touch the same {col:,} sectors" in verdict
    else:
        fewer, more = ("col", "row") if col < row else ("row", "col")
        low, high = min(col, row), max(col, row)
        assert f"map={fewer} touches {low:,} sectors, map={more} {high:,}" in verdict


# --- item 2: #/transpose ------------------------------------------------------------------------------


def transpose_page(n, T):
    return page(transpose_explain, "view-transpose.html", TransposeParams(n=n, TILE=T))


@pytest.mark.parametrize("n,T", [(64, 16), (16, 8), (64, 32), (8, 4), (37, 32), (100, 7), (1, 1)])
def test_transpose_padding_sentences_follow_the_counts(n, T):
    cycles = {pad: transpose(n, T, pad)["bank_extra_cycles"] for pad in range(5)}
    best = min(cycles, key=lambda pad: (cycles[pad], pad))
    text = transpose_page(n, T)["pad-verdict"]
    assert f"fewest bank-conflict cycles come with pad = {best} ({noun(cycles[best], 'cycle')}" in text
    before, after = f"{cycles[0]:,}", noun(cycles[1], "cycle")
    if cycles[1] == 0 < cycles[0]:
        assert f"pad = 1 removes the conflict ({before} → {after})" in text
    elif cycles[1] < cycles[0]:
        assert f"pad = 1 helps but leaves conflicts ({before} → {after})" in text
    elif cycles[1] > cycles[0]:
        assert f"pad = 1 makes it worse ({before} → {after})" in text
    else:
        assert f"pad = 1 changes nothing ({before} → {after})" in text


def test_transpose_at_T16_and_T8_says_what_the_issue_found():
    t16 = transpose_page(64, 16)["pad-verdict"]
    assert "pad = 2 (128 cycles" in t16 and "896 → 256" in t16
    assert "with pad = 1 the row write has degree 2" in t16  # the write side, which pad = 1 breaks
    t8 = transpose_page(16, 8)["pad-verdict"]
    assert "pad = 1 makes it worse (8 → 16 cycles)" in t8
    for text in (t16, t8):
        assert "spreads over all banks" not in text


def test_transpose_lede_reads_by_column_and_writes_by_row():
    lede = transpose_page(64, 32)["transpose-lede"]
    assert "reads it column by column" in lede and "writes it to C row by row" in lede
    assert "writes it to C column by column" not in lede


# --- items 5 and 6: #/register -------------------------------------------------------------------------


def register_page(**sizes):
    return page(register_explain, "register-explain.html", RegisterParams(**sizes))


@pytest.mark.parametrize(
    "sizes,shown",
    [
        (dict(M=1, N=1, K=1, BM=128, BN=128, BK=8, TM=8, TN=8), "0.25"),
        (dict(M=5, N=7, K=3, BM=16, BN=16, BK=4, TM=4, TN=4), "1.46"),
        (dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2), "1.00"),
    ],
)
def test_register_flops_per_byte_counts_useful_work(sizes, shown):
    brute = register(*sizes.values())
    useful = sizes["M"] * sizes["N"] * sizes["K"]
    assert f"{2 * useful / (4 * brute['global_loads']):.2f}" == shown  # 2·M·N·K FLOPs over the bytes loaded
    text = register_page(**sizes)["intensity-global"]
    assert f"{shown} FLOPs per byte fetched" in text
    assert f"2·M·N·K = {2 * useful:,} useful FLOPs" in text
    padding = brute["fma"] - useful
    assert (f"{padding:,} on zero-filled padding" in text) == (padding > 0)


def bank_split(M, N, K, BM, BN, BK, TM, TN):
    """Bank-conflict cycles of the whole run split into (copies, regM reads, regN reads), by brute force, the
    reads as nvcc issues them (bruteforce.tile_reads)."""
    threads = (BM // TM) * (BN // TN)
    blocks, tiles = ceil(M / BM) * ceil(N / BN), ceil(K / BK)
    warps = [range(w, min(w + 32, threads)) for w in range(0, threads, 32)]
    m_reads = n_reads = copies = 0
    (m_parts, m_issued), (n_parts, n_issued) = tile_reads(BN, BK, TM, TN, threads)
    for warp in warps:
        m_reads += sum(vector_banks([m_parts[t] + o for t in warp], w)[1] for o, w in m_issued)
        n_reads += sum(vector_banks([n_parts[t] + o for t in warp], w)[1] for o, w in n_issued)
        for rows, cols in ((BM, BK), (BK, BN)):  # the copies: thread t stores element t, t + threads, ...
            for start in range(0, rows * cols, threads):
                copies += vector_banks([e for e in (start + t for t in warp) if e < rows * cols], 1)[1]
    return tuple(blocks * tiles * c for c in (copies, m_reads, n_reads))


@pytest.mark.parametrize(
    "sizes",
    [
        dict(M=128, N=128, K=8, BM=128, BN=128, BK=8, TM=8, TN=8),  # siboehm's kernel-5 shape
        dict(M=32, N=32, K=32, BM=16, BN=16, BK=4, TM=4, TN=4),
        dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2),
        dict(M=64, N=1, K=4, BM=64, BN=1, BK=2, TM=2, TN=1),
    ],
)
def test_register_bank_paragraph_explains_both_reads(sizes):
    copies, m_cycles, n_cycles = bank_split(*sizes.values())
    assert copies + m_cycles + n_cycles == register(*sizes.values())["bank_extra_cycles"]
    n = explain.register(RegisterParams(**sizes))
    text = register_page(**sizes)["register-banks"]
    m_instr, n_instr = (f"LDS{ {1: '', 2: '.64', 4: '.128'}[w] }" for w in (n.m_width, n.n_width))
    assert f"regM read As[ty·TM][0], issued as {m_instr}, has conflict degree {n.m_read.degree}" in text
    assert f"regN read Bs[0][tx·TN], issued as {n_instr}, has degree {n.n_read.degree}" in text
    total = copies + m_cycles + n_cycles
    assert f"counts {noun(total, 'cycle')} lost to bank conflicts" in text
    if total:
        assert f"{m_cycles:,} in regM reads, {n_cycles:,} in regN reads and {copies:,} in the copies" in text
    assert ("apart, so lanes whose tx differ by" in text) == (n.n_read.degree > 1)
    assert ("apart, so lanes whose ty differ by" in text) == (n.m_read.degree > 1)


def test_register_bank_paragraph_at_the_production_shape():
    text = register_page(M=128, N=128, K=8, BM=128, BN=128, BK=8, TM=8, TN=8)["register-banks"]
    # nvcc keeps the dotIdx loop here (`kept-loop`): As stays scalar (degree 2); a thread's 8 Bs words are two
    # LDS.128, each served in quarter-warp phases of degree 2 (as scalar reads they were degree 4).
    assert "regM read As[ty·TM][0], issued as LDS, has conflict degree 2" in text
    assert "regN read Bs[0][tx·TN], issued as LDS.128, has degree 2" in text
    assert "512 in regM reads, 512 in regN reads" in text


# The register kernel's dotIdx loop in rounds × (FFMA + shared reads), counted from the sizes alone: BK rounds of
# TM·TN FFMA and TM + TN scalar reads. Above 130 (`kept-loop-base`) nvcc may give the reads other widths than
# the model's, which the bank paragraph must say (fails if the caveat is dropped: checked).
@pytest.mark.parametrize(
    "sizes",
    [
        dict(M=128, N=128, K=8, BM=128, BN=128, BK=8, TM=8, TN=8),  # 8 × (64 + 16) = 640
        dict(M=40, N=45, K=43, BM=8, BN=128, BK=3, TM=8, TN=4),  # 3 × (32 + 12) = 132
        dict(M=32, N=32, K=32, BM=16, BN=16, BK=4, TM=4, TN=4),  # 4 × (16 + 8) = 96: a preset
        dict(M=57, N=29, K=83, BM=8, BN=128, BK=4, TM=8, TN=2),  # 4 × (16 + 10) = 104
    ],
)
def test_register_widths_are_called_the_models_where_nvcc_keeps_the_loop(sizes):
    length = sizes["BK"] * (sizes["TM"] * sizes["TN"] + sizes["TM"] + sizes["TN"])
    text = register_page(**sizes)["register-banks"]
    caveat = f"These widths are pysim's model of nvcc: at these sizes the dotIdx loop is long ({length:,} FFMA"
    assert (caveat in text) == (length > 130), text


# --- item 10: #/tiling with T larger than M and N ---------------------------------------------------


@pytest.mark.parametrize(
    "M,N,K,T", [(3, 3, 3, 8), (3, 2, 5, 4), (8, 3, 4, 4), (7, 5, 11, 4), (4, 4, 8, 2), (33, 1, 2, 32)]
)
def test_tiling_compares_with_an_ideal_no_tiling_beats(M, N, K, T):
    exact = smem(M, N, K, T)["global_loads"]
    # A loaded value of A serves at most min(T, N) elements of C, a value of B at most min(T, M).
    reachable = Fraction(M * K * N, min(T, N)) + Fraction(K * N * M, min(T, M))
    assert exact >= reachable
    verdict = page(tiling_explain, "tiling-explain.html", SmemParams(M=M, N=N, K=K, T=T))["tiling-verdict"]
    assert f"Exact {exact:,} vs ideal {explain.decimal(reachable)}:" in verdict
    if exact == reachable:
        assert "equal" in verdict and "more than ideal" not in verdict
    else:
        assert f"{explain.decimal(exact - reachable)} more than ideal" in verdict


def test_tiling_3_3_3_with_T8_prints_no_ideal_below_the_floor():
    texts = page(tiling_explain, "tiling-explain.html", SmemParams(M=3, N=3, K=3, T=8))
    assert "11.25 more than ideal" not in texts["tiling-verdict"]
    assert "Exact 18 vs ideal 18: equal" in texts["tiling-verdict"]
    assert "6.75 (ideal)" not in texts["why-tiling"]


# --- item 11: preset names ----------------------------------------------------------------------------


def test_register_presets_say_how_many_threads_they_run():
    for name, values in RegisterParams.PRESETS.items():
        p = RegisterParams(**values)
        assert "production" not in name, name
        assert f"({p.threads} threads" in name, name


def test_transpose_preset_that_names_a_conflict_sets_the_pad_that_has_it():
    for name, values in TransposeParams.PRESETS.items():
        p = TransposeParams(**values)
        if "conflict" in name:
            assert "pad" in values, name  # a preset keeps the form's pad otherwise
            banks: dict[int, set[int]] = {}
            for lane in range(min(p.TILE * p.TILE, 32)):  # warp 0 reads tile[tx][ty], a column
                tx, ty = lane % p.TILE, lane // p.TILE
                word = tx * (p.TILE + p.pad) + ty
                banks.setdefault(word % 32, set()).add(word)
            assert f"{max(len(words) for words in banks.values())}-way" in name, name


# --- rereading the views: the transpose monitor at an edge tile ---------------------------------------


def test_transpose_monitor_says_zero_for_a_lane_outside_A():
    from pysim.core.trace import Trace
    from pysim.kernels import KERNELS
    from pysim.lessons.narration import transpose as words

    p = TransposeParams(n=5, TILE=4)
    for step in (s for s in Trace(KERNELS["transpose"], p) if s.phase == "load"):
        bx, by = step.block
        for thread in range(16):
            tx, ty = thread % 4, thread // 4
            x, y = bx * 4 + tx, by * 4 + ty
            said = words.describe(step, p, thread)
            assert said == (
                f"copies A[{y}][{x}] into tile[{ty}][{tx}]"
                if x < 5 and y < 5
                else f"writes 0 to tile[{ty}][{tx}] (edge: outside A)"
            )


# --- on the page (was tests/browser/test_sentences_round2.py): each page fills every slot and noun at the
# issue's sizes, and shows the alternative pysim chose.
def test_naive_at_the_16_16_8_8_preset_names_no_broadcast(page):
    page.go("#/naive?M=16&N=16&K=8&T=8&map=col")
    why = page.testid("why-coalescing")
    text = page.inner_text(why)
    assert "A[row][k] ask for 4 distinct words in 4 sectors" in text and "is a broadcast" not in text
    assert "map=col touches 320 sectors, map=row 576" in page.inner_text(page.testid("coalescing-verdict", why))
    assert page.all("[data-slot][data-default]", why) == []


def test_transpose_at_T8_says_pad_1_makes_it_worse(page):
    page.go("#/transpose?n=16&T=8&pad=0")
    assert "pad = 1 makes it worse (8 → 16 cycles)" in page.inner_text("pad-verdict")
    assert page.all("[data-slot][data-default]", page.testid("why-padding")) == []
