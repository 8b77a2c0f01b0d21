// TileLab's boot guard, run as a classic script before PyScript: it shows the route's static content
// (and its pre-rendered view) at once, then starts the runtime's downloads and PyScript, reports
// loading progress, and turns any start-up failure into a message saying what failed. The other parts
// only declare; this one, last, does each in its order.
/* global hideJspi, watchFailures, watchResources, guardStorage, showRouteWhenParsed, showRoute, readManifest,
   showProgress, startAfterPaint, setStage, ready, fail, takeOver, requestPrerender, prerendered, currentRoute */

hideJspi(); // before Pyodide can look
watchFailures();
watchResources();
guardStorage(); // before PyScript's module opens its first store
showRouteWhenParsed();
// What site/main.py and the shell call, and the route's drawing (prerender/NAME.js) when it comes.
window.tilelabBoot = { stage: setStage, ready: ready, fail: fail, takeOver: takeOver, prerendered: prerendered };
requestPrerender(currentRoute()); // now, beside the stylesheets: it holds the first paint
window.addEventListener("hashchange", showRoute);
readManifest();
document.addEventListener("DOMContentLoaded", function () {
  showRoute();
  showProgress();
  startAfterPaint();
});
