// Two ways PyScript and Pyodide, as released, would hurt this page, and what stops each.
/* exported hideJspi, recordDocumentWatchers, endDocumentWatch */

// Pyodide 0.27 switches Python's stack (WebAssembly JSPI) wherever the browser offers it, and
// with it the tab can crash, now and then, with JSPI only (pyodide#5702 on 0.27.7; #6106 on 0.28,
// importing large packages). TileLab never suspends Python on a promise, so Pyodide is shown a
// browser without JSPI and takes its ordinary path. The playground's worker does the same.
function hideJspi() {
  ["Suspending", "promising", "Suspender"].forEach(function (name) {
    delete WebAssembly[name];
  });
}

// @pyscript/core 0.6.66 watches the whole document with one MutationObserver (every element added is
// searched for Python scripts and py-* handlers, every attribute set is looked at) for as long as the page
// lives. This page adds no script and no handler after main.py, so that watch ends when Python takes the
// page over (`takeOver`): it was 10 ms of a playground Run's page work, in pieces of 4-6 ms at the end of
// its longest tasks (bench/playground.py --trace), and nothing added later can start Python code.
var documentWatchers = [];
var NativeObserver = null; // the browser's MutationObserver while PyScript's are recorded

function recordDocumentWatchers() {
  NativeObserver = window.MutationObserver;
  if (!NativeObserver) return;
  function RecordingObserver(callback) {
    var watcher = new NativeObserver(callback);
    var observe = watcher.observe;
    watcher.observe = function (target, options) {
      if (target === document) documentWatchers.push(watcher);
      return observe.call(watcher, target, options);
    };
    return watcher;
  }
  RecordingObserver.prototype = NativeObserver.prototype;
  window.MutationObserver = RecordingObserver;
}

function endDocumentWatch() {
  documentWatchers.forEach(function (watcher) {
    watcher.disconnect();
  });
  documentWatchers = [];
  if (NativeObserver) window.MutationObserver = NativeObserver;
}
