// The boot guard's parts (site/boot/) in Node: each is a classic script's top level, as the build
// concatenates them, so a part run in a fresh context leaves its declarations on that context's global.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const PARTS = path.resolve(__dirname, "..", "..", "site", "boot");

function source(name) {
  return fs.readFileSync(path.join(PARTS, name), "utf8");
}

// Run the named parts, in order, in one new context holding `globals` (beside JavaScript's own):
// returns that context, whose properties are the parts' functions and variables.
function load(names, globals = {}) {
  const context = vm.createContext({ URLSearchParams, DOMException, setTimeout, ...globals });
  for (const name of names) vm.runInContext('"use strict";\n' + source(name), context, { filename: name });
  return context;
}

// Values made in a context are of its realm (its Array, its Object): compared as plain data.
function plain(value) {
  return JSON.parse(JSON.stringify(value));
}

module.exports = { PARTS, source, load, plain };
