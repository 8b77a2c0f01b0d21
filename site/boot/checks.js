// Checks of the runtime's files: a broken deployment (a file missing, refused or served with the wrong
// MIME type) is reported by name, at once, without extra requests competing with the downloads.
/* global root, fail, expectBytes, showProgress */
/* exported RUNTIME, checkResource, readManifest */

var RUNTIME = /\/(pyodide\/|pyscript\/|tilelab\.zip$|main\.py$|pyscript\.json$)/;

function relative(url) {
  var base = location.href.replace(/[#?].*$/, "").replace(/[^/]*$/, "");
  return url.indexOf(base) === 0 ? url.slice(base.length) : url;
}

// Every runtime request is checked as it completes (Resource Timing gives its HTTP status and MIME type).
function checkResource(entry) {
  if (!RUNTIME.test(entry.name) || entry.responseStatus === undefined) return;
  var path = relative(entry.name);
  if (entry.responseStatus === 0) {
    // No status: the request failed outright, or an integrity check (the
    // wheels are fetched with SRI) threw the body away. Ask the server.
    probe({ path: path }).then(
      function (ok) {
        if (ok) fail("Runtime file " + path + " could not be loaded (connection dropped or integrity check failed). Rebuild and upload dist/ again.");
      },
      function () {
        fail("Runtime file " + path + " could not be loaded: no response from the server.");
      }
    );
  } else if (entry.responseStatus >= 400) {
    fail("Runtime file " + path + " is missing (HTTP " + entry.responseStatus + "). Upload the whole dist/ folder.");
  } else if (/\.wasm$/.test(path) && entry.contentType && entry.contentType !== "application/wasm" && root.dataset.wasm !== "bytes") {
    // (<html data-wasm="bytes">: a course package, whose shim compiles WebAssembly from bytes.)
    fail("Runtime file " + path + " is served as '" + entry.contentType + "'; the server must send application/wasm.");
  }
}

// Browsers without responseStatus: ask for each runtime file once the page has settled.
function probe(entry) {
  return fetch(entry.path, { method: "HEAD", cache: "no-store" }).then(function (response) {
    var type = response.headers.get("content-type") || "";
    checkResource({ name: response.url, responseStatus: response.status, contentType: type.split(";")[0] });
    return response.ok;
  });
}

// The build's manifest.json: the runtime's size, for the progress bar, and its files, for the probes.
function readManifest() {
  // "no-cache": always this deployment's manifest (revalidated), and kept in the HTTP
  // cache, where the service worker finds it instead of downloading it again.
  fetch("manifest.json", { cache: "no-cache" })
    .then(function (response) {
      if (!response.ok) throw new Error("manifest.json is missing (HTTP " + response.status + ")");
      return response.json();
    })
    .then(function (manifest) {
      var runtime = manifest.files.filter(function (entry) {
        return RUNTIME.test("/" + entry.path);
      });
      runtime.forEach(function (entry) {
        if (/^pyodide\//.test(entry.path)) expectBytes(entry.bytes);
      });
      showProgress();
      if (!window.PerformanceResourceTiming || !("responseStatus" in PerformanceResourceTiming.prototype)) {
        return Promise.all(runtime.map(probe));
      }
    })
    .catch(function (error) {
      fail("Could not check the runtime files: " + error.message);
    });
}
