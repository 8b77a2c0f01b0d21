"""Hopper, TMA + wgmma (k13): closed form against the trace and tests/bruteforce_wgmma.py at many sizes
(non-multiples of the tiles, fewer tiles than stages, one stage, one to three consumer warpgroups, two m64
tiles a consumer), C from the stores (digits: exact; random floats: bit for bit tf32.gemm with wgmma's
truncated operands), the TMA's swizzled placement against the swizzle's table, the pipeline's full/empty
order, the parameter rules and the CLI."""

import json

import bruteforce_wgmma
import numpy as np
import pytest
from kernelrun import run_cli, stored_c
from stepsums import summed
from test_swizzle import PTX_128B

from pysim.core import tf32
from pysim.core.counters import Counters
from pysim.core.trace import Trace
from pysim.hardware.params import ParamError
from pysim.hardware.wgmma_params import WgmmaParams
from pysim.kernels import KERNELS, k13_wgmma
from pysim.kernels.wgmma_layout import d_map, flops_per_wgmma, tensor_flops
from pysim.lessons.narration import narration

KERNEL = KERNELS["wgmma"]
CASES = [
    dict(M=64, N=32, K=64, BM=64, BN=32, BK=32, stages=2, consumers=1),  # the teaching preset
    dict(M=50, N=30, K=44, BM=64, BN=24, BK=32, stages=1, consumers=1),  # non-multiples, one stage
    dict(M=1, N=2, K=4, BM=64, BN=8, BK=32, stages=3, consumers=1),  # the smallest: one tile, three stages
    dict(M=130, N=70, K=100, BM=128, BN=64, BK=32, stages=2, consumers=2),  # two consumers, edges everywhere
    dict(M=100, N=40, K=96, BM=128, BN=40, BK=32, stages=2, consumers=1),  # two m64 tiles a consumer
    dict(M=64, N=64, K=160, BM=64, BN=64, BK=32, stages=3, consumers=1),  # 5 tiles on 3 stages: parities
    dict(M=200, N=16, K=36, BM=192, BN=16, BK=32, stages=4, consumers=3),  # three consumers, 768 threads
]


@pytest.mark.parametrize("values", CASES)
def test_closed_form_trace_and_brute_force_agree(values):
    p = WgmmaParams(**values)
    closed = KERNEL.counters(p)
    assert closed.as_dict() == bruteforce_wgmma.wgmma(**values)
    trace = Trace(KERNEL, p)
    assert summed(trace) == closed
    assert len(list(KERNEL.block_steps(p, trace.A, trace.B, 0, 0))) == KERNEL.steps_per_block(p)
    assert trace.c_matches()
    assert closed.fma == closed.shared_loads == closed.shared_stores == closed.async_copy_bytes == 0
    assert tensor_flops(p, closed) == closed.mma_instructions * 2 * 64 * p.BN * 8


def test_counts_at_the_production_preset():
    """256³ in BM=BN=128 blocks: 4 blocks × 8 tiles × 4 k-steps × 2 consumers = 256 wgmma m64n128k8, 2·256³
    FLOPs; every tile's two boxes are 32 KiB; each block's 256 consumer threads wait 8 times, the producer 4."""
    p = WgmmaParams(**list(WgmmaParams.PRESETS.values())[1])
    found = KERNEL.counters(p)
    assert found.mma_instructions == 256 and flops_per_wgmma(p) == 131_072
    assert tensor_flops(p, found) == 2 * 256**3
    assert found.tma_bytes == 4 * 8 * 32_768 and found.global_loads == 2 * 256**3 // 128
    assert found.mbarrier_waits == 4 * (8 * 256 + 4)


@pytest.mark.parametrize("values", [CASES[1], CASES[3], CASES[5]])
def test_c_on_random_floats_is_bit_for_bit_the_tf32_model(values):
    """The consumers' accumulators, assembled by wgmma's D map into tiles and back, give what tf32.gemm
    computes on whole matrices with truncated operands, to the bit: not cvt.rna's rounding, not float32."""
    p = WgmmaParams(**values)
    rng = np.random.default_rng(11)
    A = rng.standard_normal((p.M, p.K)).astype(np.float32)
    B = rng.standard_normal((p.K, p.N)).astype(np.float32)
    c = stored_c(KERNEL, p, A, B)
    np.testing.assert_array_equal(c, tf32.gemm(A, B, 1, tf32.truncate))
    assert not np.array_equal(c, tf32.gemm(A, B, 1))
    assert not np.array_equal(c, A @ B)


@pytest.mark.parametrize("values", [CASES[0], CASES[3]])
def test_the_tma_lands_each_box_where_the_swizzle_table_says(values):
    """After tile t's copies, row r of its stage holds the box's row r with 16-byte chunk j at chunk
    PTX_128B[r % 8][j] (the table transcribed in test_swizzle.py, not pysim's function), zeros outside."""
    p = WgmmaParams(**values)
    trace = Trace(KERNEL, p)
    bx, by = trace.blocks[-1]
    Bt = trace.B.T
    for step in (trace[i] for i in range(trace.first_step(len(trace.blocks) - 1), len(trace))):
        if step.lines not in (k13_wgmma.TMA_A, k13_wgmma.TMA_B):
            continue
        matrix, height, row0, name = (
            (trace.A, p.BM, by * p.BM, "As") if step.lines == k13_wgmma.TMA_A else (Bt, p.BN, bx * p.BN, "Bs")
        )
        shared, stage = step.shared[name], step.tile % p.stages
        for r in range(height):
            for c in range(p.BK):
                g_row, g_col = row0 + r, step.tile * p.BK + c
                inside = g_row < matrix.shape[0] and g_col < matrix.shape[1]
                want = matrix[g_row, g_col] if inside else 0
                assert shared[stage * height + r, PTX_128B[r % 8][c // 4] * 4 + c % 4] == want, (name, r, c)


def test_the_pipeline_order_full_and_empty():
    """Every wgmma reads a tile whose two boxes were issued and whose full barrier was waited on; the expected
    transaction count is the bytes the two boxes write; a stage is refilled only after the consumers' release
    of the tile before in it, waiting on the empty barrier's right parity (by the listing's formula)."""
    for values in CASES:
        p = WgmmaParams(**values)
        trace = Trace(KERNEL, p)
        issued, landed, released, stage_bytes = {}, set(), set(), {}
        for step in (trace[i] for i in range(trace.steps_per_block)):
            if step.lines in (k13_wgmma.TMA_A, k13_wgmma.TMA_B):
                issued[step.tile] = issued.get(step.tile, 0) + 1
                stage_bytes[step.tile] = stage_bytes.get(step.tile, 0) + step.delta.tma_bytes
            elif step.lines == k13_wgmma.WAIT_FULL:
                assert issued.get(step.tile) == 2 and step.delta.mbarrier_waits == 128 * p.consumers
                landed.add(step.tile)
            elif step.lines == k13_wgmma.WGMMA:
                assert step.tile in landed
            elif step.lines == k13_wgmma.RELEASE:
                released.add(step.tile)
            elif step.lines == k13_wgmma.WAIT_EMPTY:
                assert step.tile - p.stages in released and step.delta.mbarrier_waits == 1
        assert set(stage_bytes.values()) == {p.stage_bytes}, values
        assert released == set(range(p.tiles))


@pytest.mark.parametrize("values", [CASES[0], CASES[3]])
def test_highlighted_lines(values):
    p = WgmmaParams(**values)
    source, words = KERNEL.source(p), narration("wgmma")
    assert not any("@@" in line for line in source)
    expected = {
        k13_wgmma.TMA_A: "tmaLoad(&As[",
        k13_wgmma.TMA_B: "tmaLoad(&Bs[",
        k13_wgmma.EXPECT: f"expectBytes(&full[stage], {p.stage_bytes})",
        k13_wgmma.WAIT_FULL: "waitPhase(&full[stage]",
        k13_wgmma.WAIT_EMPTY: "waitPhase(&empty[stage]",
        k13_wgmma.WGMMA: "wgmma(d[mi], desc(&As[",
        k13_wgmma.RELEASE: "arrive(&empty[stage])",
        k13_wgmma.STORE: "make_float2",
    }
    assert f"m64n{p.BN}k8.f32.tf32.tf32" in "".join(source)
    for step in Trace(KERNEL, p):
        if step.lines in expected:
            assert expected[step.lines] in source[step.line - 1], source[step.line - 1]
        KERNEL.focus(p, step, 0)
        for thread in (0, 1, p.threads - 1):
            assert words.narrate(step, p, thread).endswith(".")
        assert words.phase_detail(step, p).endswith(".")


@pytest.mark.parametrize("BN", [8, 24, 128, 256])
def test_the_accumulator_map_is_the_isas(BN):
    """wgmma's D fragment (.f32), as the PTX ISA's figure gives it per thread of the warpgroup, written out here
    from its words: warp w, lane l hold d[i] at row 16w + l/4 (+8 for i mod 4 in 2, 3), column 8·(i/4) +
    2·(l mod 4) + i mod 2."""
    found = d_map(BN)
    for thread in range(128):
        warp, lane = divmod(thread, 32)
        for i in range(BN // 2):
            row = 16 * warp + lane // 4 + (8 if i % 4 >= 2 else 0)
            col = 8 * (i // 4) + 2 * (lane % 4) + i % 2
            assert tuple(found[thread, i]) == (row, col), (thread, i)


@pytest.mark.parametrize("values", [CASES[3], CASES[4], CASES[6]])
def test_owner_and_owned_cells_agree(values):
    p = WgmmaParams(**values)
    for thread in range(p.threads):
        for bx, by in [(0, 0), (KERNEL.grid(p)[0] - 1, KERNEL.grid(p)[1] - 1)]:
            for row, col in KERNEL.owned_cells(p, (bx, by), thread):
                assert KERNEL.owner(p, row, col) == ((bx, by), thread)
    assert KERNEL.owned_cells(p, (0, 0), 5) == ()  # a producer thread holds no accumulator


BASE = {k: str(v) for k, v in list(WgmmaParams.PRESETS.values())[1].items()}


@pytest.mark.parametrize(
    "raw,param,fragment",
    [
        ({"device": "a100"}, "device", "wgmma.mma_async needs 9.0 (sm_90a, Hopper only"),
        ({"device": "rtx4090"}, "device", "compute capability 8.9"),
        ({"BK": "12"}, "BK", "BK=12 is not a multiple of 8, the k of wgmma.m64nNk8"),
        ({"BK": "16"}, "BK", "BK=16: this kernel uses the 128-byte swizzle"),
        ({"BK": "16"}, "BK", "would need the 64- or 32-byte swizzle mode"),
        ({"BK": "64"}, "BK", "may not pass the swizzle's 128 bytes"),
        ({"BN": "100"}, "BN", "BN=100 is not a wgmma N: wgmma.m64nNk8 takes N a multiple of 8 up to 256"),
        ({"BN": "264"}, "BN", "N a multiple of 8 up to 256"),
        ({"BM": "96"}, "BM", "BM=96 is not a multiple of 64·consumers = 128"),
        ({"BM": "320", "consumers": "1"}, "BM", "a TMA box is at most 256 rows"),
        ({"consumers": "3", "BM": "192", "stages": "6"}, "stages", "bytes of shared memory per block; the NVIDIA H100"),
        ({"stages": "8"}, "stages", "allows 232,448 (dynamic, opt-in)"),
        ({"stages": "9"}, "stages", "stages must be at most 8"),
        ({"consumers": "5"}, "consumers", "consumers must be at most 4"),
        ({"BN": "256", "consumers": "1"}, "BN", "accumulators"),
        ({"K": "6"}, "K", "K=6 is not a multiple of 4: a tensor map's row stride"),
        ({"N": "7"}, "N", "N=7 is odd"),
    ],
)
def test_invalid_values_name_the_parameter_and_the_rule(raw, param, fragment):
    with pytest.raises(ParamError) as caught:
        WgmmaParams.parse({**BASE, **raw})
    assert caught.value.param == param
    assert fragment in caught.value.message, caught.value.message
    assert caught.value.message.startswith(param)


def test_cli_count_trace_and_refusals():
    values = CASES[1]
    flags = [item for key, value in values.items() for item in (f"--{key}", str(value))]
    out = run_cli("count", "--kernel", "wgmma", *flags, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["c_matches"] is True
    assert {k: data[k] for k in Counters().as_dict()} == bruteforce_wgmma.wgmma(**values)
    text = run_cli("trace", "--kernel", "wgmma", *flags, "--thread", "128", "--limit", "30")
    assert text.returncode == 0 and "wgmma(d[mi], desc(" in text.stdout and "consumer" in text.stdout, text.stderr
    for bad_flags, word in (
        (["--device", "a100"], "sm_90a"),
        (["--BK", "16"], "128-byte swizzle"),
        (["--stages", "8", "--BM", "256", "--consumers", "2"], "stages"),
    ):
        bad = run_cli("count", "--kernel", "wgmma", *bad_flags)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and word in bad.stderr, bad.stderr
    sass = run_cli("sass", "--kernel", "wgmma")  # pysim's instruction model does not count TMA or wgmma
    assert sass.returncode == 2 and sass.stderr.count("\n") == 1 and "sm_90a" in sass.stderr, sass.stderr


# The block's register pool, worked by hand: threads × the registers a thread launches with under
# __launch_bounds__(threads, 1) (65,536 / threads, down to a multiple of 8, at most 248 below the 255 limit).
# setmaxnreg.inc waits until its registers are free in that pool (PTX ISA, "setmaxnreg"): the producer's 40 and
# every consumer's request must fit, or the kernel hangs (4 consumers asked 40·128 + 112·512 = 62,464 of 61,440).
POOLS = {1: 248 * 256, 2: 168 * 384, 3: 128 * 512, 4: 96 * 640}


@pytest.mark.parametrize("consumers", sorted(POOLS))
def test_setmaxnreg_requests_fit_the_blocks_register_pool(consumers):
    p = WgmmaParams.parse({"BM": str(64 * consumers), "BN": "64", "consumers": str(consumers)})
    asked = 40 * 128 + p.consumer_registers * 128 * consumers
    assert asked <= POOLS[consumers], (consumers, p.consumer_registers, asked)
    assert p.consumer_registers % 8 == 0 and 24 <= p.consumer_registers <= 256
