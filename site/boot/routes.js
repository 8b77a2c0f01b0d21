// Routes and the pre-render that stands for one: what an address asks for, with no page to read.
/* exported parseRoute, standsFor, modeMatches */

// The shell's keys: they change how the page is framed, not what a view shows.
var NEUTRAL_KEYS = ["embed", "lock", "relay"];
// Keys a view reads with a default when the address leaves them out (SPEC §7: a view with a guide opens
// guided unless the address says guide=0). The build draws such a view once per mode (its drawing's `mode`).
var MODE_DEFAULTS = { guide: "1" };

// "#/tiling?M=6&N=6" -> { path: "/tiling", params: M=6&N=6 }; no path is the landing page's, "/".
function parseRoute(hash) {
  var address = hash.replace(/^#/, "");
  var query = address.indexOf("?");
  var path = query < 0 ? address : address.slice(0, query);
  var params = new URLSearchParams(query < 0 ? "" : address.slice(query + 1));
  return { path: path || "/", params: params };
}

// Whether the route asks for the mode a drawing was drawn in ("guide=1", "guide=0"; "" for a view with one
// mode): a mode key the route leaves out is its default.
function modeMatches(mode, route) {
  var same = true;
  new URLSearchParams(mode || "").forEach(function (value, key) {
    var asked = route.params.get(key);
    if ((asked === null ? MODE_DEFAULTS[key] : asked) !== value) same = false;
  });
  return same;
}

// Whether a state drawn at build time ({ path: its view's route, address: the parameters it was drawn
// for, mode }) is what the route asks to see: its mode, and every other parameter the route names, but the
// shell's, drawn as named (one it leaves out is the view's default, which the drawing is).
function standsFor(drawn, route) {
  if (drawn.path !== route.path || !modeMatches(drawn.mode, route)) return false;
  var given = new URLSearchParams(drawn.address);
  var mode = new URLSearchParams(drawn.mode || "");
  var same = true;
  route.params.forEach(function (value, key) {
    if (NEUTRAL_KEYS.indexOf(key) < 0 && !mode.has(key) && given.get(key) !== value) same = false;
  });
  return same;
}
