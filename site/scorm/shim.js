// WebAssembly from bytes when the server sends the wrong MIME type (course packages only).
//
// An LMS serves a package's files with its own MIME table: Moodle's has no `.wasm`, so
// pyodide.asm.wasm arrives as `document/unknown`. Streaming compilation refuses any type but
// application/wasm, and Pyodide 0.27 then stops with only a console message. Loaded before
// anything else, this wraps WebAssembly.instantiateStreaming and compileStreaming: a response
// with the right type streams as before; any other successful response is read whole and
// compiled from its bytes (same result, compiled after the download instead of during it).
// A failed response (404) goes to the original, which rejects, and the boot guard names the file.
(function () {
  "use strict";
  var wasm = self.WebAssembly; // self: the page's window, or the playground's worker (site/playworker.js)
  if (!wasm || !wasm.instantiateStreaming) return;
  var WASM_TYPE = "application/wasm";
  var instantiateStreaming = wasm.instantiateStreaming;
  var compileStreaming = wasm.compileStreaming;

  function fromBytes(response) {
    var type = (response.headers.get("content-type") || "").split(";")[0].trim().toLowerCase();
    return response.ok && type !== WASM_TYPE;
  }

  wasm.instantiateStreaming = function (source, imports) {
    return Promise.resolve(source).then(function (response) {
      if (!fromBytes(response)) return instantiateStreaming.call(wasm, response, imports);
      return response.arrayBuffer().then(function (bytes) {
        return wasm.instantiate(bytes, imports);
      });
    });
  };

  if (compileStreaming) {
    wasm.compileStreaming = function (source) {
      return Promise.resolve(source).then(function (response) {
        if (!fromBytes(response)) return compileStreaming.call(wasm, response);
        return response.arrayBuffer().then(function (bytes) {
          return wasm.compile(bytes);
        });
      });
    };
  }
  self.tilelabWasmShim = true; // lets tests see the shim is in place
})();
