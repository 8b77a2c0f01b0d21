"""Time bounds against closed forms worked out by hand, their invariants, and siboehm's measurements
(a bound no measured kernel beats; the no-reuse figure, which one does, is never called a bound)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysim.hardware.devices import DEVICES
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.kernels import KERNELS
from pysim.lessons.ladder import SIBOEHM_NUMBER, LadderParams, measured_seconds, report_for, siboehm_ladder
from pysim.speed import (
    CAVEAT,
    COMPUTE,
    LATENCY,
    MEMORY,
    format_bytes,
    format_intensity,
    format_seconds,
    latency_floor,
    measured,
    time_bound,
    time_bound_for,
)
from pysim.speed.measured import SIZE
from timetext import durations

A100 = DEVICES["a100"]


def test_sgemm_4096_on_a100_by_hand():
    # Naive SGEMM, N = 4096: 2N³ FLOPs; A, B and C once = 3·N² floats = 12·N² bytes.
    N = 4096
    bound = time_bound(A100, fma=N**3, global_loads=2 * N**3, global_stores=N**2, M=N, N=N, K=N)
    assert bound.flops == 137_438_953_472
    assert bound.cache_perfect.dram_bytes == 201_326_592
    # 1.374e11 FLOP / 19.5e12 FLOP/s = 7.048 ms;  2.013e8 B / 1.555e12 B/s = 0.129 ms: compute wins.
    assert bound.cache_perfect.compute_seconds == pytest.approx(7.0482e-3, rel=1e-4)
    assert bound.cache_perfect.memory_seconds == pytest.approx(1.2947e-4, rel=1e-4)
    assert bound.cache_perfect.bound_by == COMPUTE
    assert bound.cache_perfect.seconds == bound.cache_perfect.compute_seconds
    assert bound.cache_perfect.intensity == pytest.approx(682.67, rel=1e-4)  # 2N³ / 12N² = N/6
    # No reuse: 4·(2N³ + N²) bytes = 549.8 GB / 1.555 TB/s = 353.6 ms: memory wins, at 0.25 FLOP/byte.
    assert bound.no_reuse.dram_bytes == 4 * (2 * N**3 + N**2)
    assert bound.no_reuse.seconds == pytest.approx(0.35357, rel=1e-4)
    assert bound.no_reuse.bound_by == MEMORY
    assert bound.no_reuse.intensity == pytest.approx(0.25, rel=1e-3)
    assert bound.ridge_point == pytest.approx(12.54, rel=1e-3)
    # The bound is the cache-perfect roofline (the latency floor, 206 ns, is far below it).
    assert bound.seconds == bound.cache_perfect.seconds and bound.bound_by == COMPUTE
    assert bound.latency_seconds == pytest.approx(290 / 1410e6)


def test_small_problem_is_set_by_the_latency_floor():
    # M = N = K = 8: 1024 FLOPs over 768 bytes = 1.33 FLOP/byte, far below the A100's 12.5, so DRAM beats the
    # FP32 peak; but 768 B take 0.49 ns and one global round trip 290 cycles at 1,410 MHz = 206 ns.
    bound = time_bound(A100, fma=512, global_loads=1024, global_stores=64, M=8, N=8, K=8)
    assert bound.cache_perfect.dram_bytes == 768
    assert bound.cache_perfect.bound_by == MEMORY
    assert bound.cache_perfect.seconds == pytest.approx(768 / 1555e9)
    assert bound.bound_by == LATENCY and bound.seconds == bound.latency_seconds == pytest.approx(290 / 1410e6)
    assert bound.summary() == (
        "Floor on the NVIDIA A100 40GB (SXM4), an estimate: 206 ns, set by one global-memory round trip."
    )


def test_a_memory_set_bound_names_its_bytes():
    # 1e6 FLOPs but 40 MB of A, B and C: 25.7 µs of DRAM against 51 ns of FP32 and 206 ns of latency.
    bound = time_bound(A100, fma=5 * 10**5, global_loads=10**7, global_stores=10**6, M=1000, N=1000, K=2000)
    assert bound.bound_by == MEMORY and bound.seconds == bound.cache_perfect.memory_seconds
    assert "set by compulsory DRAM traffic (20 MB: A and B read once, C written once)" in bound.summary()
    assert "below the ridge point of 12.5 FLOP/byte" in bound.regime()


def test_the_transposes_compulsory_traffic_is_what_it_moves():
    # The transpose loads and stores each of its n² words once, fewer than an SGEMM's A, B and C.
    params = TransposeParams(n=4096, TILE=32)
    counters = KERNELS["transpose"].counters(params)
    bound = time_bound_for(A100, counters, params.M, params.N, params.K)
    assert bound.cache_perfect.dram_bytes == 8 * 4096**2 == bound.no_reuse.dram_bytes
    assert bound.bound_by == MEMORY and "every word it loads or stores moved once" in bound.summary()


def test_kernel_counters_feed_the_bound():
    N = 1024
    for kernel, params in (
        ("naive", NaiveParams(M=N, N=N, K=N, T=16)),
        ("smem", SmemParams(M=N, N=N, K=N, T=16)),
        ("register", RegisterParams(M=N, N=N, K=N, BM=64, BN=64, BK=8, TM=8, TN=8)),
    ):
        counters = KERNELS[kernel].counters(params)
        bound = time_bound_for(A100, counters, N, N, N)
        assert bound.flops == 2 * N**3
        assert bound.no_reuse.dram_bytes == 4 * (counters.global_loads + counters.global_stores)
        assert bound.cache_perfect.dram_bytes == 12 * N**2  # the same for every kernel
    # Tiling by 16 cuts the no-reuse traffic (and its bound) by about 16×.
    naive = time_bound_for(A100, KERNELS["naive"].counters(NaiveParams(M=N, N=N, K=N, T=16)), N, N, N)
    tiled = time_bound_for(A100, KERNELS["smem"].counters(SmemParams(M=N, N=N, K=N, T=16)), N, N, N)
    assert naive.no_reuse.seconds / tiled.no_reuse.seconds == pytest.approx(16, rel=0.01)


@pytest.mark.parametrize("key", DEVICES)
def test_bound_is_the_larger_roof_on_every_device(key):
    d = DEVICES[key]
    bound = time_bound(d, fma=10**9, global_loads=3 * 10**8, global_stores=10**6, M=1000, N=1000, K=1000)
    for estimate in (bound.cache_perfect, bound.no_reuse):
        assert estimate.seconds == max(estimate.compute_seconds, estimate.memory_seconds)
        assert estimate.bound_by == (COMPUTE if estimate.intensity >= bound.ridge_point else MEMORY)
        assert estimate.compute_seconds == pytest.approx(2e9 / (d.fp32_peak.value * 1e12))
        assert estimate.memory_seconds == pytest.approx(estimate.dram_bytes / (d.dram_bandwidth.value * 1e9))


def test_h100_and_h200_bounds():
    N = 2048
    naive = dict(fma=N**3, global_loads=2 * N**3, global_stores=N**2, M=N, N=N, K=N)
    h100, h200 = time_bound(DEVICES["h100"], **naive), time_bound(DEVICES["h200"], **naive)
    assert h100.no_reuse.seconds / h200.no_reuse.seconds == pytest.approx(4800 / 3350)
    # Cache-perfect this is compute-bound, and both SXM parts have the same FP32 peak.
    assert h100.cache_perfect.seconds == h200.cache_perfect.seconds
    assert h100.describe() != h200.describe()


@settings(max_examples=200, deadline=None)
@given(
    size=st.tuples(*[st.integers(1, 16384)] * 3),
    fma=st.integers(0, 10**13),
    loads=st.integers(0, 10**13),
    extra=st.integers(1, 10**12),
    stores=st.integers(0, 10**9),
    key=st.sampled_from(list(DEVICES)),
)
def test_more_loads_never_lower_the_bound(size, fma, loads, extra, stores, key):
    M, N, K = size
    d = DEVICES[key]
    fewer = time_bound(d, fma, loads, stores, M, N, K)
    more = time_bound(d, fma, loads + extra, stores, M, N, K)
    assert more.no_reuse.seconds >= fewer.no_reuse.seconds
    assert more.no_reuse.dram_bytes == fewer.no_reuse.dram_bytes + 4 * extra
    assert more.seconds >= fewer.seconds >= fewer.latency_seconds == latency_floor(d)
    if fewer.no_reuse.dram_bytes >= 4 * (M * K + K * N + M * N):  # an SGEMM's counts: A, B and C once
        assert more.cache_perfect == fewer.cache_perfect  # loads do not enter


@pytest.mark.parametrize("n", [1, 16384])
def test_edge_sizes_exact(n):
    bound = time_bound(A100, fma=n**3, global_loads=2 * n**3, global_stores=n**2, M=n, N=n, K=n)
    assert bound.flops == 2 * n**3 and isinstance(bound.flops, int)
    assert bound.cache_perfect.dram_bytes == 12 * n * n
    assert bound.no_reuse.dram_bytes == 8 * n**3 + 4 * n**2
    assert bound.latency_seconds <= bound.seconds
    # 1³: the round trip, an estimate (its latency is assumed); 16384³: the FP32 peak at the rated clock.
    assert bound.describe().startswith("Floor on the NVIDIA A100" if n == 1 else "Bound on the NVIDIA A100")


def test_edge_size_16384_by_hand():
    n = 16384
    bound = time_bound(A100, fma=n**3, global_loads=2 * n**3, global_stores=n**2, M=n, N=n, K=n)
    assert bound.cache_perfect.dram_bytes == 3_221_225_472
    assert bound.flops == 8_796_093_022_208
    assert bound.cache_perfect.seconds == pytest.approx(0.45108, rel=1e-4)  # 8.796e12 / 19.5e12


def test_numpy_counts_are_accepted_and_bad_counts_refused():
    np = pytest.importorskip("numpy")
    bound = time_bound(A100, np.int64(8), np.int64(16), np.int64(4), 2, 2, 2)
    assert type(bound.fma) is int and bound.flops == 16
    with pytest.raises(ValueError):
        time_bound(A100, -1, 0, 0, 1, 1, 1)
    with pytest.raises(ValueError):
        time_bound(A100, 1, 1, 1, 0, 1, 1)
    with pytest.raises(TypeError):
        time_bound(A100, 1.5, 1, 1, 1, 1, 1)


def test_no_traffic_at_all():
    bound = time_bound(A100, fma=8, global_loads=0, global_stores=0, M=2, N=2, K=2)
    assert bound.no_reuse.intensity == float("inf") and bound.no_reuse.bound_by == COMPUTE
    assert format_intensity(bound.no_reuse.intensity) == "∞ FLOP/byte"


def test_sentences():
    N = 4096
    bound = time_bound(A100, fma=N**3, global_loads=2 * N**3, global_stores=N**2, M=N, N=N, K=N)
    assert bound.summary() == (
        "Bound on the NVIDIA A100 40GB (SXM4) at its rated 1,410 MHz boost clock: 7.05 ms, set by the FP32 peak; "
        "no run at that clock is faster."
    )
    assert bound.regime().startswith("Cache-perfect, the run does 683 FLOP/byte, at or above the ridge point")
    assert "12.5 FLOP/byte" in bound.regime()
    assert bound.describe().endswith(CAVEAT) and "not a prediction" in CAVEAT
    # The no-reuse figure is an estimate of traffic, in bytes: never a time, never called a bound.
    note = bound.no_reuse_note()
    assert "550 GB" in note and "estimate of traffic" in note and "bound" not in note and not durations(note)
    assert "between" not in bound.describe() and "354 ms" not in bound.describe()


# siboehm's kernels this ladder reproduces at his size on his card, with the measurement each is held to.
RTXA6000_4096 = LadderParams(N=SIZE, T=32, device="rtxa6000")


def test_no_printed_bound_is_beaten_by_a_measured_kernel():
    """Every time the bound's text prints is at most siboehm's measured time for that kernel, and at most cuBLAS's;
    the no-reuse figure, which the old text called a bound, is beaten by his coalesced naive kernel."""
    cublas = measured_seconds(measured(0).gflops)
    checked = 0
    for rung in siboehm_ladder(RTXA6000_4096):
        number = SIBOEHM_NUMBER.get(rung.key)
        if number is None or not rung.runs:
            continue
        found = measured(number)
        assert found is not None
        seconds = measured_seconds(found.gflops)
        _, bound = rung.measured()
        printed = durations(bound.describe())
        assert printed and max(printed) <= min(seconds, cublas), rung.key
        assert bound.seconds <= min(seconds, cublas)
        report = report_for(rung.kernel, rung.params)
        assert not isinstance(report, str) and report.estimate_s >= bound.seconds
        checked += 1
        if rung.key == "naive-col":  # kernel 2: 69.2 ms measured against 716 ms with no reuse
            assert bound.no_reuse.seconds > seconds
    assert checked >= 5


SMALL_AND_LARGE = [
    (4, 4, 8, 2),
    (6, 6, 9, 3),
    (7, 5, 11, 4),
    (1, 1, 1, 1),
    (1000, 1000, 1000, 16),
    (2048, 2048, 2048, 8),
]


@pytest.mark.parametrize("key", DEVICES)
@pytest.mark.parametrize("M,N,K,T", SMALL_AND_LARGE)
def test_the_estimate_is_never_below_the_bound_nor_the_latency_floor(key, M, N, K, T):
    for kernel, params in (
        ("naive", NaiveParams(M=M, N=N, K=K, T=T, device=key)),
        ("smem", SmemParams(M=M, N=N, K=K, T=T, device=key)),
        ("register", RegisterParams(M=M, N=N, K=K, device=key)),
    ):
        bound = time_bound_for(DEVICES[key], KERNELS[kernel].counters(params), M, N, K)
        report = report_for(kernel, params)
        assert not isinstance(report, str)
        assert report.bounds.latency_s == pytest.approx(bound.latency_seconds, rel=1e-12)
        assert report.estimate_s >= bound.seconds >= bound.latency_seconds


def test_the_smallest_tiling_run_prints_no_sub_nanosecond_bound():
    # #/tiling?M=4&N=4&K=8&T=2: FP32 0.013 ns, DRAM 0.21 ns; the bound is the 206 ns round trip.
    params = SmemParams(M=4, N=4, K=8, T=2)
    bound = time_bound_for(A100, KERNELS["smem"].counters(params), 4, 4, 8)
    assert bound.cache_perfect.seconds < 1e-9 < bound.seconds == latency_floor(A100)
    assert durations(bound.describe()) == [pytest.approx(206e-9, rel=1e-3)]


@pytest.mark.parametrize(
    "seconds,text",
    [
        (0, "0 s"),
        (0.00123, "1.23 ms"),
        (0.0009996, "1 ms"),
        (1.5e-7, "150 ns"),
        (2.5e-11, "0.025 ns"),
        (3.14159e-5, "31.4 µs"),
        (2.5, "2.5 s"),
        (1234.5, "1,230 s"),
    ],
)
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


@pytest.mark.parametrize(
    "count,text", [(12, "12 B"), (1000, "1 KB"), (201_326_592, "201 MB"), (549_822_922_752, "550 GB")]
)
def test_format_bytes(count, text):
    assert format_bytes(count) == text


@pytest.mark.parametrize("key", DEVICES)
def test_the_page_bound_and_the_floor_under_the_estimate_are_one_figure(key):
    # 1024 = 32 tiles of 32: no padding, so the counters' FMAs are the model's 2MNK / 2 and both ask one floor.
    params = SmemParams(M=1024, N=1024, K=1024, T=32, device=key)
    bound = time_bound_for(DEVICES[key], KERNELS["smem"].counters(params), 1024, 1024, 1024)
    report = report_for("smem", params)
    assert not isinstance(report, str)
    assert report.bounds == bound.floor and report.bounds.seconds == bound.seconds
