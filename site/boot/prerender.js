// The views drawn at build time (tools/sitebuild/prerender.py) and the route on screen. Each route's
// drawing is a file of its own, prerender/NAME.js, named in the page's head by
// <meta name="tilelab-prerender" content="ROUTE FILE [MODE]">: a call of prerendered() with what the view of
// container ID draws for an address. It stands in for the container's content while the address asks
// for that state (routes.js), until Python builds the view. A view with a guide is drawn in two modes, each
// a file (guide=1, the default, and guide=0, the free view): an address fetches its mode's file alone.
/* global root, byId, parseRoute, standsFor, modeMatches, endDocumentWatch, noteRouteShown */
/* exported takeOver, showRoute, showRouteWhenParsed, requestPrerender, prerendered, currentRoute */

var written = {}; // container id -> its nodes as the page wrote them, while a pre-render stands in
var takenOver = false;
var drawings = {}; // container id -> [{ path, address, mode, template }] as their files brought them
var shown = {}; // container id -> the drawing standing in for its content
var requested = {}; // file -> true once asked for

// The route's drawing, asked for once. Asked while the page's head is parsed (start.js), it holds the
// first paint until it has come or failed (blocking="render"): the first frame shows the view as
// drawn, not the placeholder it would replace a moment later, which would lay the page out twice. A
// route named later (a link followed before Python is up) shows its drawing when it comes.
function requestPrerender(route) {
  var file = prerenderFile(route);
  if (!file || requested[file] || takenOver) return;
  requested[file] = true;
  var script = document.createElement("script");
  script.src = file;
  script.setAttribute("blocking", "render");
  script.dataset.optional = ""; // without it the route shows its placeholder: not a failed start (failure.js)
  document.head.appendChild(script);
}

function prerenderFile(route) {
  var metas = document.querySelectorAll('meta[name="tilelab-prerender"]');
  for (var i = 0; i < metas.length; i++) {
    var parts = metas[i].content.split(" ");
    if (parts[0] === route.path && modeMatches(parts[2], route)) return parts[1];
  }
  return null;
}

// What a drawing's file calls: { route, container, address, mode, markup }.
function prerendered(drawing) {
  var template = document.createElement("template");
  template.innerHTML = drawing.markup;
  var drawn = { path: drawing.route, address: drawing.address, mode: drawing.mode || "", template: template };
  (drawings[drawing.container] = drawings[drawing.container] || []).push(drawn);
  showPrerendered(currentRoute());
}

function currentRoute() {
  return parseRoute(location.hash);
}

// Inline styles (a grid's --cols, a canvas's size) travel as data-prerender-style: the CSP
// refuses style attributes in markup, not styles set through the CSSOM.
function applyStyle(element) {
  element.dataset.prerenderStyle.split(";").forEach(function (declaration) {
    var colon = declaration.indexOf(":");
    element.style.setProperty(declaration.slice(0, colon), declaration.slice(colon + 1));
  });
  element.removeAttribute("data-prerender-style");
}

function putBack(id) {
  byId(id).replaceChildren.apply(byId(id), written[id]);
  delete written[id];
  delete shown[id];
}

// A container once the parser has passed its whole section (content put in sooner would be followed
// by the rest of the page's own), else null.
function parsedContainer(id) {
  var container = byId(id);
  var section = container && container.closest("[data-route]");
  return section && (section.nextSibling || document.readyState !== "loading") ? container : null;
}

function showPrerendered(route) {
  if (takenOver) return;
  Object.keys(drawings).forEach(function (id) {
    var container = parsedContainer(id);
    if (!container) return; // shown once it is (showRouteWhenParsed)
    var wanted = drawings[id].filter(function (drawn) {
      return standsFor(drawn, route);
    })[0];
    if (written[id] && shown[id] !== wanted) putBack(id);
    if (wanted && !written[id]) {
      var content = wanted.template.content.cloneNode(true);
      content.querySelectorAll("[data-prerender-style]").forEach(applyStyle);
      written[id] = Array.prototype.slice.call(container.childNodes);
      shown[id] = wanted;
      container.replaceChildren(content);
    }
  });
}

// Called by site/main.py in the task that then builds the view on screen (site/app/core/shell.py):
// every container is as written again, the page the view's code builds on (as it did at build time),
// and the browser paints nothing between the pre-render and the view built in its place.
function takeOver() {
  endDocumentWatch();
  takenOver = true;
  Object.keys(written).forEach(putBack);
}

function showRoute() {
  var route = currentRoute();
  var sections = document.querySelectorAll("[data-route]");
  var known = false;
  sections.forEach(function (section) {
    known = known || section.dataset.route === route.path;
  });
  sections.forEach(function (section) {
    section.hidden = section.dataset.route !== (known ? route.path : "/");
  });
  document.querySelectorAll("nav a[data-nav]").forEach(function (link) {
    if (link.dataset.nav === route.path) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  });
  root.classList.toggle("embed", route.params.get("embed") === "1");
  root.classList.toggle("lock", route.params.get("lock") === "1"); // as the shell will: the form stays hidden
  requestPrerender(route);
  showPrerendered(route);
  noteRouteShown();
}

// The route (and its pre-render) is shown as soon as the parser has passed its section, not once
// the whole page is parsed.
function showRouteWhenParsed() {
  var path = currentRoute().path;
  var parsed = new MutationObserver(function () {
    var sections = document.querySelectorAll("main > [data-route]");
    for (var i = 0; i < sections.length; i++) {
      if (sections[i].dataset.route === path && sections[i].nextSibling) {
        parsed.disconnect();
        showRoute();
        return;
      }
    }
  });
  parsed.observe(root, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", function () {
    parsed.disconnect();
  });
}
