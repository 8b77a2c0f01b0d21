// ESLint (flat config) for our JavaScript: `make lint` runs it over site/ and tests/js/.
// The runtime's files (node_modules, dist/) are vendors' and are not linted.
"use strict";

const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  { ignores: ["dist/**", "dist-scorm/**", "node_modules/**"] },
  js.configs.recommended,
  {
    // Classic scripts the page loads, and the boot guard's parts (site/boot/: one scope once the build
    // wraps them, so each names what it takes from the others in /* global */ and gives in /* exported */).
    files: ["site/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
  },
  {
    files: ["site/editor.js"], // an ES module, imported by site/app/editor.py
    languageOptions: { sourceType: "module" },
  },
  {
    files: ["site/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    files: ["site/playworker.js"],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "commonjs", globals: { ...globals.node } },
  },
];
