// Runtime start: the downloads and PyScript. The runtime starts once the page has painted the
// route's text (the reader's first view, and what Lighthouse takes as the largest paint): the
// preloads of its files, then PyScript itself, which fetches nothing the preloads have not asked for.
// Files the runtime asks for only after the interpreter has booted (NumPy and its bytecode,
// which site/main.py loads) are preloaded once the standard library or the WebAssembly has
// arrived: not sooner, so they do not split the bandwidth with the files the interpreter
// cannot boot without, and long before the interpreter asks, so nothing is fetched twice.
/* global recordDocumentWatchers, setStage, stageNamed, countBytes, showProgress, checkResource */
/* exported noteRouteShown, startAfterPaint, watchResources */

var preloaded = {};
var runtimeStarted = false;
var routeShownAt = Infinity;
// When no paint is reported (a background tab paints nothing; a route whose text is not
// larger than the progress line reports no new largest paint), the runtime starts anyway.
var RUNTIME_START_MS = 1000;

function preload(kind, path, integrity) {
  if (preloaded[path]) return;
  preloaded[path] = true;
  var link = document.createElement("link");
  if (kind === "module") {
    link.rel = "modulepreload";
  } else {
    // What fetch() sends (CORS mode, same-origin credentials), or it would not be reused.
    link.rel = "preload";
    link.as = "fetch";
    link.crossOrigin = "anonymous";
  }
  if (integrity) link.integrity = integrity;
  link.href = path;
  document.head.appendChild(link);
}

// <meta name="NAME" content="KIND PATH [INTEGRITY]"> elements, written by build.py.
function preloadAll(name) {
  document.querySelectorAll('meta[name="' + name + '"]').forEach(function (meta) {
    var parts = meta.content.split(" ");
    preload(parts[0], parts[1], parts[2]);
  });
}

// The route is on screen (while the page is still parsed, as a rule): a paint after this one shows it.
function noteRouteShown() {
  if (routeShownAt === Infinity) routeShownAt = performance.now();
}

function startRuntime() {
  if (runtimeStarted) return;
  runtimeStarted = true;
  performance.mark("tilelab:runtime");
  recordDocumentWatchers(); // PyScript's core sets its watch up as it loads
  var script = document.createElement("script");
  script.type = "module";
  script.src = "pyscript/core.js";
  document.head.appendChild(script); // first: a small file on the way to Pyodide's own requests
  preloadAll("tilelab-preload"); // before the module runs: PyScript then finds them in flight
  if (!window.PerformanceObserver) preloadAll("tilelab-preload-later"); // arrivals unknown: now
}

// A largest paint of the route itself: inside its section (the header paints first, and a pre-render in its
// own file can paint the section a little after it), or of an element since replaced.
function paintsRoute(entry) {
  if (entry.startTime < routeShownAt) return false;
  var element = entry.element;
  var section = document.querySelector("main > section:not([hidden])");
  return !element || !element.isConnected || !section || section.contains(element);
}

function startAfterPaint() {
  setTimeout(startRuntime, RUNTIME_START_MS);
  var types = window.PerformanceObserver && PerformanceObserver.supportedEntryTypes;
  if (!types || types.indexOf("largest-contentful-paint") < 0) return;
  new PerformanceObserver(function (list) {
    if (list.getEntries().some(paintsRoute)) startRuntime();
  }).observe({ type: "largest-contentful-paint", buffered: true });
}

// What the interpreter cannot boot without; once both are in, Python is starting.
var BOOT_FILES = /\/pyodide\/(pyodide\.asm\.wasm|python_stdlib\.zip)$/;
var bootFilesIn = {};

function noteArrival(entry) {
  if (BOOT_FILES.test(entry.name) && entry.responseStatus < 400) {
    preloadAll("tilelab-preload-later");
    bootFilesIn[entry.name] = true;
    // (Observers report late: never after site/main.py has named a later stage.)
    if (Object.keys(bootFilesIn).length === 2 && !stageNamed) setStage("Starting Python…");
  }
}

// Each file the page receives: checked (checks.js), a boot file's arrival noted, Pyodide's bytes counted.
function watchResources() {
  if (!window.PerformanceObserver) return;
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (entry) {
      checkResource(entry);
      noteArrival(entry);
      if (entry.name.indexOf("/pyodide/") >= 0) countBytes(entry);
    });
    showProgress();
  }).observe({ type: "resource", buffered: true });
}
