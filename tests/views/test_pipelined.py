"""#/pipelined in CPython: the pipeline's timeline (cells against pysim.lessons.pipelined.timeline, the column
and stage of the step marked), the async copies drawn as 128-bit groups into the stage they fill, the
captions and the explanation's numbers. (The shared stepping checks are in test_stepping.py.)"""

import re
from pathlib import Path

from pysim.core.trace import Trace
from pysim.kernels import KERNELS, k11_pipelined
from pysim.lessons import pipelined
from views.test_stepping import link

KERNEL = KERNELS["pipelined"]
TEACHING = next(iter(KERNEL.PARAMS.PRESETS.values()))
THREE = {**TEACHING, "K": 36, "stages": 3}
PARTIAL = Path(__file__).parents[2] / "site" / "partials" / "pipelined-explain.html"


def first(sizes, test) -> int:
    return next(step.index for step in Trace(KERNEL, KERNEL.PARAMS(**sizes)) if test(step))


def timeline_cells(page) -> list[list]:
    rows = page.all("tbody tr", page.testid("pipeline-timeline"))
    return [page.all("td", row) for row in rows]


def test_the_timeline_is_pysims_and_marks_the_round_computed(page):
    p = KERNEL.PARAMS(**THREE)
    index = first(THREE, lambda s: s.lines == k11_pipelined.LOAD_M and s.tile == 1)
    page.go(link("pipelined", THREE, step=index, guide=0))
    rows = timeline_cells(page)
    columns = pipelined.timeline(p)
    assert len(rows) == p.stages and all(len(row) == len(columns) for row in rows)
    for stage, row in enumerate(rows):
        assert [page.text(cell) for cell in row] == [column.slots[stage].text for column in columns]
    now = [(s, c) for s, row in enumerate(rows) for c, cell in enumerate(row) if "pipe-now" in cell.className]
    assert now == [(s, 2) for s in range(p.stages)]  # round 1 is the third column (after the prologue)
    touched = [(s, c) for s, row in enumerate(rows) for c, cell in enumerate(row) if "pipe-touched" in cell.className]
    assert touched == [(1, 2)]  # tile 1 lives in stage 1
    assert page.text(rows[1][2]) == "compute t1" and page.text(rows[0][2]) == "load t3"
    assert "t2, t3" in page.text("pipeline-now") or "t3, t2" in page.text("pipeline-now")
    # While tile 1 is computed, two later tiles are on their way: the loads that no longer wait.
    assert sorted(page.text(row[2]) for row in rows) == ["compute t1", "in flight t2", "load t3"]


def test_async_copies_land_in_their_stage_as_float4_groups(page):
    """At the teaching preset (2 stages: Bs is 16×64, drawn cell by cell), tile 1's copy of B fills stage 1."""
    index = first(TEACHING, lambda s: s.phase == "load" and s.tile == 1 and s.lines == k11_pipelined.LOAD_B)
    page.go(link("pipelined", TEACHING, step=index, guide=0))
    step = Trace(KERNEL, KERNEL.PARAMS(**TEACHING))[index]
    store = step.accesses[1]
    assert store.asynchronous and store.width == 4
    rows = {r for r, _ in store.cells()}
    assert rows == set(range(8, 16))  # Bs rows of stage 1 (BK = 8)
    assert len(page.all(".cell.vec4", page.testid("grid-Bs"))) == store.elements
    assert page.value("counter-shared_stores") == 0
    assert page.value("counter-async_copy_bytes") == step.counters.async_copy_bytes > 0


def test_captions_and_explanation_follow_the_sizes(page):
    page.go(link("pipelined", THREE, step=0, guide=0))
    captions = [page.text(node) for node in page.all("figure.grid-As figcaption")]
    assert captions and "3 stages, A transposed" in captions[0]
    values = pipelined.slot_values(KERNEL.PARAMS(**THREE))
    for name in ("stages", "tiles", "waits_before", "waits_after", "shared_bytes"):
        shown = page.all(f'[data-slot="{name}"]')
        assert shown and all(node.getAttribute("data-value") == str(values[name]) for node in shown), name


def test_the_partials_defaults_are_the_teaching_presets():
    values = pipelined.slot_values(KERNEL.PARAMS(**TEACHING))
    found = re.findall(r'data-slot="(\w+)" data-value="([^"]*)"', PARTIAL.read_text())
    assert found and {name: str(values[name]) for name, _ in found} == dict(found)
