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
    python bench/tti.py --routes-only --route '#/ladder' --route '#/tiling'  # ready side by side
    python bench/tti.py --routes-only --all-routes --runs 1   # every route's picture on the first screen
    python bench/tti.py --warm-only --runs 5  # warm/cold alone, the two interleaved

With several routes (--route given more than once, or --all-routes), a sixth figure: each route's
throttled cold start, the routes interleaved in each round, its ready and picture medians side by
side and its ready against #/tiling's (target for #/ladder: <= 1.3). The other figures time the
first route.
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

from tools.harness import SW_ACTIVE, Server, launch, launch_persistent, wait_ready  # noqa: E402
from tools.sitebuild import paths, runtime  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))

from app.core.urlstate import ROUTES  # noqa: E402

TARGETS = {"localhost": 1.05, "throttled": 0.85, "warm": 0.6, "picture": 1.5, "ladder": 1.3}
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


# The first frame whose first screen shows the view's picture (a grid, or the walkthrough's, the
# hierarchy's or the ladder's picture), in seconds since navigation; null while none has shown (the
# floor never shows one, nor do the routes without a picture: the landing, the playground, the
# teachers' index).
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


def warm_start(playwright, server: Server, url: str) -> tuple[float, float, list[str], bool]:
    """A first visit, then, once the service worker controls the page, a second and a third
    visit in new tabs (throttled, cache enabled), then an offline reload. A profile on disk, as a
    student's browser has: an incognito context keeps no compiled WebAssembly between visits.

    Returns (second visit seconds, third visit seconds (the first that can reuse the code V8
    compiled for the service worker's copy of the WebAssembly: docs/perf/second-visit.md),
    paths the second visit asked the server for besides the worker's update check, whether
    the offline reload reached ready)."""
    profile = Path(tempfile.mkdtemp(prefix="tilelab-profile-"))
    context = launch_persistent(playwright.chromium, profile)
    try:
        first = context.new_page()
        time_to_ready(first, url)
        first.evaluate(SW_ACTIVE, SW_TIMEOUT_MS)
        first.close()
        visits, asked = [], []
        for _ in range(2):
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", THROTTLE)
            asked_before = len(server.log)
            visits.append(time_to_ready(page, url))
            asked = asked or [path for path in server.log[asked_before:] if path != paths.SERVICE_WORKER]
            page.close()
        context.set_offline(True)
        offline = context.new_page()
        offline.goto(url)
        offline_ok = wait_ready(offline, READY_TIMEOUT_MS) == "ready"
        return visits[0], visits[1], asked, offline_ok
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def report(label: str, site: list[float], floor: list[float], target: float) -> float:
    ratio = median(site) / median(floor)
    print(f"{label}: site median {median(site):.2f} s ({', '.join(f'{s:.2f}' for s in site)})")
    print(f"{' ' * len(label)}  floor median {median(floor):.2f} s ({', '.join(f'{s:.2f}' for s in floor)})")
    print(f"{' ' * len(label)}  ratio {ratio:.3f} (target <= {target})")
    return ratio


def compare_routes(playwright, base_url: str, routes: list[str], runs: int) -> None:
    """Each route's throttled cold start, interleaved round by round: ready and picture side by side."""
    ready: dict[str, list[float]] = {route: [] for route in routes}
    pictures: dict[str, list[float]] = {route: [] for route in routes}  # empty: the route has no picture
    for _ in range(runs):
        for route in routes:
            seconds, _, picture = cold_start(playwright, base_url + route, throttled=True)
            ready[route].append(seconds)
            if picture is not None:
                pictures[route].append(picture)
    reference = "#/tiling" if "#/tiling" in routes else routes[0]
    print(f"routes, throttled 20/5 Mbit/s 40 ms, {runs} interleaved round(s); ready against {reference}:")
    for route in routes:
        ratio = median(ready[route]) / median(ready[reference])
        target = f" (target <= {TARGETS['ladder']})" if route == "#/ladder" else ""
        shown = pictures[route]
        picture = f"picture {median(shown):5.2f} s" if len(shown) == runs else f"picture in {len(shown)}/{runs} runs"
        print(
            f"    {route:<14} ready {median(ready[route]):6.2f} s  {picture} (target <= {TARGETS['picture']})  "
            f"ready/{reference} {ratio:.2f}{target}"
        )


def second_visit(playwright, server: Server, url: str, runs: int) -> None:
    """The site's throttled cold start and its second visit, interleaved round by round (no floor)."""
    cold, warm, later = [], [], []
    for _ in range(runs):
        cold.append(cold_start(playwright, url, throttled=True)[0])
        second, third, _, _ = warm_start(playwright, server, url)
        warm.append(second)
        later.append(third)
    print(f"cold (throttled): median {median(cold):.2f} s ({', '.join(f'{s:.2f}' for s in cold)})")
    print(f"warm (second visit): median {median(warm):.2f} s ({', '.join(f'{s:.2f}' for s in warm)})")
    print(f"    warm/cold {median(warm) / median(cold):.3f} (target <= {TARGETS['warm']})")
    print(f"third visit: median {median(later):.2f} s ({', '.join(f'{s:.2f}' for s in later)})")
    print(f"    third/cold {median(later) / median(cold):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="samples of each page per figure (default 5)")
    parser.add_argument(
        "--route", action="append", help="a site route to time (default #/tiling); more than once: side by side"
    )
    parser.add_argument("--all-routes", action="store_true", help="every route of the route table, side by side")
    parser.add_argument("--routes-only", action="store_true", help="only the routes figure")
    parser.add_argument(
        "--warm-only", action="store_true", help="only warm/cold: the site's cold and second visits interleaved"
    )
    parser.add_argument("--dist", type=Path, help="time this existing build instead of building dist/")
    parser.add_argument("--skip-localhost", action="store_true", help="only the throttled and warm figures")
    parser.add_argument(
        "--floor-on-dist", action="store_true", help="serve the floor page with dist/'s runtime (precompiled stdlib)"
    )
    args = parser.parse_args(argv)
    routes = ["#" + path for path in ROUTES] if args.all_routes else (args.route or ["#/tiling"])

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
    site_url, floor_url = pages.url + routes[0], floor_pages.url + "floor.html"
    print(f"floor runtime: {'dist/' if args.floor_on_dist else 'Pyodide as released (node_modules/pyodide)'}")
    try:
        with sync_playwright() as playwright:
            if len(routes) > 1:
                compare_routes(playwright, pages.url, routes, args.runs)
            if args.warm_only:
                second_visit(playwright, pages, site_url, args.runs)
            if args.routes_only or args.warm_only:
                return 0
            if not args.skip_localhost:
                site, floor = [], []
                for _ in range(args.runs):
                    site.append(cold_start(playwright, plain.url + routes[0])[0])
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
                warm, later, fetched, offline = [], [], [], []
                for _ in range(args.runs):
                    seconds, third, from_network, offline_ok = warm_start(playwright, pages, site_url)
                    warm.append(seconds)
                    later.append(third)
                    fetched.append(from_network)
                    offline.append(offline_ok)
                print(
                    f"warm (second visit, service worker): median {median(warm):.2f} s "
                    f"({', '.join(f'{s:.2f}' for s in warm)}); files from the network: {max(fetched, key=len) or 'none'}"
                )
                print(f"    warm/cold {median(warm) / cold:.3f} (target <= {TARGETS['warm']})")
                print(f"third visit: median {median(later):.2f} s; third/cold {median(later) / cold:.3f}")
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
