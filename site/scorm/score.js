// TileLab's score for course packages: the SCORM 1.2 conversation with an LMS.
//
// A classic script, loaded before PyScript. Python (site/app/score.py) calls
//   tilelabScore.answer(key, correct, total, text)  the first answer to a question; true if counted
//   tilelabScore.restored()                         JSON {key: [1|0, text]}: every answer counted so far
// and the answers go to one of:
//   - an LMS: the SCORM 1.2 `API` object found on the window.parent chain, then on the opener's
//     (this page is then the SCO: LMSInitialize, status, score, suspend_data, LMSCommit after each
//     change, session time and LMSFinish when the page is hidden for good);
//   - a TileLab link package framing this page (site/scorm/link.js), once it has said hello with
//     postMessage: the answers are posted to it, to the origin that said hello, and nowhere else;
//   - nowhere: outside a course nothing of this runs and nothing breaks.
// The same file runs in the link package's launch page, where it finds the LMS's API itself.
(function () {
  "use strict";

  var MASTERY = 80; // per cent; imsmanifest.xml states it as adlcp:masteryscore
  var MAX_TEXT = 24; // characters kept per answer (cmi.suspend_data holds at most 4,096)
  var SEARCH_LIMIT = 500; // SCORM 1.2's API search gives up after this many parents

  var answers = {}; // key -> [1|0, text]
  var total = 0;
  var session = null; // a Session when an LMS was found
  var relay = null; // {target, origin} once a link package has said hello

  // --- finding the LMS ----------------------------------------------------------
  function apiIn(win) {
    try {
      return win.API || null; // a cross-origin window throws here: not our LMS
    } catch (error) {
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
      } catch (error) {
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
      } catch (error) {
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

  // SCORM 1.2 CMITimespan: HHHH:MM:SS.
  function timespan(ms) {
    var seconds = Math.max(0, Math.floor(ms / 1000));
    var hours = Math.min(Math.floor(seconds / 3600), 9999);
    return pad(hours, 4) + ":" + pad(Math.floor(seconds / 60) % 60, 2) + ":" + pad(seconds % 60, 2);
  }

  function tally() {
    var right = 0;
    var answered = 0;
    Object.keys(answers).forEach(function (key) {
      answered += 1;
      right += answers[key][0];
    });
    var raw = total ? Math.round((100 * right) / total) : 0;
    var done = total > 0 && answered >= total;
    return { raw: raw, status: done ? (raw >= MASTERY ? "passed" : "failed") : "incomplete", done: done };
  }

  function cleanAnswers(stored) {
    var found = {};
    if (!stored || typeof stored !== "object") return found;
    Object.keys(stored).forEach(function (key) {
      var value = stored[key];
      if (Array.isArray(value) && value.length === 2 && (value[0] === 0 || value[0] === 1)) {
        found[key] = [value[0], String(value[1]).slice(0, MAX_TEXT)];
      }
    });
    return found;
  }

  // cmi.suspend_data as this file writes it: {"v":1,"t":total,"a":{key:[1|0,text]}}.
  function parseSuspendData(text) {
    try {
      var data = JSON.parse(text || "{}");
      if (data && typeof data.t === "number") total = data.t;
      return cleanAnswers(data && data.a);
    } catch (error) {
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

  Session.prototype.start = function () {
    if (String(this.api.LMSInitialize("")) !== "true") return false;
    answers = parseSuspendData(String(this.api.LMSGetValue("cmi.suspend_data") || ""));
    var status = String(this.api.LMSGetValue("cmi.core.lesson_status") || "");
    var state = tally();
    this.set("cmi.core.score.min", "0");
    this.set("cmi.core.score.max", "100");
    if (!(state.done && (status === "passed" || status === "failed"))) this.set("cmi.core.lesson_status", "incomplete");
    this.set("cmi.core.exit", state.done ? "" : "suspend");
    this.api.LMSCommit("");
    return true;
  };

  Session.prototype.report = function () {
    var state = tally();
    this.set("cmi.core.score.raw", state.raw);
    this.set("cmi.core.score.min", "0");
    this.set("cmi.core.score.max", "100");
    this.set("cmi.core.lesson_status", state.status);
    this.set("cmi.suspend_data", JSON.stringify({ v: 1, t: total, a: answers }));
    this.set("cmi.core.exit", state.done ? "" : "suspend");
    this.api.LMSCommit("");
  };

  Session.prototype.finish = function () {
    if (this.finished) return;
    this.finished = true;
    this.set("cmi.core.session_time", timespan(Date.now() - this.started));
    this.api.LMSFinish("");
  };

  // --- the link package's relay ---------------------------------------------------------
  var HELLO = "tilelab:hello"; // link package -> this page: {answers: JSON text}
  var ASK = "tilelab:hello?"; // this page -> its parent: "say hello if you are a link package"
  var ANSWER = "tilelab:answer"; // this page -> the link package: one answer

  function listenForLinkPackage() {
    window.addEventListener("message", function (event) {
      var data = event.data;
      if (session || !data || data.type !== HELLO || event.source !== window.parent) return;
      relay = { target: event.source, origin: event.origin };
      document.documentElement.setAttribute("data-quiz", "on"); // a course: ask the checkpoints too
      var earlier = {};
      try {
        earlier = cleanAnswers(JSON.parse(String(data.answers || "{}")));
      } catch (error) {
        earlier = {};
      }
      Object.keys(earlier).forEach(function (key) {
        if (!answers[key]) answers[key] = earlier[key];
      });
    });
    if (window.parent !== window) window.parent.postMessage({ type: ASK }, "*"); // carries nothing
  }

  // --- what Python calls ----------------------------------------------------------------
  function answer(key, correct, questions, text) {
    key = String(key);
    if (answers[key]) return false; // the first answer counts
    answers[key] = [correct ? 1 : 0, String(text).slice(0, MAX_TEXT)];
    total = Number(questions) || total;
    if (session) session.report();
    if (relay) {
      relay.target.postMessage(
        { type: ANSWER, key: key, correct: !!correct, total: total, text: answers[key][1] },
        relay.origin
      );
    }
    return true;
  }

  function restored() {
    return JSON.stringify(answers);
  }

  window.tilelabScore = {
    answer: answer,
    restored: restored,
    connected: function () {
      return session ? "lms" : relay ? "relay" : "";
    },
    mastery: MASTERY,
  };
  window.tilelabScorm = { findAPI: findAPI, timespan: timespan };

  var api = findAPI(window);
  if (api) {
    session = new Session(api);
    if (!session.start()) {
      session = null;
    } else {
      // pagehide covers closing, navigating away and the LMS removing the frame; the page may
      // come back from the back-forward cache, but the LMS session is over by then.
      window.addEventListener("pagehide", function () {
        session.finish();
      });
    }
  }
  if (!session) listenForLinkPackage();
})();
