"""The tiling and register explanations on the page, in CPython: slots filled from pysim for the sizes on
screen, alternatives shown or hidden, drawings present, numbers equal to brute force. (Was
tests/browser/test_explain.py; the modules that compute them are tested in test_explain.py.)"""

from __future__ import annotations

import re

import pytest

from bruteforce import naive, register, smem

TILING_ODD = "#/tiling?M=7&N=5&K=11&T=4"
REGISTER_ODD = dict(M=7, N=5, K=11, BM=4, BN=4, BK=4, TM=2, TN=2)


def register_hash(sizes: dict[str, int]) -> str:
    return "#/register?" + "&".join(f"{k}={v}" for k, v in sizes.items())


def test_tiling_derivation_for_sizes_that_are_not_multiples(page):
    page.go(TILING_ODD)
    why = page.testid("why-tiling")
    expected = smem(7, 5, 11, 4)
    assert page.value("naive-loads") == naive(7, 5, 11, 4)["global_loads"] == 2 * 7 * 5 * 11
    assert page.value("exact-loads") == expected["global_loads"]
    assert page.value("useful-fma") == 7 * 5 * 11
    assert page.value("useful-fma") + page.value("wasted-fma") == expected["fma"]
    text = page.inner_text(why)
    assert "770 / 4 = 192.5 (ideal)" in text and "71.5 more than ideal" in text
    assert "zero-filled, not loaded" in text and "Global-load reduction" in text
    edge = page.testid("edge-excess", why)
    assert page.visible(edge)
    assert "only N mod T = 1 column(s) of C" in page.inner_text(edge)
    assert "only M mod T = 3 row(s) of C" in page.inner_text(edge)
    assert page.all("[data-slot][data-default]") == []


def test_tiling_derivation_when_tile_divides_the_sizes(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    assert not page.visible("edge-excess")
    assert "equal, because T divides M and N" in page.inner_text("tiling-verdict")
    assert page.value("wasted-fma") == 0


def test_tile_larger_than_the_matrix_explains_the_reuse_cap(page):
    page.go("#/tiling?M=3&N=2&K=5&T=4")
    assert page.visible("reuse-cap")
    assert "M·K + K·N = 25 global loads" in page.inner_text("reuse-cap")
    assert page.value("exact-loads") == smem(3, 2, 5, 4)["global_loads"] == 25


@pytest.mark.parametrize(
    "T,a_words,b_banks",
    [(1, "1 distinct word", "1 bank"), (3, "3 distinct words", "3 banks"), (32, "4 distinct words", "32 banks")],
)
def test_bank_lines_for_small_odd_and_warp_wide_tiles(page, T, a_words, b_banks):
    page.go(f"#/tiling?M={T + 1}&N={T + 1}&K={T}&T={T}")
    a, b = page.testid("bank-tileA"), page.testid("bank-tileB")
    assert a.getAttribute("data-degree") == "1" and b.getAttribute("data-degree") == "1"
    assert f"{a_words} in" in page.inner_text(a)  # the noun agrees with the number (app.core.slots)
    assert re.search(rf"\bin {b_banks}[:,]", page.inner_text(b))
    assert ("broadcast" in page.inner_text(a)) == (T > 1)


def test_register_compare_table_equals_brute_force(page):
    page.go(register_hash(REGISTER_ODD))
    rows = page.all("tbody tr", page.testid("compare-table"))
    T = 4  # min(BM, BN): the modelling choice of pysim/lessons/comparison.py
    expected = (naive(7, 5, 11, T), smem(7, 5, 11, T), register(*REGISTER_ODD.values()))
    names = ("global_loads", "shared_loads", "register_reads", "fma", "global_sectors", "bank_extra_cycles")
    for row, counts in enumerate(expected):
        cells = page.all("td", rows[row])
        for column, name in enumerate(names):
            if name in counts and not (name == "register_reads" and row < 2):
                assert int(str(cells[column].getAttribute("data-value"))) == counts[name], (row, name)
    assert "T = min(BM, BN) = 4" in page.inner_text("compare-note")


def test_register_intensity_wall_and_padding(page):
    page.go(register_hash(REGISTER_ODD))
    assert "TM + TN = 2 + 2 = 4" in page.inner_text("intensity-current")
    chart = page.find("svg", page.testid("intensity-chart"))
    assert len(page.all("rect.wall", chart)) == 1
    assert "> 255 registers" in chart.textContent
    global_text = page.inner_text("intensity-global")
    fma = register(*REGISTER_ODD.values())["fma"]
    assert f"{fma:,} FMAs" in global_text and f"{fma - 7 * 5 * 11:,} on zero-filled padding" in global_text
    assert page.attribute("register-banks", "data-degree") == "1"


def test_outer_product_picture_has_one_cell_per_product(page):
    page.go(register_hash(dict(M=8, N=8, K=8, BM=8, BN=8, BK=4, TM=4, TN=2)))
    picture = page.find("svg", page.testid("outer-product-picture"))
    assert len(page.all("rect.tile-box", picture)) == 8
    assert len(page.all("rect.row-hot", picture)) == 4 and len(page.all("rect.lane-hit", picture)) == 2


def test_real_gpus_section_cites_its_sources(page):
    page.go(register_hash(REGISTER_ODD))
    section = page.testid("real-gpus")
    text = page.inner_text(section)
    assert "256 threads" in text and "304 registers" in text
    hrefs = [str(link.getAttribute("href")) for link in page.all("a", section)]
    assert "https://siboehm.com/articles/22/CUDA-MMM" in hrefs
    assert any(h.startswith("https://docs.nvidia.com/cuda/cuda-c-programming-guide/") for h in hrefs)
