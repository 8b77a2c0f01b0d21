// The playground's worker: its own Pyodide, NumPy and pysim, so a student's kernel runs off the
// page's thread (site/app/views/playground/runner.py starts it, times each request and terminates
// it when a request overruns, crashes the interpreter, or the student presses Stop).
//
// It loads the files the page itself loaded, at the same URLs: the interpreter pyscript.json
// names (a course package renames it), the NumPy wheel of Pyodide's lock file, and the archives
// of pyscript.json's "files" (our Python, NumPy's bytecode), so they come from the HTTP cache or
// the service worker instead of the network a second time. Requests and replies are JSON text,
// answered by pysim.play.session.Session.
//
// In:  {kind: "start", wasmBytes} once, then {kind: "request", id, text}, one at a time.
// Out: {kind: "ready", startMs, heapBytes, resources, stackSwitching}, {kind: "failed", message} (cannot start),
//      {kind: "progress", id, threads, steps}, {kind: "reply", id, text, heapBytes, began, ended},
//      {kind: "crashed", id, message} (the interpreter died or raised: the page starts a fresh worker).

// As on the page (site/boot/pyscript-fixes.js): Pyodide must not see WebAssembly JSPI, with which it can crash.
for (const name of ["Suspending", "promising", "Suspender"]) delete WebAssembly[name];

let session = null;
let pyodide = null;

// A meta CSP does not reach a worker, and a static host sends no header that would: this thread, where
// students' code runs, could reach any server. Once it has loaded what it needs, it keeps no way out:
// every network API of a worker's global scope is deleted (WebIDL makes them configurable) before any
// student code runs. `import()` cannot be deleted; student code never reaches JavaScript (pysim.play
// refuses imports), so this is the second wall, not the first.
const NETWORK_APIS = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker", "SharedWorker", "caches"];

function closeNetwork() {
  for (const name of NETWORK_APIS) {
    // On the global object or, in Chromium, on its prototypes (WorkerGlobalScope's): deleted wherever it is.
    for (let holder = self; holder !== null; holder = Object.getPrototypeOf(holder)) {
      if (Object.prototype.hasOwnProperty.call(holder, name)) delete holder[name];
    }
    if (name in self) throw new Error("the worker could not close " + name);
  }
}

// The size of Pyodide's WebAssembly memory: what this worker's Python holds, and never gives back.
function heapBytes() {
  const heap = pyodide && pyodide._module && pyodide._module.HEAPU8;
  return heap ? heap.buffer.byteLength : 0;
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error("could not load " + url + " (HTTP " + response.status + ")");
  return response;
}

async function start(options) {
  const begun = performance.now();
  // A course package's LMS may send .wasm with another type: compile it from bytes, as the page does.
  if (options.wasmBytes) await import("./scorm/shim.js");
  const config = await (await fetchOk("pyscript.json")).json();
  const interpreter = new URL(config.interpreter, self.location.href).href;
  const { loadPyodide } = await import(interpreter);
  pyodide = await loadPyodide({ indexURL: new URL(".", interpreter).href });
  await pyodide.loadPackage("numpy", { messageCallback: () => {} });
  for (const [archive, target] of Object.entries(config.files)) {
    const bytes = await (await fetchOk(new URL(archive, self.location.href))).arrayBuffer();
    pyodide.unpackArchive(bytes, "zip", { extractDir: target.replace(/\*$/, "") });
  }
  session = pyodide.pyimport("pysim.play.session").Session();
  closeNetwork();
  const resources = performance.getEntriesByType("resource").map((entry) => ({
    name: entry.name,
    transferSize: entry.transferSize,
    encodedBodySize: entry.encodedBodySize,
  }));
  const stackSwitching = Boolean(pyodide._module.jspiSupported); // Pyodide's own choice, for tests
  self.postMessage({ kind: "ready", startMs: performance.now() - begun, heapBytes: heapBytes(), resources, stackSwitching });
}

function answer(message) {
  const id = message.id;
  const progress = (threads, steps) => self.postMessage({ kind: "progress", id, threads, steps });
  // When it began and ended on the shared clock (ms since the epoch): the page marks them beside its own.
  const began = performance.timeOrigin + performance.now();
  try {
    const text = session.handle(message.text, progress);
    const ended = performance.timeOrigin + performance.now();
    self.postMessage({ kind: "reply", id, text, heapBytes: heapBytes(), began, ended });
  } catch (error) {
    // A Python error the session did not catch, or Pyodide's fatal error (a C stack overflow in
    // the parser): this interpreter cannot be trusted again.
    const lines = String((error && error.message) || error).trim().split("\n");
    self.postMessage({ kind: "crashed", id, message: lines[lines.length - 1] });
  }
}

self.addEventListener("message", (event) => {
  const message = event.data;
  if (message.kind === "start") {
    start(message).catch((error) => self.postMessage({ kind: "failed", message: String((error && error.message) || error) }));
  } else if (message.kind === "request") {
    answer(message);
  }
});
