// TileLab's boot guard, run as a classic script before PyScript: it shows the route's static content
// (and its pre-rendered view) at once, then starts the runtime's downloads and PyScript, reports
// loading progress, and turns any start-up failure into a message saying what failed. The other parts
// only declare; this one, last, does each in its order.
/* global hideJspi, watchFailures, watchResources, guardStorage, showRouteWhenParsed, showRoute, readManifest,
   showProgress, startAfterPaint, setStage, ready, fail, takeOver */

hideJspi(); // before Pyodide can look
watchFailures();
watchResources();
guardStorage(); // before PyScript's module opens its first store
showRouteWhenParsed();
window.tilelabBoot = { stage: setStage, ready: ready, fail: fail, takeOver: takeOver }; // what site/main.py and the shell call
window.addEventListener("hashchange", showRoute);
readManifest();
document.addEventListener("DOMContentLoaded", function () {
  showRoute();
  showProgress();
  startAfterPaint();
});
