// The boot guard's parts share one scope once the build wraps them (tools/sitebuild/bootscript.py):
// what each gives (/* exported */) and takes (/* global */) must meet, and no two may declare one name.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const { test } = require("node:test");
const globals = require("globals");
const { PARTS, source, load } = require("./parts.js");

const names = fs.readdirSync(PARTS).filter((name) => name.endsWith(".js"));

function listed(text, kind) {
  const comment = new RegExp(`/\\* ${kind} ([^*]*)\\*/`).exec(text);
  return comment ? comment[1].split(/[\s,]+/).filter(Boolean) : [];
}

// The names a part declares at its top level (the parts are formatted: top level is column 0).
function declared(text) {
  return [...text.matchAll(/^(?:var|function) (\w+)/gm)].map((match) => match[1]);
}

const parts = Object.fromEntries(
  names.map((name) => {
    const text = source(name);
    return [name, { declared: declared(text), gives: listed(text, "exported"), takes: listed(text, "global") }];
  })
);

test("a part gives only names it declares, and takes only names another part gives", () => {
  const given = {};
  for (const [name, part] of Object.entries(parts)) {
    for (const gift of part.gives) {
      assert.ok(part.declared.includes(gift), `${name} exports ${gift}, which it does not declare`);
      given[gift] = name;
    }
  }
  for (const [name, part] of Object.entries(parts)) {
    for (const taken of part.takes) {
      assert.ok(given[taken] && given[taken] !== name, `${name} takes ${taken}, which no other part exports`);
    }
  }
});

test("no two parts declare one name, and none hides one of the browser's", () => {
  const owner = {};
  for (const [name, part] of Object.entries(parts)) {
    for (const declaration of part.declared) {
      assert.equal(owner[declaration], undefined, `${declaration} is declared by ${owner[declaration]} and ${name}`);
      assert.ok(!(declaration in globals.browser), `${name} declares ${declaration}, a name of the browser's`);
      owner[declaration] = name;
    }
  }
});

test("every part but the page's and start.js only declares: it loads with no page", () => {
  for (const name of names.filter((name) => name !== "page.js" && name !== "start.js")) {
    assert.doesNotThrow(() => load([name]), name);
  }
});
