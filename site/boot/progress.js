// The progress line: the stage start-up has reached, and the runtime's bytes downloaded so far.
/* global root, byId */
/* exported setStage, stageNamed, expectBytes, countBytes, showProgress */

var stageNamed = false; // a stage after the downloads has been shown
var expectedBytes = 0;
var loadedBytes = 0;
var counted = {}; // the URLs whose bytes are in loadedBytes

// The progress line changes without laying the page out: while the pre-rendered view is on screen,
// every layout from here to the view Python builds is one that Lighthouse's Speed Index weighs (the
// layout-based half of its estimate), late. So the stages are labels written in the page, the current
// one unhidden (css/tilelab.css shows it by opacity), and the bar and its byte count are drawn.
function setStage(text) {
  stageNamed = true;
  performance.mark("tilelab:" + text);
  var stage = byId("boot-stage");
  if (!stage || root.dataset.state !== "loading") return;
  Array.prototype.forEach.call(stage.children, function (label) {
    if (label.textContent === text) label.removeAttribute("aria-hidden");
    else label.setAttribute("aria-hidden", "true");
  });
}

function expectBytes(bytes) {
  expectedBytes += bytes;
}

// As the manifest counts them (not gzip), each file once (a preload and the fetch that reuses it are two entries).
function countBytes(entry) {
  if (counted[entry.name]) return;
  counted[entry.name] = true;
  loadedBytes += entry.decodedBodySize || 0;
}

var BAR_PX = 96; // of the canvas's 216 CSS pixels; the byte count is written after it
var palette = null;

function drawProgress(canvas, fraction, text) {
  var ratio = window.devicePixelRatio || 1;
  if (!palette) {
    var style = getComputedStyle(root);
    var own = getComputedStyle(canvas);
    palette = { fill: style.getPropertyValue("--accent").trim(), track: style.getPropertyValue("--line").trim(), text: own.color };
    palette.font = own.fontSize + " " + own.fontFamily;
    // As written, the canvas's size is its CSS size; it draws at the screen's resolution.
    palette.width = canvas.width;
    palette.height = canvas.height;
    canvas.width = palette.width * ratio;
    canvas.height = palette.height * ratio;
  }
  var g = canvas.getContext("2d");
  var height = palette.height;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, palette.width, height);
  g.fillStyle = palette.track;
  g.fillRect(0, height / 2 - 3, BAR_PX, 6);
  g.fillStyle = palette.fill;
  if (fraction === null) {
    for (var x = 0; x < BAR_PX; x += 12) g.fillRect(x, height / 2 - 3, 6, 6); // working: no amount to show
  } else {
    g.fillRect(0, height / 2 - 3, BAR_PX * fraction, 6);
  }
  g.fillStyle = palette.text;
  g.font = palette.font;
  g.textBaseline = "middle";
  g.fillText(text, BAR_PX + 8, height / 2);
}

// The bar counts the runtime's bytes while they download (its values are what assistive technology
// reads); once they are all in, the work left (starting Python, loading NumPy, building the view: the
// stage says which) has no byte count, so the bar turns indeterminate instead of sitting full.
function showProgress() {
  var bar = byId("boot-progress");
  // (Not before the page is parsed: the body may end before the bar, and the colours come with the styles.)
  if (!bar || !expectedBytes || document.readyState === "loading") return;
  if (loadedBytes >= expectedBytes) {
    bar.removeAttribute("aria-valuenow");
    bar.removeAttribute("aria-valuetext");
    drawProgress(bar, null, "");
    return;
  }
  var text = (loadedBytes / 1e6).toFixed(1) + " of " + (expectedBytes / 1e6).toFixed(1) + " MB";
  bar.setAttribute("aria-valuemin", "0");
  bar.setAttribute("aria-valuemax", String(expectedBytes));
  bar.setAttribute("aria-valuenow", String(loadedBytes));
  bar.setAttribute("aria-valuetext", text);
  drawProgress(bar, loadedBytes / expectedBytes, text);
}
