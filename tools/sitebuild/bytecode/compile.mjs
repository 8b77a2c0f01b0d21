// Runs compile.py (beside this file) inside Pyodide (node_modules/pyodide) in Node, so the
// bytecode comes from the very interpreter the browser runs. Called by tools/sitebuild/runtime.py:
//
//     node tools/sitebuild/bytecode/compile.mjs WORK NUMPY_WHEEL
//
// WORK holds the inputs and receives WORK/out/ (see compile.py); NUMPY_WHEEL is the wheel
// the site ships.
import { readFileSync } from "node:fs";
import { loadPyodide } from "../../../node_modules/pyodide/pyodide.mjs";

const [work, wheel] = process.argv.slice(2);
try {
  await compile();
} catch (error) {
  console.error(error.message); // a Python traceback; not Pyodide's minified source
  process.exit(1);
}

async function compile() {
  const pyodide = await loadPyodide({ env: { PYTHONNODEBUGRANGES: "1" }, stdout: () => {} });
  await pyodide.loadPackage(wheel, { messageCallback: () => {} });
  pyodide.FS.mkdirTree("/work");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: work }, "/work");
  pyodide.runPython(readFileSync(new URL("./compile.py", import.meta.url), "utf8"));
  pyodide.globals.get("main")("/work");
}
