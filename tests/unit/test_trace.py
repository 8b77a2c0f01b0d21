"""Random access, bounded memory, source lines and narration of traces."""

import numpy as np
import pytest

from pysim.core import banks, instructions
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.kernels import KERNELS, ORDER
from pysim.lessons.ladder import SIBOEHM_NUMBER, LadderParams, siboehm_ladder
from pysim.lessons.narration import narration

SMALL = {
    "naive": NaiveParams(M=5, N=3, K=4, T=2),
    "smem": SmemParams(M=5, N=3, K=7, T=2),
    "register": RegisterParams(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1),
    "transpose": TransposeParams(n=5, TILE=4, pad=1),
}


def test_kernels_are_in_teaching_order():
    assert [k.NAME for k in ORDER] == [
        "naive",
        "smem",
        "transpose",
        "blocktile1d",
        "register",
        "vectorized",
        "warptile",
        "pipelined",
        "mma",
        "wgmma",
    ]


def test_module_numbers_are_siboehms_and_sort_in_teaching_order():
    """pysim/kernels/__init__.py: a kernel of siboehm's ladder is numbered as he numbers it (naive: his 1 and 2)."""
    modules = [kernel.module.__name__.rpartition(".")[2] for kernel in ORDER]
    assert modules == sorted(modules)
    his: dict[str, int] = {}
    for rung in siboehm_ladder(LadderParams()):
        if rung.key in SIBOEHM_NUMBER:
            his[rung.kernel] = min(his.get(rung.kernel, 99), SIBOEHM_NUMBER[rung.key])
    assert len(his) == 6
    for name, number in his.items():
        assert KERNELS[name].module.__name__.rpartition(".")[2].startswith(f"k{number:02d}_")


# What each kind of step executes, written from the CUDA listings (not from pysim's markers):
# (phase, the accesses it makes) -> text that its highlighted line must contain.
STATEMENTS = {
    "naive": {
        ("setup", ()): "threadIdx.y",
        ("compute", (("A", "load"), ("B", "load"))): "sum += A[row * K + k] * B[k * N + col]",
        ("store", (("C", "store"),)): "C[row * N + col] = sum",
    },
    "smem": {
        ("setup", ()): "threadIdx.x",
        ("load", (("A", "load"), ("tileA", "store"))): "tileA[ty][tx] = (globalRow < M && tileColA < K) ? A[",
        ("load", (("B", "load"), ("tileB", "store"))): "tileB[ty][tx] = (tileRowB < K && globalCol < N) ? B[",
        ("barrier", ()): "__syncthreads();",
        ("compute", (("tileA", "load"), ("tileB", "load"))): "partialSum += tileA[ty][k] * tileB[k][tx];",
        ("store", (("C", "store"),)): "if (globalRow < M && globalCol < N) C[globalRow * N + globalCol] = partialSum;",
    },
    "register": {
        ("setup", ()): "threadIdx.x",
        ("load", (("A", "load"), ("As", "store"))): "? A[r * K + c] : 0",
        ("load", (("B", "load"), ("Bs", "store"))): "? B[r * N + c] : 0",
        ("barrier", ()): "__syncthreads();",
        ("compute", (("As", "load"),)): "regM[i] = As[ty * ",
        ("compute", (("Bs", "load"),)): "regN[j] = Bs[dotIdx][tx * ",
        ("compute", ()): "+= regM[i] * regN[j];",
        ("store", (("C", "store"),)): "if (r < M && c < N) C[r * N + c] = threadResults[",
    },
    "transpose": {
        ("setup", ()): "threadIdx.y",
        (
            "load",
            (("A", "load"), ("tile", "store")),
        ): "tile[threadIdx.y][threadIdx.x] = (x < n && y < n) ? A[y * n + x]",
        ("barrier", ()): "__syncthreads();",
        (
            "store",
            (("tile", "load"), ("C", "store")),
        ): "if (x < n && y < n) C[y * n + x] = tile[threadIdx.x][threadIdx.y];",
    },
}


@pytest.mark.parametrize("name", SMALL)
def test_highlighted_line_holds_the_statement_executed(name):
    """SPEC §5: a step's line is a line of the listing shown, holding the statement the step runs."""
    kernel, params = KERNELS[name], SMALL[name]
    source = kernel.source(params)
    seen = set()
    for step in Trace(kernel, params):
        kind = (step.phase, tuple((a.array, a.op) for a in step.accesses))
        assert kind in STATEMENTS[name], f"unexpected step kind {kind}"
        assert STATEMENTS[name][kind] in source[step.line - 1], (step.index, step.line, source[step.line - 1])
        for line in step.lines:
            assert source[line - 1].strip(), f"line {line} is blank"
        seen.add(kind)
    assert seen == set(STATEMENTS[name]), "every kind of statement runs in the small case"


@pytest.mark.parametrize("name", SMALL)
def test_shown_listing_has_no_markers(name):
    assert not any("@@" in line for line in KERNELS[name].source(SMALL[name]))


def test_a_line_added_to_a_listing_moves_no_highlight():
    from pysim.core.listing import Listing

    template = "a\n  x = 1;  @@first\n  y = 2;  @@second\n"
    edited = Listing(template.replace("  y", "  // a new comment\n  y"))
    assert Listing(template).at("second") == (3,)
    assert edited.at("second") == (4,) and edited.render()[3] == "  y = 2;"


@pytest.mark.parametrize("name", SMALL)
def test_random_access_equals_sequential(name):
    kernel, params = KERNELS[name], SMALL[name]
    sequential = [(s.index, s.phase, s.counters) for s in Trace(kernel, params)]
    jumping = Trace(kernel, params, cached_blocks=1)
    for index in reversed(range(len(jumping))):
        step = jumping[index]
        assert (step.index, step.phase, step.counters) == sequential[index]


def test_steps_count_and_next_block():
    p = SmemParams(M=6, N=6, K=9, T=3)
    trace = Trace(KERNELS["smem"], p)
    assert len(trace) == 4 * (2 + 3 * (3 + 4))
    assert trace.next_block_step(0) == 23
    assert trace[23].block == (1, 0) and trace[23].phase == "setup"
    assert trace.next_block_step(len(trace) - 1) == len(trace) - 1
    with pytest.raises(IndexError):
        trace[len(trace)]


def test_cache_is_bounded():
    trace = Trace(KERNELS["smem"], SmemParams(M=32, N=32, K=32, T=4), cached_blocks=2)
    steps = sum(1 for _ in trace)
    assert steps == len(trace)
    assert len(trace._cache) <= 2


def test_edge_tiles_are_zero_filled():
    p = SmemParams(M=5, N=5, K=5, T=2)
    trace = Trace(KERNELS["smem"], p)
    loads = [s for s in trace if s.phase == "load" and s.tile == 2 and s.block == (0, 0)]
    tile_a = loads[0].access("tileA")
    assert tile_a.zero_cells() == [(0, 1), (1, 1)]
    assert loads[0].shared["tileA"][0, 1] == 0


def test_c_after_fills_block_by_block():
    p = SmemParams(M=4, N=4, K=2, T=2)
    trace = Trace(KERNELS["smem"], p)
    first_store = next(s.index for s in trace if s.phase == "store")
    assert int((trace.c_after(first_store - 1) == trace.c_after(first_store - 1)).sum()) == 0
    assert int((trace.c_after(first_store) == trace.c_after(first_store)).sum()) == 4


def test_narration_names_block_tile_thread_and_cells():
    p = SmemParams(M=6, N=6, K=9, T=3)
    trace = Trace(KERNELS["smem"], p)
    step = trace[trace.first_step(1) + 8]  # block (1,0), tile 2, load of A
    assert step.phase == "load" and step.tile == 1
    sentence = narration("smem").narrate(step, p, 1)
    assert sentence == "Block (1,0), tile 2 of 3: thread (1,0) loads A[0][4] into tileA[0][1]."


def test_register_fma_pair_slides():
    p = RegisterParams()
    trace = Trace(KERNELS["register"], p)
    pairs = [s.pair for s in list(trace)[:40] if s.pair is not None][:4]
    assert pairs == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_a_planned_access_of_8_byte_elements_is_priced_on_its_32_bit_words():
    """The trace's two pricing paths (as written: Access.bank_words; as issued: instructions.issued_costs)
    meet in banks.bank_words, so a planned access of doubles would be priced on two banks' words per element."""
    words = np.arange(32)[None, :]  # lane i reads double i: as LDS.64, lanes 0-15 fill the 32 banks
    assert instructions.issued_costs(words, [(1, 0)], element_words=2) == banks.costs(words * 2, 2) == (0, 2)
    merged = instructions.issued_costs(words, [(2, 0)], element_words=2)  # two doubles per lane: 128 bits
    assert merged == banks.costs(words * 2, 4) != instructions.issued_costs(words, [(2, 0)])
