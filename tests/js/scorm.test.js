// Guided answers as SCORM 1.2 cmi.interactions.n (site/scorm/score.js, SPEC §7), stored by the real runtime
// the browser tests grade with: scorm-again's Scorm12API, as the LMS's `API` on the page's window.
// SCORM_CALL_LOG=1 prints the session's calls (the note's log).
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
const SCORE = fs.readFileSync(path.join(ROOT, "site", "scorm", "score.js"), "utf8");
const SCORM_AGAIN = fs.readFileSync(path.join(ROOT, "node_modules", "scorm-again", "dist", "scorm12.js"), "utf8");
const COUNTED = "smem:block-loads hierarchy:largest";

// A stand-in for the page: what score.js reads of window and document, and nothing more.
function element() {
  return { setAttribute() {}, getAttribute: () => null, textContent: "" };
}

function pageDocument() {
  const meta = { getAttribute: () => COUNTED };
  return {
    body: { insertBefore() {} },
    documentElement: element(),
    createElement: element,
    addEventListener() {},
    querySelector: (selector) => (selector.includes("tilelab-scorm-keys") ? meta : null),
  };
}

// The page's window, with scorm-again as `API` (every call logged with its result), or no LMS at all.
function page({ lms = true, hash = "" } = {}) {
  const context = vm.createContext({ console, setTimeout, clearTimeout, Date, JSON, Math });
  context.window = context;
  context.self = context;
  context.parent = context;
  context.document = pageDocument();
  context.location = { hash };
  context.addEventListener = () => {};
  context.postMessage = () => {};
  context.calls = [];
  if (lms) {
    vm.runInContext(SCORM_AGAIN, context, { filename: "scorm12.js" });
    const runtime = new context.Scorm12API({ autocommit: false, logLevel: 5 });
    runtime.loadFromFlattenedJSON({ "cmi.core.lesson_mode": "normal", "cmi.core.credit": "credit" });
    context.runtime = runtime;
    context.API = {};
    for (const name of ["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit", "LMSGetLastError"]) {
      context.API[name] = (...args) => {
        const result = runtime[name](...args);
        if (name !== "LMSGetLastError") context.calls.push([name, ...args, String(result)]);
        return result;
      };
    }
  }
  vm.runInContext(SCORE, context, { filename: "score.js" });
  return context;
}

// What the LMS stored: interactions are write-only to the SCO, so read as the LMS commits them (toJSON).
function stored(runtime) {
  const all = JSON.parse(JSON.stringify(runtime.cmi.interactions));
  return Object.keys(all).map((n) => {
    const item = all[n];
    return { id: item.id, type: item.type, student_response: item.student_response, result: item.result, latency: item.latency };
  });
}

test("one session's guided answers are stored as cmi.interactions.n in order", () => {
  const lms = page();
  const score = lms.window.tilelabScore;
  assert.equal(score.connected(), "lms");
  const before = lms.calls.length;
  assert.equal(score.interaction("tiling:block-loads", "numeric", "18", "wrong", 12.345), true);
  assert.equal(score.interaction("tiling:block-loads", "numeric", "12", "correct", 3.2), true);
  assert.equal(score.interaction("tiling:barrier", "choice", "block", "correct", 4), true);
  assert.equal(score.interaction("tiling:cells-a", "performance", "A:0,1 A:0,2", "correct", 3725.5), true);
  assert.equal(score.answer("smem:block-loads", true, 2, "12"), true); // the score still counts as before
  assert.deepEqual(stored(lms.runtime), [
    { id: "tiling:block-loads", type: "numeric", student_response: "18", result: "wrong", latency: "00:00:12.35" },
    { id: "tiling:block-loads", type: "numeric", student_response: "12", result: "correct", latency: "00:00:03.20" },
    { id: "tiling:barrier", type: "choice", student_response: "block", result: "correct", latency: "00:00:04" },
    { id: "tiling:cells-a", type: "performance", student_response: "A:0,1 A:0,2", result: "correct", latency: "01:02:05.5" },
  ]);
  assert.equal(lms.runtime.cmi.interactions._count, 4);
  // Sent as CMITimespan HHHH:MM:SS.SS; scorm-again keeps its own normal form of the same span (above).
  const sent = lms.calls.filter((call) => call[0] === "LMSSetValue" && call[1].endsWith(".latency")).map((call) => call[2]);
  assert.deepEqual(sent, ["0000:00:12.35", "0000:00:03.20", "0000:00:04.00", "0001:02:05.50"]);
  const log = lms.calls.slice(before).filter((call) => call[0] !== "LMSGetValue");
  assert.ok(log.every((call) => call[call.length - 1] === "true"), JSON.stringify(log)); // the LMS refused none
  assert.equal(lms.runtime.cmi.core.score.raw, ""); // one of two counted questions: no score yet
  if (process.env.SCORM_CALL_LOG) console.log(lms.calls.map((call) => JSON.stringify(call)).join("\n"));
});

test("an id is made a CMIIdentifier, and an unknown type or result is not sent", () => {
  const lms = page();
  const score = lms.window.tilelabScore;
  assert.equal(score.interaction("tiling: a b\n" + "x".repeat(300), "numeric", "1", "correct", 1), true);
  assert.equal(score.interaction("tiling:x", "fill-in", "1", "correct", 1), false);
  assert.equal(score.interaction("tiling:x", "numeric", "1", "right", 1), false);
  const [item] = stored(lms.runtime);
  assert.equal(item.id.length, 255);
  assert.match(item.id, /^tiling:_a_b_x+$/);
  assert.equal(lms.runtime.cmi.interactions._count, 1);
});

test("outside a course, and in a link package's frame, no interaction is kept", () => {
  assert.equal(page({ lms: false }).window.tilelabScore.interaction("tiling:b", "numeric", "1", "correct", 1), false);
  const framed = page({ lms: false, hash: "#/tiling?relay=abcdefghijklmnop" });
  assert.equal(framed.window.tilelabScore.interaction("tiling:b", "numeric", "1", "correct", 1), false);
});
