// The end of start-up: Python has built the view, and the service worker may now keep this build.
/* global root, byId */
/* exported ready */

// The service worker (sw.js) keeps this build for repeat visits and offline use. It is
// registered once the app is ready, so its precaching (from the HTTP cache the first
// visit just filled) never competes with start-up. Skipped where a build or page says
// so (<html data-sw="off">, e.g. LMS packages) and wherever workers are unavailable
// (file://, sandboxed frames, opaque origins, some private windows): the site then
// works as before, from the network.
var SW_DELAY_MS = 1000;

function ready() {
  if (root.dataset.state !== "loading") return;
  performance.mark("tilelab:ready");
  root.dataset.state = "ready";
  byId("boot").hidden = true;
  setTimeout(registerServiceWorker, SW_DELAY_MS);
}

function registerServiceWorker() {
  if (root.dataset.sw === "off" || !/^https?:$/.test(location.protocol) || !window.isSecureContext) return;
  try {
    var container = navigator.serviceWorker; // reading it throws in opaque origins
    if (!container) return;
    var controlled = !!container.controller;
    container.register("sw.js").then(
      function (registration) {
        // A controlled page came from the cache: ask now whether a newer build exists,
        // so it installs beside this one and serves the next visit.
        if (controlled) registration.update().catch(function () {});
      },
      function () {}
    );
  } catch {
    // SecurityError: no service worker here; nothing else changes.
  }
}
