// TileLab's score for course packages: the SCORM 1.2 conversation with an LMS.
//
// A classic script, loaded before PyScript. Python (site/app/core/score.py) calls
//   tilelabScore.answer(key, correct, total, text)  the first answer to a question; true if kept
//   tilelabScore.interaction(id, kind, response, result, latency)  one guided answer (cmi.interactions.n)
//   tilelabScore.restored()                         JSON {key: [1|0, text]}: every answer kept so far
// and the answers go to one of:
//   - an LMS: the SCORM 1.2 `API` object found on the window.parent chain, then on the opener's
//     (this page is then the SCO: LMSInitialize, status, suspend_data, LMSCommit after each
//     change, session time and LMSFinish when the page is hidden for good);
//   - a TileLab link package framing this page (site/scorm/link.js): it put a random nonce in
//     this page's address (`relay=`), and once it has said hello with that nonce the answers are
//     posted to it, to the origin that said hello, and nowhere else;
//   - nowhere: outside a course nothing of this runs and nothing breaks.
// The same file runs in the link package's launch page, where it finds the LMS's API itself.
//
// Which questions count is the package's own: the build writes them into the page that is the
// SCO (<meta name="tilelab-scorm-keys">, the same list imsmanifest.xml counts), never taken from
// a frame. A status a gradebook can trust: `incomplete` until every counted question is answered,
// and cmi.core.score.raw is withheld until then. Moodle and scorm-again both apply the manifest's
// masteryscore to score.raw at LMSFinish (raw >= mastery: passed, else failed), so a partial
// score sent early would turn a student who leaves half-way into `failed`. Once all are
// answered, score.raw and passed/failed are sent together, by the same rule the LMS applies.
(function () {
  "use strict";

  var MASTERY = 80; // per cent; imsmanifest.xml states it as adlcp:masteryscore
  var MAX_TEXT = 24; // characters kept per answer (cmi.suspend_data holds at most 4,096)
  var SEARCH_LIMIT = 500; // SCORM 1.2's API search gives up after this many parents
  var INTERACTION_TYPES = ["numeric", "choice", "performance"]; // a guide's number, choice and cells answers
  var RESULTS = ["correct", "wrong"];
  var MAX_RESPONSE = 255; // SCORM 1.2's CMIFeedback

  var keysMeta = document.querySelector('meta[name="tilelab-scorm-keys"]');
  // The counted questions (a package's SCO page), or null (the hosted site: it relays, never counts).
  var counted = keysMeta ? keysMeta.getAttribute("content").split(/\s+/).filter(Boolean) : null;
  var answers = {}; // key -> [1|0, text]
  var session = null; // a Session when an LMS was found
  var relay = null; // {target, origin} once a link package has said hello with our nonce
  var refused = ""; // the LMS's error code when it refused to start (again)
  var progress = null; // the page's "n of m" line, on a package's page

  // --- finding the LMS ----------------------------------------------------------
  function apiIn(win) {
    try {
      return win.API || null; // a cross-origin window throws here: not our LMS
    } catch {
      return null;
    }
  }

  function searchUp(win) {
    for (var hops = 0; win && hops <= SEARCH_LIMIT; hops++) {
      var api = apiIn(win);
      if (api) return api;
      var parent;
      try {
        parent = win.parent;
      } catch {
        return null;
      }
      if (!parent || parent === win) return null;
      win = parent;
    }
    return null;
  }

  function findAPI(win) {
    var api = searchUp(win);
    if (!api && win.opener) {
      try {
        api = searchUp(win.opener);
      } catch {
        api = null;
      }
    }
    return api;
  }

  // --- what the LMS is told -------------------------------------------------------
  function pad(value, width) {
    var text = String(value);
    while (text.length < width) text = "0" + text;
    return text;
  }

  // SCORM 1.2 CMITimespan: HHHH:MM:SS, or HHHH:MM:SS.SS with `hundredths` (an answer's latency is seconds).
  function timespan(ms, hundredths) {
    var total = Math.min(Math.max(0, Math.round(Number(ms) / 10) || 0), 9999 * 360000 + 359999); // in 1/100 s
    var seconds = Math.floor(total / 100);
    var hours = Math.floor(seconds / 3600);
    var text = pad(hours, 4) + ":" + pad(Math.floor(seconds / 60) % 60, 2) + ":" + pad(seconds % 60, 2);
    return hundredths ? text + "." + pad(total % 100, 2) : text;
  }

  function isCounted(key) {
    return !counted || counted.indexOf(key) >= 0;
  }

  function tally() {
    var keys = counted || [];
    var right = 0;
    var answered = 0;
    keys.forEach(function (key) {
      if (!answers[key]) return;
      answered += 1;
      right += answers[key][0];
    });
    var raw = keys.length ? Math.round((100 * right) / keys.length) : 0;
    var done = keys.length > 0 && answered === keys.length;
    return {
      raw: raw,
      answered: answered,
      total: keys.length,
      done: done,
      status: done ? (raw >= MASTERY ? "passed" : "failed") : "incomplete",
    };
  }

  function cleanAnswers(stored) {
    var found = {};
    if (!stored || typeof stored !== "object") return found;
    Object.keys(stored).forEach(function (key) {
      var value = stored[key];
      if (isCounted(key) && Array.isArray(value) && value.length === 2 && (value[0] === 0 || value[0] === 1)) {
        found[key] = [value[0], String(value[1]).slice(0, MAX_TEXT)];
      }
    });
    return found;
  }

  // cmi.suspend_data as this file writes it: {"v":2,"a":{key:[1|0,text]}} (v1 also held a total).
  function parseSuspendData(text) {
    try {
      var data = JSON.parse(text || "{}");
      return cleanAnswers(data && data.a);
    } catch {
      return {}; // not ours, or damaged: start afresh rather than fail
    }
  }

  function Session(api) {
    this.api = api;
    this.started = Date.now();
    this.finished = false;
  }

  Session.prototype.set = function (name, value) {
    this.api.LMSSetValue(name, String(value));
  };

  Session.prototype.get = function (name) {
    return String(this.api.LMSGetValue(name) || "");
  };

  Session.prototype.start = function () {
    var result;
    try {
      result = String(this.api.LMSInitialize(""));
    } catch {
      result = "false";
    }
    if (result !== "true") {
      var code;
      try {
        code = String(this.api.LMSGetLastError());
      } catch {
        code = "";
      }
      refused = code || "unknown";
      return false;
    }
    this.started = Date.now();
    this.finished = false;
    var earlier = parseSuspendData(this.get("cmi.suspend_data"));
    Object.keys(earlier).forEach(function (key) {
      if (!answers[key]) answers[key] = earlier[key];
    });
    this.set("cmi.core.score.min", "0");
    this.set("cmi.core.score.max", "100");
    if (!tally().done && this.get("cmi.core.score.raw") !== "") this.set("cmi.core.score.raw", ""); // an older build's partial score
    this.report();
    return true;
  };

  Session.prototype.report = function () {
    var state = tally();
    if (state.done) this.set("cmi.core.score.raw", state.raw); // withheld until then: see the top
    this.set("cmi.core.lesson_status", state.status);
    this.set("cmi.suspend_data", JSON.stringify({ v: 2, a: answers }));
    this.set("cmi.core.exit", state.done ? "" : "suspend");
    this.api.LMSCommit("");
  };

  Session.prototype.finish = function () {
    if (this.finished) return;
    this.finished = true;
    this.set("cmi.core.session_time", timespan(Date.now() - this.started));
    this.api.LMSFinish("");
  };

  // --- the page's "n of m" ------------------------------------------------------------
  function showProgress() {
    if (!progress) return;
    var state = tally();
    var text;
    if (refused) {
      text =
        "TileLab could not reconnect to your course (the LMS refused a new session, error " +
        refused +
        "): answers given now are not recorded. Close this page and launch the activity again.";
    } else if (!session) {
      text = "Not connected to a course: answers are not recorded. " + state.total + " questions would count.";
    } else if (state.done) {
      text = "All " + state.total + " scored questions answered: " + state.raw + " %, " + state.status + ".";
    } else {
      text = state.answered + " of " + state.total + " scored questions answered.";
    }
    progress.textContent = text;
    progress.setAttribute("data-answered", String(state.answered));
    progress.setAttribute("data-total", String(state.total));
    progress.setAttribute("data-state", refused ? "refused" : session ? state.status : "offline");
  }

  function mountProgress() {
    if (!counted || progress) return;
    progress = document.createElement("p");
    progress.id = "tilelab-score";
    progress.setAttribute("role", "status");
    progress.setAttribute("data-testid", "score-progress");
    document.body.insertBefore(progress, document.body.firstChild);
    showProgress();
  }

  // --- the link package's relay ---------------------------------------------------------
  var HELLO = "tilelab:hello"; // link package -> this page: {nonce, answers: JSON text}
  var ASK = "tilelab:hello?"; // this page -> its parent: "say hello if you are a link package"
  var ANSWER = "tilelab:answer"; // this page -> the link package: {nonce, key, correct, text}
  var NONCE = (function () {
    var found = /[?&]relay=([A-Za-z0-9_-]{16,64})(?:&|$)/.exec(location.hash);
    return found ? found[1] : "";
  })();

  function listenForLinkPackage() {
    if (!NONCE || window.parent === window) return; // only a link package's frame relays
    window.addEventListener("message", function (event) {
      var data = event.data;
      if (session || relay || !data || data.type !== HELLO || event.source !== window.parent) return;
      if (data.nonce !== NONCE) return; // not the page that framed us with this address
      relay = { target: event.source, origin: event.origin };
      document.documentElement.setAttribute("data-quiz", "on"); // a course: ask the checkpoints too
      var earlier = {};
      try {
        earlier = cleanAnswers(JSON.parse(String(data.answers || "{}")));
      } catch {
        earlier = {};
      }
      Object.keys(earlier).forEach(function (key) {
        if (!answers[key]) answers[key] = earlier[key];
      });
    });
    window.parent.postMessage({ type: ASK }, "*"); // carries nothing
  }

  // --- what Python (and link.js) call -------------------------------------------------------
  function answer(key, correct, questions, text) {
    key = String(key);
    if (answers[key] || !isCounted(key)) return false; // the first answer counts; others not at all
    answers[key] = [correct ? 1 : 0, String(text).slice(0, MAX_TEXT)];
    if (session && !session.finished) session.report();
    if (relay) {
      relay.target.postMessage(
        { type: ANSWER, nonce: NONCE, key: key, correct: !!correct, text: answers[key][1] },
        relay.origin
      );
    }
    showProgress();
    return true;
  }

  function restored() {
    return JSON.stringify(answers);
  }

  // cmi.interactions.n for one guided answer (SPEC §7), so a teacher sees which predictions a class gets
  // wrong. Only to an LMS: a link package's relay carries scores, and outside a course nothing is kept.
  // Every answer is one, counted or not (what counts is the package's --scorm-counts, via answer()).
  // SCORM 1.2 has interactions write-only: n is the LMS's own cmi.interactions._count, read each time.
  function identifier(id) {
    // CMIIdentifier: no white space or unprintable characters, at most 255.
    var text = String(id).replace(/[^A-Za-z0-9_.:-]/g, "_").slice(0, 255);
    return text || "interaction";
  }

  function interaction(id, kind, response, result, latencySeconds) {
    if (!session || session.finished) return false;
    if (INTERACTION_TYPES.indexOf(kind) < 0 || RESULTS.indexOf(result) < 0) return false;
    var n = parseInt(session.get("cmi.interactions._count"), 10) || 0;
    var at = "cmi.interactions." + n + ".";
    session.set(at + "id", identifier(id));
    session.set(at + "type", kind);
    session.set(at + "student_response", String(response).slice(0, MAX_RESPONSE));
    session.set(at + "result", result);
    session.set(at + "latency", timespan(Number(latencySeconds) * 1000, true));
    session.api.LMSCommit("");
    return true;
  }

  window.tilelabScore = {
    answer: answer,
    interaction: interaction,
    restored: restored,
    connected: function () {
      return session ? "lms" : relay ? "relay" : refused ? "refused" : "";
    },
    counted: function () {
      return counted ? counted.slice() : null;
    },
    mastery: MASTERY,
  };
  window.tilelabScorm = { findAPI: findAPI, timespan: timespan };

  var api = findAPI(window);
  if (api) {
    var started = new Session(api);
    if (started.start()) {
      session = started;
      // pagehide covers closing, navigating away and the LMS removing the frame.
      window.addEventListener("pagehide", function () {
        if (session) session.finish();
      });
      // Back from the back-forward cache: the LMS session was finished; start a new one, and
      // if the LMS refuses, say so on the page instead of recording nothing in silence.
      window.addEventListener("pageshow", function (event) {
        if (!event.persisted || !session || !session.finished) return;
        if (!session.start()) session = null;
        showProgress();
      });
    }
  }
  if (!session && !refused) listenForLinkPackage();
  if (document.body) mountProgress();
  else document.addEventListener("DOMContentLoaded", mountProgress);
})();
