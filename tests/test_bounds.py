"""Roofline time bounds against closed forms worked out by hand, and their invariants."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysim import KERNELS, NaiveParams, RegisterParams, SmemParams
from pysim.hardware.bounds import (
    CAVEAT,
    COMPUTE,
    MEMORY,
    format_bytes,
    format_intensity,
    format_seconds,
    time_bound,
    time_bound_for,
)
from pysim.hardware.devices import DEVICES

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
    assert (bound.low_seconds, bound.high_seconds) == (bound.cache_perfect.seconds, bound.no_reuse.seconds)


def test_small_problem_is_memory_bound_even_cache_perfect():
    # M = N = K = 8: 1024 FLOPs over 768 bytes = 1.33 FLOP/byte, far below the A100's 12.5.
    bound = time_bound(A100, fma=512, global_loads=1024, global_stores=64, M=8, N=8, K=8)
    assert bound.cache_perfect.dram_bytes == 768
    assert bound.cache_perfect.bound_by == MEMORY
    assert bound.cache_perfect.seconds == pytest.approx(768 / 1555e9)
    assert bound.regime().startswith("Memory-bound under both estimates")


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
def test_more_loads_never_lower_the_no_reuse_bound(size, fma, loads, extra, stores, key):
    M, N, K = size
    d = DEVICES[key]
    fewer = time_bound(d, fma, loads, stores, M, N, K)
    more = time_bound(d, fma, loads + extra, stores, M, N, K)
    assert more.no_reuse.seconds >= fewer.no_reuse.seconds
    assert more.no_reuse.dram_bytes == fewer.no_reuse.dram_bytes + 4 * extra
    assert more.cache_perfect == fewer.cache_perfect  # A, B and C once: loads do not enter


@pytest.mark.parametrize("n", [1, 16384])
def test_edge_sizes_exact(n):
    bound = time_bound(A100, fma=n**3, global_loads=2 * n**3, global_stores=n**2, M=n, N=n, K=n)
    assert bound.flops == 2 * n**3 and isinstance(bound.flops, int)
    assert bound.cache_perfect.dram_bytes == 12 * n * n
    assert bound.no_reuse.dram_bytes == 8 * n**3 + 4 * n**2
    assert 0 < bound.low_seconds <= bound.high_seconds
    assert "Time bound on the NVIDIA A100" in bound.describe()


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
        "Time bound on the NVIDIA A100 40GB (SXM4): between 7.05 ms (cache-perfect: A and B read once, "
        "C written once) and 354 ms (no reuse: every global load and store from DRAM)."
    )
    assert bound.regime().startswith("Compute-bound if caches are perfect (683 FLOP/byte); memory-bound with no reuse")
    assert "12.5 FLOP/byte" in bound.regime()
    assert bound.describe().endswith(CAVEAT) and "not a prediction" in CAVEAT


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
