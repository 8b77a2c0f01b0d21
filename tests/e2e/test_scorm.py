"""Course packages in Chromium, offline: a mock LMS talks SCORM 1.2 to the unzipped packages.

The mock LMS (our own recorder of every API call) frames the package the way Moodle's player
does, from the same origin, and the server sends Moodle's MIME types: `document/unknown` for
`.wasm`, `.mjs` and `.whl`. The full package must start anyway and report exactly what was
answered; a second launch must show the answers again. The link package frames a hosted copy
on another origin and relays its score; a message from any other origin is ignored.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest

from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS
from tools.build import scorm
from tools.harness import Server

READY_MS = 90_000
# What Moodle's file-type table sends (it has no .wasm, .mjs, .whl or .py entries).
MOODLE_TYPES = {
    ".wasm": "document/unknown",
    ".mjs": "document/unknown",
    ".whl": "document/unknown",
    ".py": "document/unknown",
    ".webmanifest": "document/unknown",
    ".js": "application/x-javascript",
}
# 5 walkthrough questions + checkpoints (smem 3, register 3, naive 1, transpose 2) + 9 puzzles (app.core.score)
TOTAL = 23

# The mock LMS: a SCORM 1.2 API that records every call; its data model starts from the JSON in
# the address (a returning student's), and the package plays in a frame as in Moodle's player.
LMS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mock LMS</title>
<script>
window.calls = [];
window.store = JSON.parse(decodeURIComponent(location.hash.slice(1) || "%7B%7D"));
function record(name, args, result) { window.calls.push([name].concat(args)); return result; }
window.API = {
  LMSInitialize: function (a) { return record("LMSInitialize", [a], "true"); },
  LMSFinish: function (a) { return record("LMSFinish", [a], "true"); },
  LMSGetValue: function (k) { return record("LMSGetValue", [k], k in window.store ? window.store[k] : ""); },
  LMSSetValue: function (k, v) { window.store[k] = v; return record("LMSSetValue", [k, v], "true"); },
  LMSCommit: function (a) { return record("LMSCommit", [a], "true"); },
  LMSGetLastError: function () { return "0"; },
  LMSGetErrorString: function () { return ""; },
  LMSGetDiagnostic: function () { return ""; }
};
</script></head><body>
<iframe name="sco" id="sco" title="course" width="1200" height="900" src="SRC"></iframe>
</body></html>"""

FORGE_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>forger</title></head><body>
<script>
parent.frames["sco"].postMessage({type: "tilelab:answer", key: "hierarchy:largest", correct: true,
  total: 14, text: "forged"}, "*");
parent.frames["sco"].postMessage({type: "tilelab:hello?"}, "*");
</script></body></html>"""


def unzip(archive: Path, target: Path) -> Path:
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(target)
    return target


@pytest.fixture(scope="module")
def packages(tmp_path_factory, server):
    """Both packages, built as `python build.py --scorm --scorm-url <the hosted copy>` builds them."""
    out = tmp_path_factory.mktemp("scorm")
    full = scorm.full_package(out)
    link = scorm.link_package(out, server.url)  # the hosted copy: the e2e server's dist/ (another origin)
    return unzip(full, out / "full"), unzip(link, out / "link")


@pytest.fixture(scope="module")
def lms(packages):
    """The LMS's server: the full package under Moodle's MIME types, the mock player beside it."""
    serving = Server(packages[0])
    serving.types.update(MOODLE_TYPES)
    serving.extra["lms.html"] = ("text/html; charset=utf-8", LMS_PAGE.replace("SRC", "launch.html").encode())
    yield serving
    serving.close()


def launch(browser, lms: Server, store: dict | None = None):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(lms.url + "lms.html#" + quote(json.dumps(store or {})))
    sco = page.frame(name="sco")
    sco.wait_for_url(re.compile(r".*/index\.html#/hierarchy.*"), timeout=10_000)
    sco.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_MS)
    message = sco.evaluate("document.getElementById('boot-error-text').textContent")
    assert sco.evaluate("document.documentElement.dataset.state") == "ready", message
    return context, page, sco, errors


def calls(page, name: str | None = None) -> list[list[str]]:
    found = page.evaluate("window.calls")
    return [call for call in found if name is None or call[0] == name]


def answer(sco, key: str, text: str) -> None:
    box = sco.locator(f"[data-testid=quiz-{key}]")
    box.fill(text)
    box.press("Enter")
    sco.wait_for_function("k => document.querySelector(`[data-testid=quiz-${k}-feedback]`).textContent !== ''", arg=key)


def test_full_package_reports_the_score_under_moodle_mime_types(browser, lms):
    context, page, sco, errors = launch(browser, lms)
    # Started despite document/unknown: the shim compiled the WebAssembly from bytes.
    assert sco.evaluate(
        "window.tilelabWasmShim === true && !('serviceWorker' in navigator && navigator.serviceWorker.controller)"
    )
    assert "pyodide/pyodide.js" in lms.log and "pyodide/pyodide.mjs" not in lms.log
    assert calls(page, "LMSInitialize") == [["LMSInitialize", ""]]
    assert ["LMSSetValue", "cmi.core.lesson_status", "incomplete"] in calls(page)
    commits_at_start = len(calls(page, "LMSCommit"))
    assert commits_at_start == 1

    answer(sco, "naive", "2,147,483,648")  # right (N = 1024: 2N³)
    answer(sco, "tiled", "1")  # wrong
    answer(sco, "bank", "32")  # right
    answer(sco, "padded", "1")  # right
    answer(sco, "naive", "5")  # practice: the first answer counts

    # A prediction checkpoint in the tiling view: "Run to end" stops at the first open one.
    sco.evaluate("location.hash = '#/tiling?M=4&N=4&K=8&T=2'")
    tiling = sco.locator("#view-tiling")
    tiling.locator("[data-testid=run-to-end]").click()
    checkpoint = tiling.locator("[data-testid=checkpoint]")
    checkpoint.wait_for(state="visible")
    steps = len(Trace(KERNELS["smem"], SmemParams()))
    assert tiling.locator(".player .position").inner_text() == f"step 4 of {steps}"  # the first barrier: index 3
    assert "FMAs" in checkpoint.locator("[data-testid=checkpoint-prompt]").inner_text()
    assert checkpoint.locator("[data-testid=checkpoint-status]").get_attribute("aria-live") == "polite"
    checkpoint.locator("[data-testid=checkpoint-input]").fill("1/2")
    checkpoint.locator("[data-testid=checkpoint-input]").press("Enter")
    assert checkpoint.locator("[data-testid=checkpoint-feedback]").get_attribute("class") == "feedback right"
    assert "32 FMAs for 64" in checkpoint.locator("[data-testid=checkpoint-explain]").inner_text()

    store = page.evaluate("window.store")
    assert store["cmi.core.score.raw"] == str(round(100 * 4 / TOTAL)) == "17"
    assert (store["cmi.core.score.min"], store["cmi.core.score.max"]) == ("0", "100")
    assert store["cmi.core.lesson_status"] == "incomplete"
    saved = json.loads(store["cmi.suspend_data"])
    assert saved["a"] == {
        "hierarchy:naive": [1, "2,147,483,648"],
        "hierarchy:tiled": [0, "1"],
        "hierarchy:bank": [1, "32"],
        "hierarchy:padded": [1, "1"],
        "smem:fma-per-read": [1, "1/2"],
    }
    assert len(calls(page, "LMSCommit")) == commits_at_start + 5  # one per counted answer
    assert calls(page, "LMSFinish") == []

    # Leaving (the LMS unloads the frame): session time, then LMSFinish, once.
    page.evaluate("document.getElementById('sco').src = 'about:blank'")
    page.wait_for_function("window.calls.some(c => c[0] === 'LMSFinish')")
    assert calls(page, "LMSFinish") == [["LMSFinish", ""]]
    assert re.fullmatch(r"\d{4}:\d{2}:\d{2}", page.evaluate("window.store['cmi.core.session_time']"))
    assert errors == []
    context.close()

    # The student comes back: the answers are on screen again and still count once.
    returning = {key: store[key] for key in ("cmi.suspend_data", "cmi.core.lesson_status", "cmi.core.score.raw")}
    context, page, sco, errors = launch(browser, lms, returning)
    assert sco.locator("[data-testid=quiz-naive]").input_value() == "2,147,483,648"
    assert sco.locator("[data-testid=quiz-tiled-feedback]").get_attribute("class") == "feedback wrong"
    assert sco.locator("[data-testid=quiz-bank-feedback]").inner_text() == "Your recorded answer: right."
    assert sco.evaluate("tilelabScore.answer('hierarchy:bank', false, 23, '0')") is False
    # The rest answered (as the views would): 17 more right, 1 wrong -> 21 of 23 = 91 >= 80: passed.
    rest = [key for key in scorm_keys(sco) if key not in json.loads(returning["cmi.suspend_data"])["a"]]
    assert len(rest) == TOTAL - 5
    for i, key in enumerate(rest):
        sco.evaluate("([k, ok]) => tilelabScore.answer(k, ok, TOTAL, 'x')".replace("TOTAL", str(TOTAL)), [key, i != 0])
        status = page.evaluate("window.store['cmi.core.lesson_status']")
        assert status == ("passed" if i == len(rest) - 1 else "incomplete")
    assert page.evaluate("window.store['cmi.core.score.raw']") == "91"
    assert errors == []
    context.close()


def scorm_keys(sco) -> list[str]:
    """The scored questions, as the page's Python knows them."""
    from app.core.score import scored_keys

    return list(scored_keys())


def test_full_package_still_names_a_missing_runtime_file(browser, lms):
    lms.faults["pyodide/pyodide-lock.json"] = "missing"
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(lms.url + "index.html#/hierarchy")
        page.wait_for_function("document.documentElement.dataset.state === 'error'", timeout=READY_MS)
        assert (
            "pyodide/pyodide-lock.json is missing (HTTP 404)" in page.locator("[data-testid=boot-error]").inner_text()
        )
        context.close()
    finally:
        lms.faults.clear()


def test_link_package_relays_the_score_from_the_hosted_origin_only(browser, packages, server):
    lms = Server(packages[1])  # origin A: the LMS and the link package; origin B: the hosted copy
    forger = Server(packages[1])  # origin C
    lms.types.update(MOODLE_TYPES)
    lms.extra["lms.html"] = ("text/html; charset=utf-8", LMS_PAGE.replace("SRC", "launch.html").encode())
    forger.extra["forge.html"] = ("text/html; charset=utf-8", FORGE_PAGE.encode())
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(lms.url + "lms.html")
        page.wait_for_function("window.calls.some(c => c[0] === 'LMSInitialize')")
        hosted = next(f for f in page.frames if f.url.startswith(server.url))
        hosted.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=READY_MS)
        assert hosted.evaluate("tilelabScore.connected()") == "relay"
        box = hosted.locator("[data-testid=quiz-padded]")
        box.fill("1")
        box.press("Enter")
        page.wait_for_function("window.store['cmi.core.score.raw'] !== undefined")
        assert page.evaluate("window.store['cmi.core.score.raw']") == str(round(100 / TOTAL)) == "4"
        assert page.evaluate("window.store['cmi.core.lesson_status']") == "incomplete"

        # Another origin posts a forged answer (and asks for a hello) to the launch page: ignored.
        sets_before = len(calls(page, "LMSSetValue"))
        page.evaluate(
            "src => { const f = document.createElement('iframe'); f.src = src; document.body.append(f); }",
            forger.url + "forge.html",
        )
        page.wait_for_function("() => window.frames.length === 2")
        page.wait_for_timeout(500)
        assert len(calls(page, "LMSSetValue")) == sets_before
        assert "hierarchy:largest" not in page.evaluate("window.store['cmi.suspend_data']")

        # The launch page counts the remaining answers wrong: all answered, 1 of 23 -> failed.
        sco = page.frame(name="sco")
        for key in scorm_keys(sco):
            sco.evaluate(f"k => tilelabScore.answer(k, false, {TOTAL}, '0')", key)
        assert page.evaluate("window.store['cmi.core.lesson_status']") == "failed"
        assert page.evaluate("window.store['cmi.core.score.raw']") == "4"
    finally:
        context.close()
        lms.close()
        forger.close()
