// The page every part works on. (The build wraps the parts, in the order tools/sitebuild/bootscript.py
// lists, in one function: their names are shared, and none is a global of the page.)
/* exported root, byId */

var root = document.documentElement;

function byId(id) {
  return document.getElementById(id);
}
