// Failure reports: any start-up failure (a missing runtime file, a wrong MIME type, a Python error)
// turns the page to data-state="error" with a message saying what failed. PyScript itself hangs
// silently on a missing file, hence the checks of the runtime's files (checks.js).
/* global root, byId */
/* exported fail, watchFailures */

function fail(message) {
  if (root.dataset.state === "error") return; // the first failure is the cause
  if (!byId("boot-error-text")) {
    // Failed before the page's body was parsed: report once it is.
    document.addEventListener("DOMContentLoaded", function () {
      fail(message);
    });
    return;
  }
  performance.mark("tilelab:error");
  root.dataset.state = "error";
  byId("boot-error-text").textContent = String(message);
  byId("boot-error").hidden = false;
  byId("boot").hidden = true;
  // Without Python no question is asked: the explanations the views would place are the lesson left to read.
  document.querySelectorAll("template.prose").forEach(function (template) {
    template.replaceWith(template.content);
  });
}

// A rejection or Python error often arrives just before the resource entry
// that explains it; give the specific message a moment to win.
var GENERIC_DELAY_MS = 600;

function failSoon(message) {
  setTimeout(function () {
    fail(message);
  }, GENERIC_DELAY_MS);
}

function describeTarget(target) {
  return target && (target.src || target.href);
}

function watchFailures() {
  window.addEventListener(
    "error",
    function (event) {
      if (event.target && event.target.dataset && "optional" in event.target.dataset) return; // the page starts without it
      var url = describeTarget(event.target);
      if (url) failSoon("Could not load " + url + ". Rebuild the site with `python build.py` and serve dist/.");
      else failSoon("JavaScript error during start-up: " + event.message);
    },
    true
  );
  window.addEventListener("unhandledrejection", function (event) {
    var reason = event.reason;
    failSoon("Start-up failed: " + (reason && reason.message ? reason.message : reason));
  });

  // PyScript shows a Python exception as a .py-error element.
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        if (node.nodeType === 1 && (node.matches(".py-error") || node.querySelector(".py-error"))) {
          failSoon("Python error: " + node.textContent.trim().split("\n").slice(-1)[0]);
        }
      });
    });
  }).observe(root, { childList: true, subtree: true });
}
