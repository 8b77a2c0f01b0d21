"""Serving dist/ and launching Chromium: shared by the end-to-end tests and the browser benchmarks."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import build  # noqa: E402

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


def find_chromium(playwright) -> str | None:
    """The browser to launch: TILELAB_CHROMIUM, else Playwright's own (None), else the system one."""
    override = os.environ.get("TILELAB_CHROMIUM")
    if override:
        return override
    try:
        own = playwright.chromium.executable_path
    except Exception:  # noqa: BLE001 - Playwright raises when its browser is not installed
        own = ""
    if own and Path(own).exists():
        return None
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError(
        "no Chromium found: set TILELAB_CHROMIUM, run `playwright install chromium`, or install Debian's chromium"
    )


def launch(playwright):
    return playwright.chromium.launch(executable_path=find_chromium(playwright), args=CHROMIUM_ARGS)


class FaultyHandler(build.Handler):
    """build.Handler plus injected faults ({path: "missing" | a wrong MIME type}) and extra in-memory pages."""

    faults: dict[str, str] = {}
    extra: dict[str, tuple[str, bytes]] = {}

    def send_head(self):
        path = urlparse(self.path).path.lstrip("/")
        if path in self.extra:
            mime, body = self.extra[path]
            self.send_response(200)
            self.send_header("Content-Type", mime)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return _Body(body)
        fault = self.faults.get(path)
        if fault == "missing":
            self.send_error(404, "File not found")
            return None
        if fault:
            self.guess_type = lambda _path: fault
        return super().send_head()


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

    def __init__(self, directory: Path) -> None:
        self.faults: dict[str, str] = {}
        self.extra: dict[str, tuple[str, bytes]] = {}
        handler_class = type("Handler", (FaultyHandler,), {"faults": self.faults, "extra": self.extra})
        handler = functools.partial(handler_class, directory=str(directory))
        self.httpd = QuietServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def wait_ready(page, timeout_ms: int = 60_000) -> str:
    page.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=timeout_ms)
    return page.evaluate("document.documentElement.dataset.state")
