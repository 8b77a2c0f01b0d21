"""Does a visit reuse the WebAssembly V8 compiled before? (run on demand: `python bench/wasm_cache.py`)

Visits a route VISITS times in one browser profile on disk (as a student's browser has; an incognito
context keeps no compiled code), the first before the service worker, the others served by it, and
prints, per visit, its seconds to ready and Chromium's WebAssembly code cache events from a trace:
v8.wasm.cachedModule (V8 wrote the module's compiled code beside the response), v8.wasm.moduleCacheHit
(it read that code back instead of compiling), v8.wasm.moduleCacheInvalid (it could not), and how many
functions were compiled lazily (wasm.CompileLazy: the main module's and NumPy's side modules', which
are compiled from bytes and never cached). docs/perf/second-visit.md reads its output.

    python bench/wasm_cache.py                    # build dist/, #/tiling, 3 visits
    python bench/wasm_cache.py --dist /tmp/old/dist --visits 4
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.harness import SW_ACTIVE, Server, launch_persistent, wait_ready  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline,v8.wasm,disabled-by-default-v8.wasm,disabled-by-default-v8.wasm.detailed"
CACHE_EVENTS = ("v8.wasm.cachedModule", "v8.wasm.moduleCacheHit", "v8.wasm.moduleCacheInvalid")


def traced_visit(context, url: str, first: bool) -> tuple[float, list[dict]]:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    events: list[dict] = []
    done: list[bool] = []
    cdp.on("Tracing.dataCollected", lambda data: events.extend(data["value"]))
    cdp.on("Tracing.tracingComplete", lambda _: done.append(True))
    cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
    start = time.perf_counter()
    page.goto(url)
    if wait_ready(page, 180_000) != "ready":
        raise RuntimeError(f"{url} did not start")
    seconds = time.perf_counter() - start
    page.wait_for_timeout(3000)  # V8 writes the cache a few seconds after the code has tiered up
    if first:
        page.evaluate(SW_ACTIVE, 60_000)  # the next visits are the service worker's
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(100)
    page.close()
    return seconds, events


def describe(events: list[dict]) -> str:
    parts = []
    for event in events:
        if event.get("name") in CACHE_EVENTS:
            size = (event.get("args") or {}).get("producedCacheSize") or (event.get("args") or {}).get(
                "consumedCacheSize"
            )
            parts.append(f"{event['name'].removeprefix('v8.wasm.')} {size or 0:,} B")
    lazy = sum(1 for event in events if event.get("name") == "wasm.CompileLazy")
    return f"{'; '.join(parts) or 'no cache event'}; {lazy:,} functions compiled lazily"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--route", default="#/tiling")
    parser.add_argument("--visits", type=int, default=3)
    parser.add_argument("--dist", type=Path, help="an existing build instead of building dist/")
    args = parser.parse_args(argv)
    server = Server(args.dist or build(), gzip=True)
    profile = Path(tempfile.mkdtemp(prefix="tilelab-profile-"))
    try:
        with sync_playwright() as playwright:
            context = launch_persistent(playwright.chromium, profile)
            for visit in range(1, args.visits + 1):
                seconds, events = traced_visit(context, server.url + args.route, visit == 1)
                served = "the network" if visit == 1 else "the service worker"
                print(f"visit {visit} ({served}): ready in {seconds:.2f} s; {describe(events)}")
            context.close()
    finally:
        server.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
