// Routes and the pre-render that stands for one: what an address asks for, with no page to read.
/* exported parseRoute, standsFor */

// The shell's keys: they change how the page is framed, not what a view shows.
var NEUTRAL_KEYS = ["embed", "lock", "relay"];

// "#/tiling?M=6&N=6" -> { path: "/tiling", params: M=6&N=6 }; no path is the landing page's, "/".
function parseRoute(hash) {
  var address = hash.replace(/^#/, "");
  var query = address.indexOf("?");
  var path = query < 0 ? address : address.slice(0, query);
  var params = new URLSearchParams(query < 0 ? "" : address.slice(query + 1));
  return { path: path || "/", params: params };
}

// Whether a state drawn at build time ({ path: its view's route, address: the parameters it was drawn
// for }) is what the route asks to see: every parameter the route names, but the shell's, drawn as
// named (one it leaves out is the view's default, which the drawing is).
function standsFor(drawn, route) {
  if (drawn.path !== route.path) return false;
  var given = new URLSearchParams(drawn.address);
  var same = true;
  route.params.forEach(function (value, key) {
    if (NEUTRAL_KEYS.indexOf(key) < 0 && given.get(key) !== value) same = false;
  });
  return same;
}
