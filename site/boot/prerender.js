// The views drawn at build time (tools/sitebuild/prerender.py) and the route on screen. Each
// <template data-prerender="ID" data-address="..."> holds what the view of container ID draws for
// that address. It stands in for the container's content while the address asks for that state
// (routes.js), until Python builds the view.
/* global root, byId, parseRoute, standsFor, endDocumentWatch, noteRouteShown */
/* exported takeOver, showRoute, showRouteWhenParsed */

var written = {}; // container id -> its nodes as the page wrote them, while a pre-render stands in
var takenOver = false;

function currentRoute() {
  return parseRoute(location.hash);
}

// What a template holds: its view's route (that of the section around its container) and the address drawn.
function drawnOf(template) {
  var container = byId(template.dataset.prerender);
  var section = container && container.closest("[data-route]");
  return { path: section ? section.dataset.route : null, address: template.dataset.address };
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
}

function showPrerendered(route) {
  if (takenOver) return;
  document.querySelectorAll("template[data-prerender]").forEach(function (template) {
    var id = template.dataset.prerender;
    var container = byId(id);
    var wanted = standsFor(drawnOf(template), route);
    if (wanted && !written[id]) {
      var content = template.content.cloneNode(true);
      content.querySelectorAll("[data-prerender-style]").forEach(applyStyle);
      written[id] = Array.prototype.slice.call(container.childNodes);
      container.replaceChildren(content);
    } else if (!wanted && written[id]) {
      putBack(id);
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
  showPrerendered(route);
  noteRouteShown();
}

// The route (and its pre-render) is shown as soon as the parser has passed its section, not once
// the whole page is parsed: the templates of the other routes after it are most of the page.
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
