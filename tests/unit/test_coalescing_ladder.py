"""Issue 14 in CPython: the naive kernel's row map, the warp-by-warp records, the transpose's pads,
the kernel ladder, and their CLI, each against brute force or the traces."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from stepsums import summed

from bruteforce import conflict_cycles, naive, naive_requests, sectors_of, warps
from pysim.core import lanes
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, ParamError, TransposeParams
from pysim.kernels import KERNELS, k01_naive, k03_tilelab_transpose
from pysim.lessons.ladder import (
    COLUMNS,
    SIBOEHM_NUMBER,
    UNIT_NAMES,
    LadderParams,
    Rung,
    _estimate_cell,
    binding_bound,
    cells,
    ladder,
    launch_failure,
    limiter_name,
    measured_seconds,
    measurement,
    siboehm_ladder,
    speed,
)
from pysim.lessons.roofline import roofline
from pysim.lessons.speed_of_light import BARS, speed_of_light, why_faster
from pysim.speed import estimate, format_attribute

ROOT = Path(__file__).resolve().parents[2]
SIZES = [(4, 4, 8, 2), (5, 7, 3, 2), (33, 9, 10, 4), (20, 40, 3, 16), (32, 32, 8, 32), (40, 12, 5, 8)]


@pytest.mark.parametrize("M,N,K,T", SIZES)
@pytest.mark.parametrize("map_", ["col", "row"])
def test_naive_maps_match_brute_force(M, N, K, T, map_):
    p = NaiveParams(M=M, N=N, K=K, T=T, map=map_)
    expected = naive(M, N, K, T, map_)
    kernel = KERNELS["naive"]
    trace = Trace(kernel, p)
    for counters in (kernel.counters(p), summed(trace)):
        got = counters.as_dict()
        assert {name: got[name] for name in expected} == expected
    assert trace.c_matches()
    assert k01_naive.load_instructions(p) == naive_requests(M, N, K, T, map_)


@pytest.mark.parametrize("M,N,K,T", [(32, 32, 8, 32), (16, 16, 8, 8), (64, 64, 64, 16), (100, 60, 7, 32)])
def test_row_map_touches_more_sectors_per_request(M, N, K, T):
    col = k01_naive.coalescing(NaiveParams(M=M, N=N, K=K, T=T), "col")
    row = k01_naive.coalescing(NaiveParams(M=M, N=N, K=K, T=T), "row")
    assert row.per_request > col.per_request
    assert col.sectors == naive(M, N, K, T, "col")["global_sectors"]
    assert row.sectors == naive(M, N, K, T, "row")["global_sectors"]


def test_sectors_per_request_at_32():
    p = NaiveParams(M=32, N=32, K=8, T=32)
    assert k01_naive.coalescing(p, "col").per_request_text == "2.5"
    assert k01_naive.coalescing(p, "row").per_request_text == "16.5"


def test_owner_inverts_the_mapping():
    for map_ in ("col", "row"):
        p = NaiveParams(M=7, N=9, K=2, T=4, map=map_)
        for row in range(p.M):
            for col in range(p.N):
                block, thread = k01_naive.owner(p, row, col)
                assert k01_naive.element(p, block, thread) == (row, col)


def test_listing_marks_stay_on_their_statements_for_both_maps():
    for map_ in ("col", "row"):
        p = NaiveParams(map=map_)
        source = k01_naive.source(p)
        for step in Trace(KERNELS["naive"], p):
            assert any(word in source[step.line - 1] for word in ("row", "sum +=", "C[row"))
        assert ("threadIdx.x" in source[2]) == (map_ == "row")


@pytest.mark.parametrize("map_", ["col", "row"])
def test_warp_sectors_match_brute_force_per_instruction(map_):
    p = NaiveParams(M=16, N=16, K=8, T=8, map=map_)
    trace = Trace(KERNELS["naive"], p)
    for step in trace:
        for access in step.accesses:
            if access.op != "load":
                continue
            for warp in range(p.T * p.T // 32):
                found = lanes.warp_sectors(access, warp)
                words = [lane.word for lane in found.lanes if lane.active]
                assert len(found.sectors) == sectors_of(words)
                assert found.bytes_used == 4 * len(set(words))
                assert found.bytes_fetched == 32 * sectors_of(words)


def test_transpose_banks_per_warp_and_pads():
    for pad, degree in ((0, 32), (1, 1), (2, 2)):
        p = TransposeParams(n=32, TILE=32, pad=pad)
        read = Trace(KERNELS["transpose"], p)[3].access("tile")
        for warp in range(32):
            found = lanes.warp_banks(read, warp)
            words = [lane.word for lane in found.lanes if lane.active]
            assert found.degree == degree
            assert found.extra_cycles == conflict_cycles(words)
        choice = k03_tilelab_transpose.pad_choices(p)[pad]
        assert (choice.read_degree, choice.write_degree) == (degree, 1)
    assert [c.run_cycles for c in k03_tilelab_transpose.pad_choices(TransposeParams(n=64, TILE=32))] == [3968, 0, 128]


def test_transpose_address_key_is_T():
    p = TransposeParams.parse({"n": "40", "T": "16", "pad": "2"})
    assert p.TILE == 16 and p.as_strings() == {"n": "40", "T": "16", "pad": "2", "device": "a100"}
    assert TransposeParams.parse(p.as_strings()) == p
    assert TransposeParams.parse({"TILE": "8"}).TILE == 8
    with pytest.raises(ParamError) as caught:
        TransposeParams.parse({"T": "33"})
    assert caught.value.param == "TILE"


def test_presets_are_valid():
    for values in NaiveParams.PRESETS.values():
        NaiveParams(**values)
    for values in TransposeParams.PRESETS.values():
        TransposeParams(**values)


@pytest.mark.parametrize("N,T,yours", [(8, 4, (8, 8, 4, 2, 2)), (12, 4, (8, 4, 2, 2, 1)), (20, 8, (16, 16, 4, 4, 4))])
def test_ladder_closed_forms_match_the_traces(N, T, yours):
    BM, BN, BK, TM, TN = yours
    p = LadderParams(N=N, T=T, BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    rungs = ladder(p)
    assert [r.key for r in rungs] == ["naive-col", "naive-row", "smem", "register-production", "register-yours"]
    for rung in rungs:
        trace = Trace(KERNELS[rung.kernel], rung.params)
        assert summed(trace) == rung.counters, rung.key
        assert trace.c_matches()


def test_ladder_rows_at_4096_on_two_devices():
    for device in ("a100", "t4"):
        rungs = {r.key: r for r in ladder(LadderParams(N=4096, device=device))}
        naive_col, naive_row = rungs["naive-col"], rungs["naive-row"]
        assert naive_col.counters.global_loads == naive_row.counters.global_loads == 2 * 4096**3
        assert naive_row.counters.global_sectors > naive_col.counters.global_sectors
        assert naive_row.sector_bytes > naive_col.sector_bytes
        production = rungs["register-production"].params
        assert (production.BM, production.BN, production.BK, production.TM, production.TN) == (128, 128, 8, 8, 8)
        assert rungs["register-production"].counters == KERNELS["register"].counters(production)
        smem = rungs["smem"]
        assert smem.counters.global_loads == 2 * 4096**3 // 32
        for rung in rungs.values():
            assert rung.bound.latency_seconds <= rung.bound.seconds <= rung.bound.no_reuse.seconds
            shown = cells(rung)
            assert shown["global_loads"].value == str(rung.counters.global_loads)
        chart = roofline(LadderParams(N=4096, device=device), tuple(rungs.values()))
        assert [pt.key for pt in chart.points] == list(rungs) and all(pt.intensity > 0 for pt in chart.points)


def test_ladder_reaches_16384_quickly():
    rungs = ladder(LadderParams(N=16384, device="h200"))
    assert all(r.runs for r in rungs)
    assert rungs[0].counters.fma == 16384**3


def test_ladder_rejects_a_bad_shape_naming_the_parameter():
    with pytest.raises(ParamError) as caught:
        LadderParams.parse({"BM": "64", "TM": "3"})
    assert caught.value.param == "TM"
    with pytest.raises(ParamError) as caught:
        LadderParams.parse({"T": "64"})
    assert caught.value.param == "T"


def test_ladder_commands_print_the_same_counters():
    for rung in ladder(LadderParams(N=64, T=8, device="rtxa6000")):
        done = subprocess.run(
            [sys.executable, "-m", "pysim", "count", *rung.cli, "--json"], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        printed = json.loads(done.stdout)
        assert {k: printed[k] for k in rung.counters.as_dict()} == rung.counters.as_dict()
        assert printed["c_matches"] is True


def test_cli_map_and_transpose():
    def count(*args):
        done = subprocess.run([sys.executable, "-m", "pysim", "count", *args], cwd=ROOT, capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    code, out, _ = count(
        "--kernel", "naive", "--M", "32", "--N", "32", "--K", "8", "--tile", "32", "--map", "row", "--json"
    )
    assert code == 0 and json.loads(out)["global_sectors"] == naive(32, 32, 8, 32, "row")["global_sectors"]
    code, out, _ = count("--kernel", "naive", "--map", "col", "--json")
    assert code == 0 and json.loads(out)["params"]["map"] == "col"
    code, _, err = count("--kernel", "naive", "--map", "diagonal")
    assert code == 2 and err.strip() == "error: map must be one of col, row (got 'diagonal')"
    code, _, err = count("--kernel", "smem", "--map", "row")
    assert code == 2 and "--map does not apply to the smem kernel" in err
    code, out, _ = count("--kernel", "transpose", "--n", "32", "--tile", "32", "--pad", "0", "--json")
    found = json.loads(out)
    assert code == 0 and found["bank_extra_cycles"] == 31 * 32 and found["c_matches"] is True


def test_every_device_preset_is_offered_by_name():
    from pysim.hardware.devices import DEVICES

    assert {"a100", "h100", "h200", "t4", "rtx4090", "rtxa6000"} <= set(DEVICES)
    for device in DEVICES.values():
        assert device.name.startswith("NVIDIA")
        assert all(fact.source.startswith("https://") for fact in device.facts())


def test_brute_force_helpers_agree_on_a_tiny_case():
    assert warps(range(40))[1] == list(range(32, 40))
    assert naive_requests(1, 1, 3, 1) == 6


def test_ladder_columns_are_estimate_bound_measured_not_the_old_time_bounds():
    keys = [key for key, _ in COLUMNS]
    assert "time" not in keys and "sector_time" not in keys
    assert keys[:3] == ["estimate", "bound", "measured"]  # read first: how fast, what no run beats, what ran
    assert all("reuse decides" not in title for _, title in COLUMNS)


def test_ladder_estimate_bound_and_measured_on_the_a6000():
    rungs = siboehm_ladder(LadderParams(N=4096, device="rtxa6000"))
    his = [1, 2, 3, 4, 5, 6, 10, None, None, None, None]  # rungs 11, 12, 13 and yours are not his
    assert [SIBOEHM_NUMBER.get(r.key) for r in rungs] == his
    for rung in rungs:
        if rung.kernel == "mma":  # no TF32 figure for the A6000 was found: no estimate, and the cell says why
            assert speed(rung) is None and cells(rung)["estimate"].text.startswith("No estimate: device: no dense TF32")
            continue
        if rung.kernel == "wgmma":  # Hopper only: the A6000 (sm_86) cannot run it (its row says why)
            assert speed(rung) is None
            continue
        report = estimate(rung.kernel, rung.params, "rtxa6000")
        shown = cells(rung)
        assert shown["estimate"].value == format_attribute(report.estimate_s)
        assert limiter_name(report) in shown["estimate"].text
        seconds, name = binding_bound(report)
        assert seconds == max(report.bounds.fp32_s, report.bounds.dram_s, report.bounds.latency_s)
        assert shown["bound"].value == format_attribute(seconds) and "FP32 peak" in shown["bound"].text
        assert seconds <= report.estimate_s
        found = measurement(rung)
        if rung.key in ("pipelined", "register-yours"):  # not siboehm's kernels: nothing of his measured
            assert found is None and shown["measured"] == cells(rung)["measured"] and shown["measured"].text == ""
            continue
        gflops, note = found
        assert (
            note.endswith(
                "measured on RTX A6000, N=4096; calibration; source: github.com/siboehm/SGEMM_CUDA at 60cba6f"
            )
            and "another" not in note
        )
        assert shown["measured"].value == repr(gflops)
        assert seconds <= measured_seconds(gflops)  # a true bound: siboehm's runs are not faster


def test_measurement_says_when_the_card_size_or_tile_differ():
    rungs = {r.key: r for r in siboehm_ladder(LadderParams(N=1000, T=16, device="t4"))}
    _, note = measurement(rungs["smem"])
    assert "on another card" in note and "at another size" in note and "another tile" in note
    _, note = measurement(rungs["warptile"])
    assert "another tile" not in note


def test_speed_of_light_bars_mark_the_limiter():
    for rung in siboehm_ladder(LadderParams(N=4096, device="a100")):  # every rung priced, the tensor pipe too
        sol = speed_of_light(rung)
        report = speed(rung)
        if report is None:  # only the Hopper rung cannot run on the A100 (wgmma needs sm_90a): no bars
            assert rung.kernel == "wgmma" and sol is None
            continue
        # One bar a unit the report charges: the tensor pipe's only for the tensor-core rung.
        assert [b.unit for b in sol.bars] == [u for u in BARS if all(part in report.units for part in BARS[u])]
        assert [b.share for b in sol.bars] == [sum(report.units[u].share for u in BARS[b.unit]) for b in sol.bars]
        assert all(0 <= b.share <= 1 for b in sol.bars)
        marked = [b for b in sol.bars if b.limiter]
        assert len(marked) == 1 and marked[0].unit == report.limiter == sol.limiter
        assert marked[0].label.endswith("◀ limiter")
        assert f"Limiter: {limiter_name(report)}" in sol.description


def test_a_rung_the_speed_model_refuses_has_no_bars_and_says_why():
    refused = Rung("t", "t", "", "transpose", TransposeParams())  # no speed profile: estimate raises ParamError
    assert speed(refused) is None and speed_of_light(refused) is None
    assert launch_failure(refused).startswith("kernel must be one of")
    assert _estimate_cell(refused).text == f"Cannot launch: {launch_failure(refused)}"
    assert why_faster((refused, refused)) == ()


def test_why_faster_one_sentence_per_pair_from_the_reports():
    rungs = siboehm_ladder(LadderParams(N=4096, device="rtxa6000"))
    steps = why_faster(rungs)
    priced = [r.key for r in rungs if speed(r) is not None]  # all but the tensor-core rung: no TF32 figure here
    assert [(s.low, s.high) for s in steps] == list(zip(priced, priced[1:])) and "mma" not in priced
    by_high = {s.high: s.text for s in steps}
    three, four = speed(rungs[2]), speed(rungs[3])
    text = by_high["blocktile1d"]
    assert text.startswith("kernel 3 → kernel 4")
    assert f"The limiter moves from {UNIT_NAMES[three.limiter]} to {UNIT_NAMES[four.limiter]}" in text
    # Kernel 4 runs two blocks an SM (its merged As loads hold 4·TM registers): from it to kernel 5 the biggest
    # saving is the wait for global memory; from kernel 5 to 6 (LDS.128 reads) it is L1TEX's.
    assert "The biggest saving is time spent waiting for global memory" in by_high["register-production"]
    assert "Shared-memory wavefronts per FMA fall" in by_high["vectorized"]
    assert by_high["pipelined"].startswith("kernel 10 → kernel 11")
    assert by_high["register-yours"].startswith("kernel 11 → your register tiling")


@pytest.mark.parametrize(
    "N,T,device",
    [(4096, 32, "rtxa6000"), (4096, 16, "rtxa6000"), (4096, 32, "t4"), (1000, 32, "h100"), (4096, 32, "a100")],
)
def test_roofline_points_are_the_models_intensity_and_estimate_on_or_below_the_roof(N, T, device):
    from pysim.hardware.devices import DEVICES
    from pysim.hardware.measurements import runs_on
    from pysim.lessons.ladder import format_flops, format_intensity

    d, p = DEVICES[device], LadderParams(N=N, T=T, device=device)
    refused = Rung("t", "t", "", "transpose", TransposeParams())  # cannot launch: no point, but it keeps its number
    rungs = (refused, *siboehm_ladder(p))
    chart = roofline(p, rungs)
    # Every rung the model prices has its point, numbered by its row (the T4 cannot run cp.async: no point for
    # rungs 11 and 12; the A6000 has no TF32 figure: none for 12).
    running = [(number, r) for number, r in enumerate(rungs[1:], 2) if speed(r) is not None]
    assert [pt.key for pt in chart.points] == [r.key for _, r in running]
    assert (device == "t4") == ("pipelined" not in {pt.key for pt in chart.points})
    assert (d.tf32_tensor is not None) == ("mma" in {pt.key for pt in chart.points})
    runs = runs_on(device, N)  # published runs on this card at this N (the A6000's is the calibration run)
    for (number, rung), pt in zip(running, chart.points):
        report = estimate(rung.kernel, rung.params, device)
        flops = 2 * N * N * N
        model_dram_bytes = report.units["dram"].seconds * d.dram_bandwidth.value * 1e9
        assert pt.number == number
        assert pt.intensity == pytest.approx(flops / model_dram_bytes, rel=1e-12)
        assert pt.estimate == pytest.approx(report.gflops * 1e9, rel=1e-12)
        peak = d.tf32_tensor.value if rung.kernel in ("mma", "wgmma") else d.fp32_peak.value  # tensor rungs' roof
        roof = min(peak * 1e12, d.dram_bandwidth.value * 1e9 * pt.intensity)
        assert pt.estimate <= roof * (1 + 1e-12), rung.key  # on or below the roof
        # The run on this card and N that has a row for this kernel (a table may leave some kernels out).
        held = next((run for run in runs if run.of(SIBOEHM_NUMBER.get(rung.key, -1)) is not None), None)
        applies = held is not None and (T == 32 or rung.key not in ("naive-row", "naive-col", "smem"))
        if held is not None and applies:
            assert pt.measured == held.of(SIBOEHM_NUMBER[rung.key]) * 1e9
            assert pt.calibration == held.calibration and held.role in pt.describe()
        else:
            assert pt.measured is None, rung.key
        text = pt.describe()
        assert format_intensity(pt.intensity) in text and f"estimate {format_flops(pt.estimate)}" in text
        assert ("measured" in text) == applies
