"""TF32 tensor cores (k12, mma.sync.m16n8k8): closed form against the trace and tests/bruteforce_mma.py at
many sizes (non-multiples of the tiles, fewer tiles than stages, idle lanes in the copy rounds, padded and
swizzled rows, TF32 and 3xTF32), C from the stores (digits: exact; random floats: bit for bit what
pysim.core.tf32.gemm computes), the pipeline's order, the parameter rules and the CLI."""

import json
from dataclasses import fields

import bruteforce_mma
import numpy as np
import pytest
from groups import replay
from kernelrun import run_cli, stored_c
from stepsums import summed

from pysim.core import tf32
from pysim.core.counters import Counters
from pysim.core.trace import Trace
from pysim.hardware.mma_params import MmaParams
from pysim.hardware.params import ParamError
from pysim.kernels import KERNELS, k12_mma
from pysim.kernels.mma_layout import FLOPS_PER_MMA, tensor_flops
from pysim.lessons.narration import narration

KERNEL = KERNELS["mma"]
ONE = {"BM": 16, "BN": 16, "BK": 8, "WM": 16, "WN": 16}
LINE = {"BM": 16, "BN": 32, "BK": 32, "WM": 16, "WN": 32}  # one warp; swizzled rows of whole 128-byte lines
CASES = [
    dict(M=16, N=16, K=32, stages=2, swizzle=0, split=1, **ONE),
    dict(M=13, N=20, K=12, stages=2, swizzle=1, split=1, **LINE),  # non-multiples: zero-filled copies, guards
    dict(M=1, N=4, K=4, stages=4, swizzle=0, split=3, **ONE),  # the smallest: one tile, empty groups only
    dict(M=33, N=36, K=44, stages=3, swizzle=1, split=3, **LINE),
    dict(M=40, N=28, K=20, stages=3, swizzle=0, split=1, BM=32, BN=16, BK=8, WM=16, WN=16),  # two warps
    dict(M=50, N=68, K=36, stages=2, swizzle=1, split=3, BM=32, BN=64, BK=32, WM=32, WN=32),  # 2×4 mma tiles
    dict(M=50, N=28, K=20, stages=2, swizzle=0, split=1, BM=48, BN=24, BK=8, WM=16, WN=24),  # idle copy lanes
    dict(M=20, N=40, K=52, stages=4, swizzle=0, split=1, BM=16, BN=32, BK=24, WM=16, WN=32),  # 6 chunks a row
    dict(M=128, N=128, K=128, stages=3, swizzle=1, split=1, BM=128, BN=128, BK=32, WM=64, WN=64),
    dict(M=64, N=64, K=32, stages=2, swizzle=0, split=1, BM=64, BN=64, BK=32, WM=32, WN=32),
]
OFFERED = {spec.name: spec.metadata.get("options") for spec in fields(MmaParams)}
EDITOR = [  # every value the swizzle editor offers
    dict(swz_bits=bits, swz_base=base, swz_shift=shift)
    for bits in OFFERED["swz_bits"]
    for base in OFFERED["swz_base"]
    for shift in OFFERED["swz_shift"]
]


@pytest.mark.parametrize("values", CASES)
def test_closed_form_trace_and_brute_force_agree(values):
    p = MmaParams(**values)
    closed = KERNEL.counters(p)
    assert closed.as_dict() == bruteforce_mma.mma(**values)
    trace = Trace(KERNEL, p)
    assert summed(trace) == closed
    assert len(list(KERNEL.block_steps(p, trace.A, trace.B, 0, 0))) == KERNEL.steps_per_block(p)
    assert trace.c_matches()
    assert closed.fma == closed.shared_stores == closed.register_reads == 0
    assert tensor_flops(closed) == closed.mma_instructions * FLOPS_PER_MMA == closed.mma_instructions * 2048


def _accepted(values):
    try:
        MmaParams(**values)
    except ParamError:
        return False
    return True


EDITOR_CASES = [
    {**sizes, **editor, "swizzle": 1}
    for sizes in (CASES[1], dict(M=20, N=64, K=72, stages=2, split=1, BM=16, BN=64, BK=64, WM=16, WN=32))
    for editor in EDITOR
    if _accepted({**sizes, **editor, "swizzle": 1})
]


@pytest.mark.parametrize("values", EDITOR_CASES, ids=lambda v: "N{N}B{swz_bits}M{swz_base}S{swz_shift}".format(**v))
def test_every_swizzle_the_editor_accepts_against_the_brute_force(values):
    """Shared wavefronts and bank-conflict cycles (and every other counter) of each swizzle the form accepts,
    closed form against the brute force's bank count of the listing's addresses."""
    assert KERNEL.counters(MmaParams(**values)).as_dict() == bruteforce_mma.mma(**values)


def test_mma_count_and_flops_at_the_production_preset():
    """128³ in 16×8×8 pieces is 8·16·16 = 2,048 mmas, 2·128³ FLOPs; 3xTF32 issues three times as many."""
    values = dict(CASES[8])
    assert KERNEL.counters(MmaParams(**values)).mma_instructions == 2048
    assert tensor_flops(KERNEL.counters(MmaParams(**values))) == 2 * 128**3
    assert KERNEL.counters(MmaParams(**{**values, "split": 3})).mma_instructions == 3 * 2048


def _bank_cycles(p, lines):
    trace = Trace(KERNEL, p)
    return sum(trace[i].delta.bank_extra_cycles for i in range(trace.steps_per_block) if trace[i].lines in lines)


@pytest.mark.parametrize("values", [CASES[1], CASES[5], CASES[8], CASES[9]])
def test_padding_and_swizzle_against_the_bank_conflicts(values):
    """Rows as they lie would put the 8 rows an A fragment load reads on shared banks (below, by hand).
    Padded rows: no fragment load conflicts (the copies' landing may). XOR-swizzled rows: no A fragment load
    and no copy conflicts; B's fragment loads do where 4 rows of BN words meet the 128-byte lines badly
    (BN=32, 128; not 64): counted, as the brute force counts them. Swizzled rows are whole 128-byte lines."""
    padded, swizzled = (MmaParams(**{**values, "swizzle": s}) for s in (0, 1))
    copies = k12_mma.LOAD_A + k12_mma.LOAD_B
    assert _bank_cycles(padded, (k12_mma.FRAG_A, k12_mma.FRAG_B)) == 0
    assert _bank_cycles(swizzled, (k12_mma.FRAG_A, *copies)) == 0
    assert (_bank_cycles(swizzled, (k12_mma.FRAG_B,)) == 0) == (swizzled.BN == 64)
    plain_a0 = [lane // 4 * 8 + lane % 4 for lane in range(32)]  # a0 from As[m][8], neither padded nor swizzled
    assert len({w % 32 for w in plain_a0}) == 16  # 32 words on 16 banks: a 2-way conflict


def _kept(editor, stride):
    """Brute force (tests/bruteforce_mma.py's place-value swizzle): every word of four stages of 128 rows of
    `stride` words stays in its row, and no two words land on one place."""
    words = np.arange(4 * 128 * stride)
    moved = bruteforce_mma.swizzled(words, editor["swz_bits"], editor["swz_base"], editor["swz_shift"])
    assert np.array_equal(np.sort(moved), words)  # a permutation, whatever the editor says
    return np.array_equal(moved // stride, words // stride)


@pytest.mark.parametrize("editor", EDITOR, ids=lambda e: "B{swz_bits}M{swz_base}S{swz_shift}".format(**e))
def test_the_form_accepts_a_swizzle_exactly_where_it_keeps_each_row_whole(editor):
    """The swizzle editor's rules against the XOR itself: a swizzled As row (BK) and Bs row (BN) is accepted
    exactly when the brute force keeps every word in its row and moves some word of a stage's arrays, for every
    value the editor offers; a base below 2 (chunks smaller than a cp.async's 16 bytes) and a shift below the
    bits (CuTe's assert) are refused by name."""
    bits, base, shift = editor["swz_bits"], editor["swz_base"], editor["swz_shift"]
    for bk, bn in ((8, 16), (16, 32), (32, 32), (32, 64), (64, 128), (64, 16)):
        values = dict(M=64, N=128, K=64, BM=16, BN=bn, BK=bk, WM=16, WN=16, stages=2, swizzle=1, split=1)
        try:
            MmaParams(**values, **editor)
            accepted, param = True, ""
        except ParamError as error:
            accepted, param = False, error.param
        if base < 2 or shift < bits:
            assert param == ("swz_base" if base < 2 else "swz_shift"), (bk, bn)
            continue
        words = np.arange(2 * max(16 * bk, bk * bn))
        moves = not np.array_equal(bruteforce_mma.swizzled(words, bits, base, shift), words)
        whole = _kept(editor, bk) and _kept(editor, bn)
        assert accepted == (whole and moves), (bk, bn)
        if whole and not moves:
            assert param == "swz_shift", (bk, bn)  # it would move nothing: a smaller shift


@pytest.mark.parametrize("values", [CASES[1], CASES[3], CASES[5]])
def test_c_on_random_floats_is_bit_for_bit_the_tf32_model(values):
    """The lanes' fragments, assembled by the ISA's maps into tiles and back, give what tf32.gemm computes
    on whole matrices, to the bit, and not float32's A @ B."""
    p = MmaParams(**values)
    rng = np.random.default_rng(7)
    A = rng.standard_normal((p.M, p.K)).astype(np.float32)
    B = rng.standard_normal((p.K, p.N)).astype(np.float32)
    c = stored_c(KERNEL, p, A, B)
    np.testing.assert_array_equal(c, tf32.gemm(A, B, p.split))
    if p.K > 8:
        assert not np.array_equal(c, A @ B)


def test_each_tile_lands_before_its_fragments_are_read():
    for values in CASES[:5]:
        p = MmaParams(**values)
        trace = Trace(KERNEL, p)
        assert replay(trace, p.stages) == list(range(p.tiles)), values


@pytest.mark.parametrize("values", [CASES[1], CASES[3]])
def test_highlighted_lines(values):
    p = MmaParams(**values)
    source, words = KERNEL.source(p), narration("mma")
    assert not any("@@" in line for line in source)
    expected = {
        k12_mma.LOAD_A: "cpAsync16(&As[",
        k12_mma.FRAG_A: "a[mi][i] = As[",
        k12_mma.FRAG_B: "b[ni][i] = Bs[",
        k12_mma.MMA: "mma3xTf32(acc" if p.split == 3 else "mmaTf32(acc",
        k12_mma.WAIT: f"cp.async.wait_group {p.stages - 1}",
        k12_mma.STORE: "make_float2",
    }
    for step in Trace(KERNEL, p):
        if step.lines in expected:
            assert expected[step.lines] in source[step.line - 1], source[step.line - 1]
        KERNEL.focus(p, step, 0)
        assert words.narrate(step, p, p.threads - 1).endswith(".")
        assert words.phase_detail(step, p).endswith(".")


@pytest.mark.parametrize("values", [CASES[4], CASES[5], CASES[6]])
def test_owner_and_owned_cells_agree(values):
    p = MmaParams(**values)
    for thread in range(p.threads):
        for bx, by in [(0, 0), (KERNEL.grid(p)[0] - 1, KERNEL.grid(p)[1] - 1)]:
            for row, col in KERNEL.owned_cells(p, (bx, by), thread):
                assert KERNEL.owner(p, row, col) == ((bx, by), thread)


BASE = {k: str(v) for k, v in list(MmaParams.PRESETS.values())[1].items()}


@pytest.mark.parametrize(
    "raw,param,fragment",
    [
        ({"WM": "24"}, "WM", "WM=24 is not a multiple of 16, the m of mma.m16n8k8"),
        ({"WN": "12", "BN": "48"}, "WN", "WN=12 is not a multiple of 8, the n of mma.m16n8k8"),
        ({"BK": "12"}, "BK", "BK=12 is not a multiple of 8, the k of mma.m16n8k8"),
        ({"BK": "64", "stages": "4"}, "stages", "bytes of shared memory per block; the NVIDIA A100"),
        ({"BK": "32", "stages": "4", "device": "rtxa6000"}, "stages", "allows 101,376 (dynamic, opt-in)"),
        ({"stages": "5"}, "stages", "stages must be at most 4"),
        ({"device": "t4"}, "device", "mma.sync with .tf32 operands needs 8.0 or later (sm_80)"),
        ({"split": "2"}, "split", "split is 1 (TF32) or 3 (3xTF32)"),
        ({"swizzle": "2"}, "swizzle", "swizzle must be at most 1"),
        (
            {"swizzle": "1"},
            "BK",
            "BK=16: Swizzle<3, 2, 3> moves 4-word chunks within blocks of 2^(swz_base+swz_bits) = 32",
        ),
        ({"swizzle": "1", "BK": "32", "swz_base": "1"}, "swz_base", "swz_base=1: a cp.async lands 16 bytes"),
        ({"swizzle": "1", "BK": "32", "swz_bits": "2", "BN": "40", "WN": "8"}, "BN", "BN=40: Swizzle<2, 2, 3>"),
        ({"swz_bits": "5"}, "swz_bits", "swz_bits must be at most 4"),
        ({"swizzle": "1", "BK": "32", "BN": "48", "WN": "16"}, "BN", "a swizzled Bs row of BN words must be whole"),
        ({"K": "6"}, "K", "K=6 is not a multiple of 4: a cp.async copies 16 bytes"),
        ({"BM": "96"}, "WM", "BM=96 is not divisible by WM=64"),
        ({"WM": "128", "WN": "128"}, "WM", "a thread may use at most 255 registers"),
    ],
)
def test_invalid_values_name_the_parameter_and_the_rule(raw, param, fragment):
    with pytest.raises(ParamError) as caught:
        MmaParams.parse({**BASE, **raw})
    assert caught.value.param == param
    assert fragment in caught.value.message, caught.value.message
    assert caught.value.message.startswith(param)


def test_cli_count_and_refusals():
    values = CASES[3]
    flags = [item for key, value in values.items() for item in (f"--{key}", str(value))]
    out = run_cli("count", "--kernel", "mma", *flags, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["c_matches"] is True
    assert {k: data[k] for k in Counters().as_dict()} == bruteforce_mma.mma(**values)
    text = run_cli("trace", "--kernel", "mma", *flags, "--limit", "30")
    assert text.returncode == 0 and "mma3xTf32(acc" in text.stdout, text.stderr
    for flags, word in (
        (["--WM", "24"], "WM"),
        (["--stages", "4", "--BK", "256"], "stages"),
        (["--device", "t4"], "sm_80"),
        (["--swizzle", "1"], "blocks of 2^(swz_base+swz_bits) = 32 words"),
        (["--swizzle", "1", "--BK", "32", "--swz_base", "0"], "swz_base=0"),
    ):
        bad = run_cli("count", "--kernel", "mma", *flags)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and word in bad.stderr, bad.stderr
