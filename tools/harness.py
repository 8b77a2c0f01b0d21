"""Serving dist/ and launching Chromium: shared by the end-to-end tests and the browser benchmarks."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

from tools.sitebuild.serve import Handler

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium(browser_type) -> str | None:
    """The browser to launch: TILELAB_CHROMIUM, else Debian's chromium, else Playwright's own (None).

    Debian's comes first: it is the browser the project pins and `.ci/run` installs. A CI machine that also
    held Playwright's download (Chrome for Testing) once ran the tests in that one instead."""
    override = os.environ.get("TILELAB_CHROMIUM")
    if override:
        return override
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
        if candidate and Path(candidate).exists():
            return candidate
    try:
        own = browser_type.executable_path
    except Exception:  # noqa: BLE001 - Playwright raises when its browser is not installed
        own = ""
    if own and Path(own).exists():
        return None
    raise RuntimeError(
        "no Chromium found: set TILELAB_CHROMIUM, install Debian's chromium, or run `playwright install chromium`"
    )


def chromium_executable(browser_type) -> str:
    """The file of the Chromium the harness launches (find_chromium's None being Playwright's own)."""
    return find_chromium(browser_type) or browser_type.executable_path


def launch(playwright):
    return playwright.chromium.launch(executable_path=find_chromium(playwright.chromium), args=CHROMIUM_ARGS)


def launch_persistent(browser_type, user_data_dir: Path, **options):
    """A context with a profile on disk, as a student's browser has (an incognito context's
    HTTP cache is in memory and too small for the 10 MB WebAssembly): same Chromium, same flags."""
    executable = find_chromium(browser_type)
    return browser_type.launch_persistent_context(
        user_data_dir, executable_path=executable, args=CHROMIUM_ARGS, **options
    )


# What GitHub Pages (Fastly) compresses: text, scripts, JSON, SVG and WebAssembly; zip
# archives (the stdlib, wheels) and fonts are sent as they are.
GZIP_TYPES = (
    "text/",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "application/wasm",
    "image/svg+xml",
)


class FaultyHandler(Handler):
    """The build's Handler plus injected faults ({path: "missing" | a wrong MIME type}), extra in-memory
    pages, a log of the paths asked for, and optional gzip (as GitHub Pages sends files)."""

    faults: dict[str, str] = {}
    types: dict[str, str] = {}  # file suffix -> the MIME type sent for every such file (an LMS's table)
    extra: dict[str, tuple[str, bytes]] = {}
    log: list[str] = []
    gzip: dict[str, tuple[float, bytes]] | None = None  # None: send files as they are

    def send_head(self):
        path = urlparse(self.path).path.lstrip("/")
        self.log.append(path)
        if path in self.extra:
            mime, body = self.extra[path]
            self.send_response(200)
            self.send_header("Content-Type", mime)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return _Body(body)
        fault = self.faults.get(path) or next((t for suffix, t in self.types.items() if path.endswith(suffix)), None)
        if fault == "missing":
            self.send_error(404, "File not found")
            return None
        if fault:
            self.guess_type = lambda _path: fault
        elif self.gzip is not None and "gzip" in self.headers.get("Accept-Encoding", ""):
            compressed = self.send_gzipped(self.gzip)
            if compressed is not None:
                return compressed
        return super().send_head()

    def send_gzipped(self, cache: dict[str, tuple[float, bytes]]) -> _Body | None:
        file = Path(self.translate_path(self.path))
        if file.is_dir():
            file = file / "index.html"
        mime = self.guess_type(str(file))
        if not file.is_file() or not mime.startswith(GZIP_TYPES):
            return None
        mtime, body = gzipped(file, cache)
        self.send_response(200)
        self.send_header("Content-Type", mime)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(mtime)))
        self.end_headers()
        return _Body(body)


def gzipped(file: Path, cache: dict[str, tuple[float, bytes]]) -> tuple[float, bytes]:
    """(mtime, gzip body) of a file, compressed once per version of it."""
    mtime = file.stat().st_mtime
    cached = cache.get(str(file))
    if cached is None or cached[0] != mtime:
        cached = (mtime, gzip.compress(file.read_bytes(), compresslevel=6, mtime=0))
        cache[str(file)] = cached
    return cached


class _Body:
    """A file-like object over bytes, for SimpleHTTPRequestHandler.copyfile."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    """A browser closing a page mid-download is normal here, not an error to print."""

    def handle_error(self, request, client_address) -> None:
        pass


class Server:
    """dist/ on 127.0.0.1 (a free port), in a background thread."""

    def __init__(self, directory: Path, gzip: bool = False) -> None:
        self.faults: dict[str, str] = {}
        self.types: dict[str, str] = {}  # suffix -> MIME type, e.g. {".wasm": "document/unknown"} as Moodle sends
        self.extra: dict[str, tuple[str, bytes]] = {}
        self.log: list[str] = []  # every path asked for, in order (HEAD and GET)
        cache: dict[str, tuple[float, bytes]] | None = {} if gzip else None
        attributes = {"faults": self.faults, "types": self.types, "extra": self.extra, "log": self.log, "gzip": cache}
        handler_class = type("Handler", (FaultyHandler,), attributes)
        handler = functools.partial(handler_class, directory=str(directory))
        if cache is not None:
            # Compressed ahead (all files: simpler than asking each one's type), as a CDN edge
            # holds them: no first request waits for its compression.
            for file in directory.rglob("*"):
                if file.is_file():
                    gzipped(file, cache)
        self.httpd = QuietServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# Resolves once a service worker controls the page (rejects after `ms`); for page.evaluate,
# which awaits promises (wait_for_function would take the promise itself as truthy).
SW_ACTIVE = """ms => Promise.race([
    navigator.serviceWorker.ready.then(() => new Promise(resolve => {
        if (navigator.serviceWorker.controller) resolve(true);
        else navigator.serviceWorker.addEventListener('controllerchange', () => resolve(true));
    })),
    new Promise((_, reject) => setTimeout(() => reject(new Error('no service worker after ' + ms + ' ms')), ms)),
])"""


def wait_ready(page, timeout_ms: int = 60_000) -> str:
    page.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=timeout_ms)
    return page.evaluate("document.documentElement.dataset.state")
