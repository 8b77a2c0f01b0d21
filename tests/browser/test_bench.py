"""Every benchmark script that drives Chromium runs here in a short form, so none of them rots (the one that
needs no browser, bench/pysim_bench.py, is tests/unit/test_bench_pysim.py)."""

import subprocess
import sys
from pathlib import Path

from app.core.urlstate import STEPPING_VIEWS
from pysim.kernels import KERNELS

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_tti_bench_prints_the_ratio():
    out = run("bench/tti.py", "--runs", "1")
    assert "pyodide.asm.wasm" in out
    assert "localhost" in out and "throttled" in out and out.count("ratio") == 2
    assert "bytes on the wire" in out and "warm/cold" in out
    assert "first screen showing the picture" in out
    assert "files from the network: none" in out
    assert "offline reload reaches ready: yes" in out


def test_lighthouse_bench_prints_both_pages():
    out = run("bench/lighthouse.py", "--runs", "1")
    assert "lighthouse 12.2.3" in out
    assert out.count("performance ") == 2 and out.count("TBT") == 2 and out.count("CLS") == 2


def test_step_latency_bench_prints_each_case():
    out = run("bench/step_latency.py", "--steps", "3")
    # every preset of every stepping view in the route table, the strided naive map, two 32³ cases, #/mma's swizzle
    cases = sum(len(KERNELS[view.kernel].PARAMS.PRESETS) for view in STEPPING_VIEWS) + 4
    assert out.count("median") == cases


def test_long_run_bench_prints_each_view():
    out = run("bench/long_run.py", "--limit", "50", "--rounds", "2")
    assert out.count("slowest") == 3


def test_screenshot_script_writes_both_schemes_and_both_sizes(tmp_path):
    out = run("docs/screenshots.py", "--only", "tiling", "--out", str(tmp_path))
    assert out.count("wrote") == 4
    assert (tmp_path / "screenshots" / "tiling-1366x768.png").stat().st_size > 10_000
    assert (tmp_path / "screenshots" / "tiling-390x844.png").stat().st_size > 10_000
    assert (tmp_path / "screenshot-tiling-light.png").stat().st_size > 10_000
    assert (tmp_path / "screenshot-tiling-dark.png").stat().st_size > 10_000


def test_wasm_cache_bench_prints_each_visit():
    out = run("bench/wasm_cache.py", "--visits", "2")
    assert "visit 1 (the network)" in out and "visit 2 (the service worker)" in out
    assert "cachedModule" in out and "functions compiled lazily" in out
