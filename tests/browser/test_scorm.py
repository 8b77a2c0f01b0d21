"""Course packages in Chromium, graded by a real SCORM 1.2 runtime: scorm-again's Scorm12API.

The LMS page (tests' own, a few lines) hosts the unzipped package the way Moodle's player does:
the SCO in an iframe below the window that holds `API`, or in a popup that finds it through
`window.opener`; the data model starts with the manifest's masteryscore (80) in
cmi.student_data.mastery_score, lesson_mode normal and credit, and scorm-again runs with
`mastery_override` on, so at LMSFinish it applies the mastery rule to whatever score.raw holds.
What is asserted is what that runtime stored. Beside it, `moodleFinish` re-applies Moodle's own
rule to the same data at LMSFinish (mod/scorm/datamodels/scorm_12.js, StoreData(cmi, true): when
masteryscore and cmi.core.score.raw are both non-empty, raw >= mastery is passed, else failed; a
status still 'not attempted' becomes 'completed'), so both LMSs' verdicts are checked.

The server sends Moodle's MIME types (`document/unknown` for `.wasm`, `.mjs`, `.whl`) and the
package sits in a sub-path, as in Moodle's pluginfile.php URLs. The link package frames the test
server's dist/ (another origin) and relays its score; forged messages are ignored. With Chromium's
third-party storage blocked, the site framed from another site (page on localhost, frame on
127.0.0.1) still starts, in a plain iframe and in the link package.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest

from tools.harness import Server, launch_persistent
from tools.sitebuild import scorm
from tools.sitebuild.paths import NODE_MODULES

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
SUB_PATH = "pluginfile.php/42/mod_scorm/content/1/"  # where Moodle serves an unzipped package
SCORM_AGAIN = NODE_MODULES / "scorm-again" / "dist" / "scorm12.js"

# The LMS page: scorm-again's Scorm12API as window.API, every call logged with its result, the
# SCO in a frame (#frame) or a popup (#popup); the hash after that is the returning student's data.
LMS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LMS</title>
<script src="/scorm-again.js"></script>
<script>
var hash = location.hash.slice(1).split("|");
var how = hash[0] || "frame";
var earlier = JSON.parse(decodeURIComponent(hash[1] || "%7B%7D"));
window.calls = [];
window.finished = null;
var api = new Scorm12API({ mastery_override: true, autocommit: false, logLevel: 5 });
api.loadFromFlattenedJSON(Object.assign({
  "cmi.core.student_id": "s1", "cmi.core.student_name": "Student, Test",
  "cmi.core.lesson_mode": "normal", "cmi.core.credit": "credit",
  "cmi.student_data.mastery_score": "MASTERY", "cmi.launch_data": "LAUNCH_DATA",
  "cmi.core.entry": Object.keys(earlier).length ? "resume" : "ab-initio"
}, earlier));
// Moodle's rule at LMSFinish (mod/scorm/datamodels/scorm_12.js, StoreData(cmi, true)).
function moodleFinish(cmi) {
  var status = cmi.lesson_status;
  if (status === "not attempted") status = "completed";
  if (cmi.lesson_mode === "normal" && cmi.credit === "credit" && cmi.mastery !== "" && cmi.raw !== "") {
    status = parseFloat(cmi.raw) >= parseFloat(cmi.mastery) ? "passed" : "failed";
  }
  return status;
}
function snapshot() {
  var core = api.cmi.core;
  return { lesson_status: core.lesson_status, raw: core.score.raw, lesson_mode: core.lesson_mode,
    credit: core.credit, mastery: api.cmi.student_data.mastery_score };
}
var real = {};
window.API = {};
["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit", "LMSGetLastError",
 "LMSGetErrorString", "LMSGetDiagnostic"].forEach(function (name) {
  real[name] = api[name].bind(api);
  window.API[name] = function () {
    var args = Array.prototype.slice.call(arguments);
    var before = name === "LMSFinish" ? snapshot() : null;
    var result = real[name].apply(null, args);
    if (name !== "LMSGetLastError") window.calls.push([name].concat(args, [String(result)]));
    if (before && String(result) === "true") {
      var core = api.cmi.core;
      window.finished = { moodle: moodleFinish(before), lesson_status: core.lesson_status,
        raw: core.score.raw, exit: lastSet("cmi.core.exit"), session_time: lastSet("cmi.core.session_time"),
        suspend_data: api.cmi.suspend_data };
    }
    return result;
  };
});
// cmi.core.exit and session_time are write-only in the data model: what the SCO last set.
function lastSet(name) {
  var found = window.calls.filter(function (c) { return c[0] === "LMSSetValue" && c[1] === name; });
  return found.length ? found[found.length - 1][2] : "";
}
window.stored = function () {
  var core = api.cmi.core;
  return { "cmi.core.lesson_status": core.lesson_status, "cmi.core.score.raw": core.score.raw,
    "cmi.suspend_data": api.cmi.suspend_data, "cmi.core.exit": lastSet("cmi.core.exit") };
};
function launch() {
  if (how === "popup") window.sco = window.open("SRC", "tilelab-sco", "width=1200,height=900");
  else document.getElementById("sco").src = "SRC";
}
</script></head><body>
<iframe name="sco" id="sco" title="course" width="1200" height="900"></iframe>
<button id="launch" type="button">Launch</button>
<script>
document.getElementById("launch").addEventListener("click", launch);
if (how !== "popup") launch(); // a popup needs the student's click, as in Moodle's "New window"
</script>
</body></html>"""

FORGE_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>forger</title></head><body>
<script>
parent.frames["sco"].postMessage({type: "tilelab:answer", key: "hierarchy:largest", correct: true,
  total: 1, text: "forged"}, "*");
parent.frames["sco"].postMessage({type: "tilelab:hello?"}, "*");
</script></body></html>"""


def unzip(archive: Path, target: Path) -> Path:
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(target)
    return target


def lms_page(counts: tuple[str, ...]) -> bytes:
    page = LMS_PAGE.replace("MASTERY", str(scorm.MASTERY_SCORE)).replace("LAUNCH_DATA", scorm.launch_data(counts))
    return page.replace("SRC", "/" + SUB_PATH + scorm.LAUNCH).encode()


def lms_server(root: Path, counts: tuple[str, ...] = scorm.normalise_counts(None)) -> Server:
    serving = Server(root)
    serving.types.update(MOODLE_TYPES)
    serving.extra["lms.html"] = ("text/html; charset=utf-8", lms_page(counts))
    serving.extra["scorm-again.js"] = ("application/javascript", SCORM_AGAIN.read_bytes())
    return serving


@pytest.fixture(scope="module")
def packages(tmp_path_factory, server):
    """The packages as `python build.py --scorm --scorm-url <the hosted copy>` builds them, each
    unzipped into an LMS's sub-path; the link package also with puzzles counted."""
    out = tmp_path_factory.mktemp("scorm")
    made = {
        "full": scorm.full_package(out / "full"),
        "link": scorm.link_package(out / "link", server.url),  # the hosted copy: the test server's dist/
        "link-puzzles": scorm.link_package(out / "link-puzzles", server.url, counts="quiz,checkpoints,puzzles"),
    }
    return {name: unzip(archive, out / f"lms-{name}" / SUB_PATH).parents[4] for name, archive in made.items()}


@pytest.fixture(scope="module")
def lms(packages):
    serving = lms_server(packages["full"])
    yield serving
    serving.close()


def counted(counts: str = "quiz,checkpoints") -> list[str]:
    return list(scorm.counted_keys(scorm.normalise_counts(counts)))


def open_lms(browser, lms: Server, how: str = "frame", earlier: dict | None = None):
    """The LMS page and the SCO (a frame or a popup), once the app is ready."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    address = lms.url + "lms.html#" + how + "|" + quote(json.dumps(earlier or {}))
    if how == "popup":
        page.goto(address)
        with context.expect_page() as opened:
            page.click("#launch")
        sco = opened.value
        sco.on("pageerror", lambda error: errors.append(str(error)))
    else:
        page.goto(address)
        sco = page.frame(name="sco")
    sco.wait_for_url(re.compile(r".*/index\.html#/hierarchy.*"), timeout=10_000)
    sco.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_MS)
    message = sco.evaluate("document.getElementById('boot-error-text').textContent")
    assert sco.evaluate("document.documentElement.dataset.state") == "ready", message
    return context, page, sco, errors


def calls(page, name: str | None = None) -> list[list[str]]:
    return [call for call in page.evaluate("window.calls") if name is None or call[0] == name]


def answer(sco, key: str, text: str) -> None:
    box = sco.locator(f"[data-testid=quiz-{key}]")
    box.fill(text)
    box.press("Enter")
    sco.wait_for_function("k => document.querySelector(`[data-testid=quiz-${k}-feedback]`).textContent !== ''", arg=key)


def progress(sco) -> tuple[str, str, str]:
    line = sco.locator("[data-testid=score-progress]")
    return line.get_attribute("data-answered"), line.get_attribute("data-total"), line.inner_text()


def leave(page, how: str = "frame") -> dict:
    """The student leaves (the LMS unloads the frame, or the popup closes): LMSFinish, once."""
    if how == "popup":
        page.evaluate("window.sco.close()")
    else:
        page.evaluate("document.getElementById('sco').src = 'about:blank'")
    page.wait_for_function("window.finished !== null")
    assert len(calls(page, "LMSFinish")) == 1
    return page.evaluate("window.finished")


def save_log(page, name: str) -> None:
    """TILELAB_SCORM_LOG=dir keeps the runtime's call log of a session (for the record)."""
    target = os.environ.get("TILELAB_SCORM_LOG")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        (Path(target) / f"{name}.json").write_text(json.dumps(calls(page), indent=1))


def test_early_exit_is_incomplete_then_relaunch_restores_and_passes(browser, lms):
    keys = counted()
    context, page, sco, errors = open_lms(browser, lms)
    # Started despite document/unknown, from a sub-path: the shim compiled the WebAssembly from bytes.
    assert sco.evaluate("window.tilelabWasmShim === true && !navigator.serviceWorker.controller")
    assert f"{SUB_PATH}pyodide/pyodide.js" in lms.log and not any(p.endswith("pyodide.mjs") for p in lms.log)
    assert calls(page, "LMSInitialize") == [["LMSInitialize", "", "true"]]
    assert progress(sco)[:2] == ("0", str(len(keys)))
    assert sco.evaluate("tilelabScore.counted()") == keys

    answer(sco, "naive", "268,435,456")  # right (the quiz asks at N = 512 when the form's is 1024: 2N³)
    answer(sco, "tiled", "1")  # wrong
    answer(sco, "tiled", "33,554,432")  # a right second try: accepted, but the first answer counts
    assert sco.locator("[data-testid=quiz-tiled-feedback]").get_attribute("class") == "feedback right"
    answer(sco, "naive", "5")  # practice: the first answer counts
    stored = page.evaluate("stored()")
    assert stored["cmi.core.lesson_status"] == "incomplete"
    assert stored["cmi.core.score.raw"] == ""  # withheld until every counted question is answered
    assert stored["cmi.core.exit"] == "suspend"
    assert json.loads(stored["cmi.suspend_data"])["a"] == {
        "hierarchy:naive": [1, "268,435,456"],
        "hierarchy:tiled": [0, "1"],
    }
    assert progress(sco)[:2] == ("2", str(len(keys)))
    assert f"2 of {len(keys)} scored questions answered" in progress(sco)[2]
    # A puzzle is not counted in a package built without puzzles.
    assert sco.evaluate("tilelabScore.answer('puzzle:copy', true, 99, 'solved')") is False

    finished = leave(page)  # early exit: both LMSs keep it incomplete (no score to apply mastery to)
    assert (finished["lesson_status"], finished["moodle"], finished["raw"]) == ("incomplete", "incomplete", "")
    assert re.fullmatch(r"\d{4}:\d{2}:\d{2}", finished["session_time"])
    returning = page.evaluate("stored()")
    returning.pop("cmi.core.exit")  # write-only: an LMS keeps it, but hands back cmi.core.entry instead
    assert errors == []
    context.close()

    # The student comes back: the answers are on screen again and still count once.
    context, page, sco, errors = open_lms(browser, lms, earlier=returning)
    assert sco.locator("[data-testid=quiz-naive]").input_value() == "268,435,456"
    assert sco.locator("[data-testid=quiz-tiled-feedback]").get_attribute("class") == "feedback wrong"
    assert sco.evaluate("tilelabScore.answer('hierarchy:tiled', true, 0, '0')") is False
    assert progress(sco)[:2] == ("2", str(len(keys)))
    rest = [key for key in keys if key not in ("hierarchy:naive", "hierarchy:tiled")]
    for key in rest:
        assert page.evaluate("stored()['cmi.core.score.raw']") == ""
        sco.evaluate("k => tilelabScore.answer(k, true, 0, 'x')", key)
    right = len(keys) - 1
    raw = str(round(100 * right / len(keys)))
    stored = page.evaluate("stored()")
    assert (stored["cmi.core.lesson_status"], stored["cmi.core.score.raw"], stored["cmi.core.exit"]) == (
        "passed",
        raw,
        "",
    )
    assert f"{len(keys)} scored questions answered: {raw} %, passed" in progress(sco)[2]
    finished = leave(page)
    assert (finished["lesson_status"], finished["moodle"], finished["raw"]) == ("passed", "passed", raw)
    save_log(page, "full-frame-relaunch")
    assert errors == []
    context.close()


def test_guided_answers_are_stored_as_interactions(browser, lms):
    """Each guided answer (app.core.score.ScoreBook.interaction) is one cmi.interactions.n in the LMS, counted or not;
    the score is untouched (tests/js/scorm.test.js checks the formats, the id's cleaning and the relay)."""
    context, page, sco, errors = open_lms(browser, lms)
    sent = [
        ("tiling:block-loads", "numeric", "18", "wrong", 12.3),
        ("tiling:barrier", "choice", "block", "correct", 4),
        ("tiling:cells-a", "performance", "A:2,5", "correct", 7.25),
    ]
    for item in sent:
        assert sco.evaluate("a => tilelabScore.interaction(...a)", list(item)) is True
    stored = page.evaluate("JSON.parse(JSON.stringify(api.cmi.interactions))")
    assert [
        (i["id"], i["type"], i["student_response"], i["result"]) for i in (stored[str(n)] for n in range(len(sent)))
    ] == [item[:4] for item in sent]
    assert page.evaluate("api.cmi.interactions._count") == len(sent)
    assert page.evaluate("stored()")["cmi.core.score.raw"] == "" and progress(sco)[0] == "0"
    leave(page)
    save_log(page, "full-frame-interactions")
    assert errors == []
    context.close()


def test_popup_all_answered_below_mastery_is_failed(browser, lms):
    keys = counted()
    context, page, sco, errors = open_lms(browser, lms, how="popup")
    assert sco.evaluate("tilelabScore.connected()") == "lms"  # found through window.opener
    answer(sco, "bank", "32")  # right
    half = len(keys) // 2
    for i, key in enumerate(k for k in keys if k != "hierarchy:bank"):
        sco.evaluate("([k, ok]) => tilelabScore.answer(k, ok, 0, 'x')", [key, i < half])
    raw = str(round(100 * (half + 1) / len(keys)))
    assert int(raw) < scorm.MASTERY_SCORE
    assert page.evaluate("stored()['cmi.core.lesson_status']") == "failed"
    finished = leave(page, "popup")
    assert (finished["lesson_status"], finished["moodle"], finished["raw"]) == ("failed", "failed", raw)
    assert errors == []
    context.close()


def test_a_refused_second_start_is_reported_not_silent(browser, lms):
    context, page, sco, errors = open_lms(browser, lms)
    leave(page)  # LMSFinish: scorm-again's session is over
    page.evaluate("src => { document.getElementById('sco').src = src; }", "/" + SUB_PATH + "index.html#/hierarchy")
    page.wait_for_function("window.calls.filter(c => c[0] === 'LMSInitialize').length === 2")
    sco = page.frame(name="sco")
    sco.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_MS)
    assert [call[-1] for call in calls(page, "LMSInitialize")] == ["true", "false"]
    line = sco.locator("[data-testid=score-progress]")
    assert line.get_attribute("data-state") == "refused"
    assert "could not reconnect" in line.inner_text()
    assert sco.evaluate("tilelabScore.connected()") == "refused"
    context.close()


def relay_session(browser, root: Path, counts: str, server: Server):
    lms = lms_server(root, scorm.normalise_counts(counts))
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.goto(lms.url + "lms.html#frame")
    page.wait_for_function("window.calls.some(c => c[0] === 'LMSInitialize')")
    hosted = next(f for f in page.frames if f.url.startswith(server.url))
    hosted.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=READY_MS)
    assert hosted.evaluate("tilelabScore.connected()") == "relay"
    assert re.search(
        r"[?&]relay=[0-9a-f]{32}", page.frame(name="sco").evaluate("document.getElementById('tilelab').src")
    )
    return lms, context, page, hosted


def test_link_package_relays_from_the_hosted_origin_with_its_nonce_only(browser, packages, server):
    keys = counted()
    lms, context, page, hosted = relay_session(browser, packages["link"], "quiz,checkpoints", server)
    forger = Server(packages["link"])
    forger.extra["forge.html"] = ("text/html; charset=utf-8", FORGE_PAGE.encode())
    try:
        sco = page.frame(name="sco")
        box = hosted.locator("[data-testid=quiz-padded]")
        box.fill("1")
        box.press("Enter")
        page.wait_for_function("stored()['cmi.suspend_data'] !== ''")
        stored = page.evaluate("stored()")
        assert (stored["cmi.core.lesson_status"], stored["cmi.core.score.raw"]) == ("incomplete", "")
        assert progress(sco)[:2] == ("1", str(len(keys)))  # the package's own total, not the frame's

        # Another origin posts a forged answer (and asks for a hello) to the launch page: ignored.
        sets_before = len(calls(page, "LMSSetValue"))
        page.evaluate(
            "src => { const f = document.createElement('iframe'); f.src = src; document.body.append(f); }",
            forger.url + "forge.html",
        )
        page.wait_for_function("() => window.frames.length === 2")
        page.wait_for_timeout(500)
        # The hosted frame itself, without the nonce, is not heard either.
        hosted.evaluate(
            "parent.postMessage({type: 'tilelab:answer', key: 'hierarchy:largest', correct: true, text: 'x'}, '*')"
        )
        page.wait_for_timeout(300)
        assert len(calls(page, "LMSSetValue")) == sets_before
        assert "hierarchy:largest" not in page.evaluate("stored()['cmi.suspend_data']")

        # The rest answered wrong in the hosted copy (as its views would): 1 of 14 -> failed.
        for key in keys:
            hosted.evaluate("k => tilelabScore.answer(k, false, 999, '0')", key)
        page.wait_for_function("stored()['cmi.core.lesson_status'] === 'failed'")
        raw = str(round(100 / len(keys)))
        finished = leave(page)
        assert (finished["lesson_status"], finished["moodle"], finished["raw"]) == ("failed", "failed", raw)
        save_log(page, "link-frame")
    finally:
        context.close()
        lms.close()
        forger.close()


def test_puzzles_count_only_when_chosen(browser, packages, server):
    keys = counted("quiz,checkpoints,puzzles")
    assert len(keys) > len(counted()) and "puzzle:copy" in keys
    lms, context, page, hosted = relay_session(browser, packages["link-puzzles"], "quiz,checkpoints,puzzles", server)
    try:
        sco = page.frame(name="sco")
        assert progress(sco)[1] == str(len(keys))
        for key in counted():  # quiz and checkpoints only: not done yet
            hosted.evaluate("k => tilelabScore.answer(k, true, 0, 'x')", key)
        page.wait_for_function(
            "n => (JSON.parse(stored()['cmi.suspend_data'] || '{}').a || {}) && "
            "Object.keys(JSON.parse(stored()['cmi.suspend_data'] || '{\"a\":{}}').a).length === n",
            arg=len(counted()),
        )
        assert page.evaluate("stored()['cmi.core.lesson_status']") == "incomplete"
        for key in keys[len(counted()) :]:
            hosted.evaluate("k => tilelabScore.answer(k, true, 0, 'solved')", key)
        page.wait_for_function("stored()['cmi.core.lesson_status'] === 'passed'")
        assert leave(page)["moodle"] == "passed"
    finally:
        context.close()
        lms.close()


def test_full_package_still_names_a_missing_runtime_file(browser, lms):
    lms.faults[SUB_PATH + "pyodide/pyodide-lock.json"] = "missing"
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(lms.url + SUB_PATH + "index.html#/hierarchy")
        page.wait_for_function("document.documentElement.dataset.state === 'error'", timeout=READY_MS)
        assert (
            "pyodide/pyodide-lock.json is missing (HTTP 404)" in page.locator("[data-testid=boot-error]").inner_text()
        )
        context.close()
    finally:
        lms.faults.clear()


# --- third-party storage refused -------------------------------------------------------------
FRAMING_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title></head><body>
<iframe id="site" title="TileLab" width="1200" height="900" src="SRC"></iframe></body></html>"""


@pytest.fixture(scope="module")
def blocking_browser(browser):
    """Chromium with third-party cookies and storage blocked (the user setting, as a profile pref)."""
    profile = Path(tempfile.mkdtemp(prefix="tilelab-3p-"))
    (profile / "Default").mkdir()
    prefs = {"profile": {"cookie_controls_mode": 1, "block_third_party_cookies": True}}
    (profile / "Default" / "Preferences").write_text(json.dumps(prefs))
    chromium = browser.browser_type  # the session's Playwright: a second one cannot start inside it
    context = launch_persistent(chromium, profile, viewport={"width": 1280, "height": 1000})
    yield context
    context.close()
    shutil.rmtree(profile, ignore_errors=True)


def cross_site(url: str) -> str:
    return url.replace("127.0.0.1", "localhost")


def test_site_starts_framed_cross_site_with_third_party_storage_blocked(blocking_browser, server):
    course = Server(Path(tempfile.mkdtemp()))
    course.extra["course.html"] = (
        "text/html",
        FRAMING_PAGE.replace("SRC", server.url + "#/hierarchy?embed=1").encode(),
    )
    page = blocking_browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(cross_site(course.url) + "course.html")
        frame = next(f for f in page.frames if f.url.startswith(server.url))
        # The browser does refuse this frame its storage.
        refused = frame.evaluate(
            "() => new Promise(r => { try { const q = indexedDB.open('probe'); q.onsuccess = () => r('open');"
            " q.onerror = () => r('refused'); } catch (e) { r('threw'); } })"
        )
        assert refused == "refused"  # site/boot/storage.js passes every name but PyScript's to the browser
        frame.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_MS)
        message = frame.evaluate("document.getElementById('boot-error-text').textContent")
        assert frame.evaluate("document.documentElement.dataset.state") == "ready", message
        assert frame.evaluate("window.tilelabStorageGuard").startswith("memory")
        assert frame.evaluate("() => caches.keys().then(() => 'open', () => 'refused')") == "refused"
        assert errors == []
    finally:
        page.close()
        course.close()


def test_link_package_starts_cross_site_with_third_party_storage_blocked(blocking_browser, packages, server):
    lms = lms_server(packages["link"])
    page = blocking_browser.new_page()
    try:
        page.goto(cross_site(lms.url) + "lms.html#frame")
        page.wait_for_function("window.calls.some(c => c[0] === 'LMSInitialize')")
        hosted = next(f for f in page.frames if f.url.startswith(server.url))
        hosted.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_MS)
        message = hosted.evaluate("document.getElementById('boot-error-text').textContent")
        assert hosted.evaluate("document.documentElement.dataset.state") == "ready", message
        assert hosted.evaluate("() => caches.keys().then(() => 'open', () => 'refused')") == "refused"
        assert hosted.evaluate("tilelabScore.connected()") == "relay"
    finally:
        page.close()
        lms.close()


def test_one_full_guided_session_is_stored_as_interactions(browser, lms):
    """A student goes through #/tiling's guide in the course package, first answers right or wrong, the
    change-it task included: each question's first answer is one cmi.interactions.n in scorm-again (the call
    log, TILELAB_SCORM_LOG, is the record the issue asks for); a shown answer records nothing."""
    from pysim.lessons.guides import guide_for  # the guide the page asks, for these sizes

    sizes = {"M": "4", "N": "4", "K": "8", "T": "2"}
    lesson = guide_for("tiling", sizes)
    context, page, sco, errors = open_lms(browser, lms)
    sco.evaluate("h => { location.hash = h; }", "#/tiling?M=4&N=4&K=8&T=2&guide=1")
    guide = sco.locator("#view-tiling [data-testid=guide]")
    guide.wait_for()
    expected = []
    for moment in [*lesson.moments, lesson.task.moment]:
        if moment is lesson.task.moment:
            guide.locator("[data-testid=guide-change]").click()
        assert guide.locator("[data-testid=guide-question]").inner_text() == moment.question
        if moment.kind == "number":
            response = str(moment.answer + 1)  # wrong first: the first answer is the one recorded
            guide.locator("[data-testid=guide-answer]").fill(response)
            guide.locator("[data-testid=guide-answer]").press("Enter")
            guide.locator("[data-testid=guide-reveal]").click()
            expected.append((moment.key, "numeric", response, "wrong"))
        elif moment.kind == "choice":
            guide.locator(f"[data-testid=guide-choice][data-value='{moment.answer}']").click()
            expected.append((moment.key, "choice", moment.answer, "correct"))
        else:
            for array, row, col in sorted(moment.answer):
                sco.locator(f"#view-tiling [data-array='{array}'][data-index='{row},{col}']").click()
            guide.locator("[data-testid=guide-submit]").click()
            response = ",".join(f"{a}[{r}][{c}]" for a, r, c in sorted(moment.answer))
            expected.append((moment.key, "performance", response, "correct"))
        assert guide.locator("[data-testid=guide-result]").get_attribute("data-value") in ("right", "shown")
        if moment is not lesson.task.moment:
            guide.locator("[data-testid=guide-next]").click()
    stored = page.evaluate("JSON.parse(JSON.stringify(api.cmi.interactions))")
    got = [stored[str(n)] for n in range(page.evaluate("api.cmi.interactions._count"))]
    assert [(i["id"], i["type"], i["result"]) for i in got] == [(k, t, r) for k, t, _, r in expected]
    assert all(i["latency"] for i in got)
    leave(page)
    save_log(page, "guided-session-interactions")
    assert errors == []
    context.close()
