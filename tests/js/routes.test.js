// Route matching and template choice (site/boot/routes.js): which pre-rendered state stands for an address.
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { load, plain } = require("./parts.js");

const { parseRoute, standsFor, modeMatches } = load(["routes.js"]);

function route(hash) {
  const parsed = parseRoute(hash);
  return { path: parsed.path, params: Object.fromEntries(parsed.params) };
}

test("an address gives its path and its parameters", () => {
  assert.deepEqual(plain(route("#/tiling?M=6&N=6&thread=1,2")), { path: "/tiling", params: { M: "6", N: "6", thread: "1,2" } });
  assert.deepEqual(plain(route("#/ladder")), { path: "/ladder", params: {} });
});

test("no path, or no hash at all, is the landing page", () => {
  for (const hash of ["", "#", "#?embed=1"]) assert.equal(route(hash).path, "/", hash);
});

// What the build drew for /tiling, as its template's data-address says (the view's defaults).
const TILING = { path: "/tiling", address: "M=8&N=8&K=8&T=4&thread=0,0&step=0" };

test("the bare route and the drawn state's own address choose its pre-render", () => {
  assert.equal(standsFor(TILING, parseRoute("#/tiling")), true);
  assert.equal(standsFor(TILING, parseRoute("#/tiling?" + TILING.address)), true);
  assert.equal(standsFor(TILING, parseRoute("#/tiling?K=8&step=0")), true); // a part of it, in any order
});

test("the shell's keys change no view, so the pre-render still stands", () => {
  assert.equal(standsFor(TILING, parseRoute("#/tiling?embed=1&lock=1&relay=abc")), true);
});

test("another size, step or thread than drawn keeps the page as written", () => {
  for (const hash of ["#/tiling?M=6", "#/tiling?step=3", "#/tiling?thread=1,0", "#/tiling?quiz=1"]) {
    assert.equal(standsFor(TILING, parseRoute(hash)), false, hash);
  }
});

test("another route's pre-render never stands, nor one whose container has no route", () => {
  assert.equal(standsFor(TILING, parseRoute("#/register")), false);
  assert.equal(standsFor(TILING, parseRoute("#/")), false);
  assert.equal(standsFor({ path: null, address: TILING.address }, parseRoute("#/tiling")), false);
});

test("of several routes' pre-renders, the address chooses its own route's only", () => {
  const drawn = { "app-tiling": TILING, "app-register": { path: "/register", address: "M=8&N=8&K=8&step=0" } };
  const chosen = (hash) => Object.keys(drawn).filter((id) => standsFor(drawn[id], parseRoute(hash)));
  assert.deepEqual(chosen("#/register?embed=1"), ["app-register"]);
  assert.deepEqual(chosen("#/tiling"), ["app-tiling"]);
  assert.deepEqual(chosen("#/nowhere"), []);
});

// A view with a guide, drawn in both modes (tools/sitebuild/prerender.py): guided (the default) and free.
const GUIDED = { ...TILING, mode: "guide=1" };
const FREE = { ...TILING, address: TILING.address + "&guide=0", mode: "guide=0" };

test("an address without guide= is the guided drawing's, guide=0 the free one's", () => {
  const chosen = (hash) => [GUIDED, FREE].filter((drawn) => standsFor(drawn, parseRoute(hash))).map((d) => d.mode);
  assert.deepEqual(chosen("#/tiling"), ["guide=1"]);
  assert.deepEqual(chosen("#/tiling?guide=1&step=0"), ["guide=1"]);
  assert.deepEqual(chosen("#/tiling?guide=0"), ["guide=0"]);
  assert.deepEqual(chosen("#/tiling?embed=1&guide=0&K=8"), ["guide=0"]);
  assert.deepEqual(chosen("#/tiling?guide=0&step=3"), []);
});

test("a drawing file's mode is fetched only for its own mode; a view with one mode for any", () => {
  assert.equal(modeMatches("guide=1", parseRoute("#/tiling")), true);
  assert.equal(modeMatches("guide=0", parseRoute("#/tiling")), false);
  assert.equal(modeMatches("guide=0", parseRoute("#/tiling?guide=0")), true);
  assert.equal(modeMatches("", parseRoute("#/ladder?guide=0")), true);
});
