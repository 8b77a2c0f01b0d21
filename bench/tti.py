"""Time-to-ready of the site against a floor page (run on demand: `python bench/tti.py`).

The floor page loads only PyScript + Pyodide + NumPy, the way a bare page would (NumPy
fetched after the interpreter is up): PyScript and the NumPy wheel as dist/ has them, Pyodide
as its release ships it (node_modules/pyodide). dist/'s own standard library is precompiled
(tools/sitebuild/bytecode/compile.py), an optimisation of TileLab's; `--floor-on-dist` serves the floor
page from dist/ instead, so it gets that too. Both are served alike (127.0.0.1, gzip as
GitHub Pages). Site and floor samples are interleaved so machine noise hits both alike;
each cold sample is a fresh browser.

Five figures:
- localhost: cold starts over 127.0.0.1, no throttling (target: site/floor <= 1.05);
- throttled: Chromium's network emulation at 20 Mbit/s down, 5 up, 40 ms latency, cache
  disabled, files gzip-compressed as GitHub Pages sends them (target: site/floor <= 0.85);
- picture: on the throttled profile, seconds to the first frame whose first screen shows the
  view's picture (tools/sitebuild/prerender.py draws it before Python is ready; target <= 1.5 s);
- warm: the second visit of the same browser, served by the service worker, against the
  throttled cold visit (target: <= 0.6);
- the bytes on the wire of one cold visit of each page (gzip as GitHub Pages would send).
Then it checks that an offline reload of the site reaches ready.

    python bench/tti.py                       # build dist/, 5 samples of each
    python bench/tti.py --runs 1 --route '#/'  # quick
    python bench/tti.py --dist /tmp/old/dist  # time an existing build (before/after)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.harness import SW_ACTIVE, Server, launch, wait_ready  # noqa: E402
from tools.sitebuild import paths, runtime  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

TARGETS = {"localhost": 1.05, "throttled": 0.85, "warm": 0.6, "picture": 1.5}
# Chromium's network emulation: a school or home connection.
THROTTLE = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 5e6 / 8}
READY_TIMEOUT_MS = 180_000
SW_TIMEOUT_MS = 60_000
FLOOR_PAGE = b"""<!doctype html>
<html lang="en" data-state="loading"><head><meta charset="utf-8"><title>floor</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script type="module" src="pyscript/core.js"></script></head>
<body><h1>Floor: PyScript + Pyodide + NumPy</h1><script type="py" config="floor.json">
import pyodide_js
await pyodide_js.loadPackage("numpy")
import numpy
from pyscript import document
document.documentElement.dataset.state = "ready"
</script></body></html>
"""
FLOOR_CONFIG = json.dumps({"interpreter": "./pyodide/pyodide.mjs"}).encode()
# Bytes the page received: a Resource Timing entry's transferSize covers headers and the
# (compressed) body; the document itself is the navigation entry.
WIRE_BYTES = """() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
    .reduce((sum, e) => sum + (e.transferSize || 0), 0)"""


def serve_floor(server: Server) -> None:
    server.extra["floor.html"] = ("text/html; charset=utf-8", FLOOR_PAGE)
    server.extra["floor.json"] = ("application/json", FLOOR_CONFIG)


def floor_root(dist: Path, scratch: Path, on_dist: bool = False) -> Path:
    """Where the floor page is served from: beside Pyodide's released files, as the build
    copies them before compiling its bytecode (or dist/ itself, when on_dist)."""
    if on_dist:
        return dist
    root = scratch / "floor"
    runtime.copy_runtime(root, sorted(paths.VENDOR_WHEELS.glob("*.whl")))
    return root


def floor_server(root: Path, gzip: bool = True) -> Server:
    server = Server(root, gzip=gzip)
    serve_floor(server)
    return server


def throttle(context, page) -> None:
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", THROTTLE)


def time_to_ready(page, url: str) -> float:
    start = time.perf_counter()
    page.goto(url)
    state = wait_ready(page, READY_TIMEOUT_MS)
    elapsed = time.perf_counter() - start
    if state != "ready":
        message = page.evaluate("(document.getElementById('boot-error-text') || {}).textContent")
        raise RuntimeError(f"{url} did not start: {state} {message or ''}")
    return elapsed


# The first frame whose first screen shows the view's picture (a grid, or the walkthrough's
# picture), in seconds since navigation; null while none has shown (the floor never shows one).
PICTURE_SHOWN = """
window.__picture = null;
(function look() {
  const shown = document.querySelector('main > section:not([hidden]) :is(.grid, svg.picture)');
  const box = shown && shown.getBoundingClientRect();
  if (box && box.width && box.top < innerHeight) window.__picture = performance.now() / 1000;
  else requestAnimationFrame(look);
})();
"""


def cold_start(playwright, url: str, throttled: bool = False) -> tuple[float, int, float | None]:
    """Seconds to ready in a fresh browser, the bytes it received, and seconds to the first
    screen showing the picture (None: not by ready)."""
    browser = launch(playwright)
    try:
        context = browser.new_context()
        page = context.new_page()
        page.add_init_script(PICTURE_SHOWN)
        if throttled:
            throttle(context, page)
        elapsed = time_to_ready(page, url)
        return elapsed, page.evaluate(WIRE_BYTES), page.evaluate("window.__picture")
    finally:
        browser.close()


def warm_start(playwright, server: Server, url: str) -> tuple[float, list[str], bool]:
    """A first visit, then, once the service worker controls the page, a second visit in a
    new tab (throttled, cache enabled), then an offline reload of it.

    Returns (second visit seconds, paths it asked the server for besides the worker's
    update check, whether the offline reload reached ready)."""
    browser = launch(playwright)
    try:
        context = browser.new_context()
        first = context.new_page()
        time_to_ready(first, url)
        first.evaluate(SW_ACTIVE, SW_TIMEOUT_MS)
        first.close()
        second = context.new_page()
        cdp = context.new_cdp_session(second)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", THROTTLE)
        asked_before = len(server.log)
        elapsed = time_to_ready(second, url)
        asked = [path for path in server.log[asked_before:] if path != paths.SERVICE_WORKER]
        context.set_offline(True)
        second.reload()
        offline_ok = wait_ready(second, READY_TIMEOUT_MS) == "ready"
        return elapsed, asked, offline_ok
    finally:
        browser.close()


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def report(label: str, site: list[float], floor: list[float], target: float) -> float:
    ratio = median(site) / median(floor)
    print(f"{label}: site median {median(site):.2f} s ({', '.join(f'{s:.2f}' for s in site)})")
    print(f"{' ' * len(label)}  floor median {median(floor):.2f} s ({', '.join(f'{s:.2f}' for s in floor)})")
    print(f"{' ' * len(label)}  ratio {ratio:.3f} (target <= {target})")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="samples of each page per figure (default 5)")
    parser.add_argument("--route", default="#/tiling", help="the site route to time (default #/tiling)")
    parser.add_argument("--dist", type=Path, help="time this existing build instead of building dist/")
    parser.add_argument("--skip-localhost", action="store_true", help="only the throttled and warm figures")
    parser.add_argument(
        "--floor-on-dist", action="store_true", help="serve the floor page with dist/'s runtime (precompiled stdlib)"
    )
    args = parser.parse_args(argv)

    dist = args.dist or build()
    files = sorted(
        ((p.stat().st_size, p.relative_to(dist).as_posix()) for p in dist.rglob("*") if p.is_file()), reverse=True
    )
    print(f"dist/: {sum(size for size, _ in files) / 1e6:.1f} MB in {len(files)} files; largest:")
    for size, name in files[:5]:
        print(f"    {size / 1e6:7.2f} MB  {name}")

    scratch = Path(tempfile.mkdtemp(prefix="tilelab-floor-"))
    plain, pages = Server(dist), Server(dist, gzip=True)  # localhost as today; gzip as GitHub Pages
    floor_dir = floor_root(dist, scratch, args.floor_on_dist)
    floor_plain, floor_pages = floor_server(floor_dir, gzip=False), floor_server(floor_dir)
    site_url, floor_url = pages.url + args.route, floor_pages.url + "floor.html"
    print(f"floor runtime: {'dist/' if args.floor_on_dist else 'Pyodide as released (node_modules/pyodide)'}")
    try:
        with sync_playwright() as playwright:
            if not args.skip_localhost:
                site, floor = [], []
                for _ in range(args.runs):
                    site.append(cold_start(playwright, plain.url + args.route)[0])
                    floor.append(cold_start(playwright, floor_plain.url + "floor.html")[0])
                report("localhost", site, floor, TARGETS["localhost"])

            site, floor, site_bytes, floor_bytes, pictures = [], [], [], [], []
            for _ in range(args.runs):
                seconds, received, picture = cold_start(playwright, site_url, throttled=True)
                site.append(seconds)
                site_bytes.append(received)
                if picture is None:
                    raise RuntimeError(f"{site_url}: the first screen never showed the picture")
                pictures.append(picture)
                seconds, received, _ = cold_start(playwright, floor_url, throttled=True)
                floor.append(seconds)
                floor_bytes.append(received)
            cold = median(site)
            report("throttled 20/5 Mbit/s 40 ms", site, floor, TARGETS["throttled"])
            print(
                f"    first screen showing the picture: median {median(pictures):.2f} s "
                f"({', '.join(f'{s:.2f}' for s in pictures)}; target <= {TARGETS['picture']} s)"
            )
            print(
                f"bytes on the wire (gzip as GitHub Pages): site {median(site_bytes) / 1e6:.2f} MB, "
                f"floor {median(floor_bytes) / 1e6:.2f} MB"
            )

            if (dist / "sw.js").is_file():
                warm, fetched, offline = [], [], []
                for _ in range(args.runs):
                    seconds, from_network, offline_ok = warm_start(playwright, pages, site_url)
                    warm.append(seconds)
                    fetched.append(from_network)
                    offline.append(offline_ok)
                print(
                    f"warm (second visit, service worker): median {median(warm):.2f} s "
                    f"({', '.join(f'{s:.2f}' for s in warm)}); files from the network: {max(fetched, key=len) or 'none'}"
                )
                print(f"    warm/cold {median(warm) / cold:.3f} (target <= {TARGETS['warm']})")
                print(f"offline reload reaches ready: {'yes' if all(offline) else 'NO'}")
            else:
                print("warm: no service worker in this build (sw.js missing)")
    finally:
        for server in (plain, pages, floor_plain, floor_pages):
            server.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
