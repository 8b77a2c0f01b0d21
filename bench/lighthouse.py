"""Lighthouse (desktop preset) on the site and on the floor page (run on demand:
`python bench/lighthouse.py`).

Runs `lighthouse@12.2.3` from node_modules (an exact devDependency) against dist/ served
on 127.0.0.1 with gzip (as GitHub Pages sends it), with CHROME_PATH set to the Chromium the
tests use. The floor page is bench/tti.py's (Pyodide as released; `--floor-on-dist` for
dist/'s runtime). For each page it prints the performance score, TBT, LCP, Speed Index and CLS,
the medians over --runs runs (the run with the median score is reported), and that run's long
tasks (over 50 ms: what TBT adds up), with the script each ran. Target: the site's score above
the floor's (as Lighthouse rounds them, to two places).

    python bench/lighthouse.py               # build dist/, 3 runs of each page
    python bench/lighthouse.py --runs 1      # quick
    python bench/lighthouse.py --dist /tmp/old/dist
    python bench/lighthouse.py --keep /tmp/reports   # and each run's report, for the filmstrip and traces
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tti import floor_root, floor_server  # noqa: E402
from tools.harness import CHROMIUM_ARGS, Server, chromium_executable  # noqa: E402
from tools.sitebuild import paths  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

LIGHTHOUSE = paths.NODE_MODULES / ".bin" / "lighthouse"
VERSION = "12.2.3"
METRICS = {
    "TBT": ("total-blocking-time", "ms"),
    "LCP": ("largest-contentful-paint", "ms"),
    "SI": ("speed-index", "ms"),
    "FCP": ("first-contentful-paint", "ms"),
    "CLS": ("cumulative-layout-shift", ""),
}
TIMEOUT_S = 300


def chromium_path() -> str:
    with sync_playwright() as playwright:
        return chromium_executable(playwright.chromium)


def lighthouse(url: str, chrome: str, keep: Path | None = None) -> dict:
    """One Lighthouse run; returns {"score": 0..1, metric: value}. `keep`: where to copy its report."""
    flags = " ".join(arg for arg in CHROMIUM_ARGS if arg != "--headless") + " --headless=new"
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        done = subprocess.run(
            [
                str(LIGHTHOUSE),
                url,
                "--preset=desktop",
                "--only-categories=performance",
                "--output=json",
                f"--output-path={report}",
                f"--chrome-flags={flags}",
                "--quiet",
            ],
            env={**os.environ, "CHROME_PATH": chrome, "TMPDIR": scratch},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        if done.returncode != 0 or not report.exists():
            raise RuntimeError(f"lighthouse failed on {url}: {done.stderr[-2000:]}")
        data = json.loads(report.read_text())
        if keep is not None:
            shutil.copyfile(report, keep)
    if data.get("runtimeError"):
        raise RuntimeError(f"lighthouse on {url}: {data['runtimeError']}")
    result = {"score": data["categories"]["performance"]["score"]}
    for name, (audit, _unit) in METRICS.items():
        result[name] = data["audits"][audit]["numericValue"]
    # The main-thread tasks over 50 ms (TBT is the sum of their excess over 50 ms), by script.
    items = data["audits"].get("long-tasks", {}).get("details", {}).get("items", [])
    result["long_tasks"] = [(item["url"], item["startTime"], item["duration"]) for item in items]
    return result


def describe(label: str, runs: list[dict]) -> dict:
    runs = sorted(runs, key=lambda run: run["score"])
    middle = runs[len(runs) // 2]
    metrics = ", ".join(
        f"{name} {middle[name]:.3f}" if not unit else f"{name} {middle[name] / 1000:.2f} s"
        for name, (_audit, unit) in METRICS.items()
    )
    scores = ", ".join(f"{run['score']:.2f}" for run in runs)
    print(f"{label}: performance {middle['score']:.2f} (runs: {scores}); {metrics}")
    for url, start, duration in middle["long_tasks"]:
        print(
            f"    long task at {start / 1000:.2f} s: {duration:.0f} ms (blocking {max(0, duration - 50):.0f} ms), {url}"
        )
    return middle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs of each page (default 3)")
    parser.add_argument("--route", default="#/tiling", help="the site route (default #/tiling)")
    parser.add_argument("--dist", type=Path, help="measure this existing build instead of building dist/")
    parser.add_argument(
        "--floor-on-dist", action="store_true", help="serve the floor page with dist/'s runtime (precompiled stdlib)"
    )
    parser.add_argument("--keep", type=Path, help="write each run's Lighthouse report (JSON) into this folder")
    args = parser.parse_args(argv)

    if not LIGHTHOUSE.exists():
        print(f"lighthouse is missing: run `npm ci` (package.json pins lighthouse@{VERSION})", file=sys.stderr)
        return 1
    dist = args.dist or build()
    chrome = chromium_path()
    scratch = Path(tempfile.mkdtemp(prefix="tilelab-floor-"))
    server, floor_pages = Server(dist, gzip=True), floor_server(floor_root(dist, scratch, args.floor_on_dist))
    site, floor = [], []
    try:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        for run in range(args.runs):  # interleaved, so machine noise hits both alike
            keep = {page: args.keep / f"{page}-{run}.json" if args.keep else None for page in ("site", "floor")}
            site.append(lighthouse(server.url + args.route, chrome, keep["site"]))
            floor.append(lighthouse(floor_pages.url + "floor.html", chrome, keep["floor"]))
    finally:
        server.close()
        floor_pages.close()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"lighthouse {VERSION}, desktop preset, Chromium {chrome}")
    site_median = describe(f"site  {args.route}", site)
    floor_median = describe("floor PyScript+Pyodide+NumPy", floor)
    verdict = "meets" if site_median["score"] > floor_median["score"] else "misses"
    print(
        f"site score {site_median['score']:.2f} vs floor {floor_median['score']:.2f}: {verdict} the target (site above floor)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
