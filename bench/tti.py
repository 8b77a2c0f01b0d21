"""Cold time-to-ready of the site against a floor page (run on demand: `python bench/tti.py`).

The floor page loads only PyScript + Pyodide + NumPy from the same dist/. Each
sample is a fresh browser launch; site and floor are interleaved so machine
noise hits both alike. Target: median(site) / median(floor) <= 1.15.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import build  # noqa: E402
from bench.harness import Server, launch, wait_ready  # noqa: E402

TARGET_RATIO = 1.15
FLOOR_PAGE = b"""<!doctype html>
<html lang="en" data-state="loading"><head><meta charset="utf-8"><title>floor</title>
<script type="module" src="pyscript/core.js"></script></head>
<body><script type="py" config="floor.json">
import pyodide_js
await pyodide_js.loadPackage("numpy")
import numpy
from pyscript import document
document.documentElement.dataset.state = "ready"
</script></body></html>
"""
FLOOR_CONFIG = json.dumps({"interpreter": "./pyodide/pyodide.mjs"}).encode()


def cold_start(playwright, url: str) -> float:
    browser = launch(playwright)
    try:
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(url)
        state = wait_ready(page)
        elapsed = time.perf_counter() - start
        if state != "ready":
            raise RuntimeError(f"{url} did not start: {state}")
        return elapsed
    finally:
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="fresh launches of each page (default 5)")
    parser.add_argument("--route", default="#/tiling", help="the site route to time (default #/tiling)")
    args = parser.parse_args(argv)

    dist = build.build()
    files = sorted(
        ((p.stat().st_size, p.relative_to(dist).as_posix()) for p in dist.rglob("*") if p.is_file()), reverse=True
    )
    print(f"dist/: {sum(size for size, _ in files) / 1e6:.1f} MB in {len(files)} files; largest:")
    for size, name in files[:5]:
        print(f"    {size / 1e6:7.2f} MB  {name}")

    server = Server(dist)
    server.extra["floor.html"] = ("text/html; charset=utf-8", FLOOR_PAGE)
    server.extra["floor.json"] = ("application/json", FLOOR_CONFIG)
    site, floor = [], []
    try:
        with sync_playwright() as playwright:
            for _ in range(args.runs):
                site.append(cold_start(playwright, server.url + args.route))
                floor.append(cold_start(playwright, server.url + "floor.html"))
    finally:
        server.close()
    site_median, floor_median = statistics.median(site), statistics.median(floor)
    ratio = site_median / floor_median
    print(
        f"site  {args.route}: median {site_median:.2f} s over {len(site)} cold launches ({', '.join(f'{s:.2f}' for s in site)})"
    )
    print(f"floor PyScript+Pyodide+NumPy: median {floor_median:.2f} s ({', '.join(f'{s:.2f}' for s in floor)})")
    print(f"ratio {ratio:.3f} (target <= {TARGET_RATIO})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
