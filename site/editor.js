// The playground's code editor: CodeMirror 6 as PyScript ships it (dist/pyscript/), imported
// through PyScript's own `codemirror` export, so no hashed file name appears here.
//
// CSP: CodeMirror styles itself at run time (the style-mod package). Mounted on a document it
// adds a <style> element, which `style-src 'self'` refuses; mounted in a shadow root it uses a
// constructable stylesheet (adoptedStyleSheets), which CSP does not govern. So the editor lives
// in a shadow root, and its colours come from our CSS custom properties (they inherit inward).
// Loaded by site/app/widgets/editor.py; if anything here fails, the page keeps its plain <textarea>.
import { codemirror } from "./pyscript/core.js";

// CodeMirror's default highlight colours are for a white page, and its escapes' orange is too faint
// even there (3.8:1; WCAG AA asks 4.5:1). Its styles are kept, each colour replaced by our variable
// for the same role (css/tilelab.css, light and dark), keyed by the default's colour.
const SYNTAX_ROLES = {
  "#404740": "meta",
  "#708": "keyword",
  "#219": "atom",
  "#164": "literal",
  "#a11": "string",
  "#e40": "escape",
  "#00f": "definition",
  "#30a": "local",
  "#085": "type",
  "#167": "class",
  "#256": "special",
  "#00c": "property",
  "#940": "comment",
  "#f00": "invalid",
};

function highlightStyle(language) {
  const specs = language.defaultHighlightStyle.specs.map((spec) =>
    spec.color in SYNTAX_ROLES ? { ...spec, color: `var(--code-${SYNTAX_ROLES[spec.color]})` } : spec,
  );
  return language.HighlightStyle.define(specs);
}

export async function createEditor(host, text, label, onChange, onRun) {
  const [core, state, python, view, commands, language] = await Promise.all([
    codemirror.core,
    codemirror.state,
    codemirror.python,
    codemirror.view,
    codemirror.commands,
    codemirror.language,
  ]);
  const { EditorView, basicSetup } = core;
  const root = host.shadowRoot || host.attachShadow({ mode: "open" });
  const theme = EditorView.theme({
    "&": {
      color: "var(--fg, #1d1d27)",
      backgroundColor: "var(--panel, #fff)",
      fontSize: "0.9rem",
      height: "100%",
    },
    ".cm-scroller": {
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      lineHeight: "1.45",
    },
    ".cm-gutters": {
      backgroundColor: "var(--bg, #fbfbfd)",
      color: "var(--muted, #5b5b6b)",
      borderRight: "1px solid var(--line, #d5d5e0)",
    },
    ".cm-activeLine": { backgroundColor: "var(--in-tile, #eef2ff)" },
    ".cm-activeLineGutter": { backgroundColor: "var(--in-tile, #eef2ff)" },
    "&.cm-focused": { outline: "3px solid var(--focus, #b45309)" },
    ".cm-content": { caretColor: "var(--fg, #1d1d27)" },
  });
  const editor = new EditorView({
    parent: root,
    state: state.EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        python.python(),
        language.syntaxHighlighting(highlightStyle(language)),
        // Ctrl+Enter / Cmd+Enter runs (before CodeMirror's own Mod-Enter, which inserts a line).
        state.Prec.highest(view.keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true) }])),
        view.keymap.of([commands.indentWithTab]),
        theme,
        // tabindex: focusable as it is (contenteditable), said so for checkers of its scrolling box (axe).
        EditorView.contentAttributes.of({ "aria-label": label, "data-testid": "editor-content", tabindex: "0" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange();
        }),
      ],
    }),
  });

  return {
    text: () => editor.state.doc.toString(),
    setText(value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    },
    // Select line `number` (1-based), scroll it to the middle and focus the editor.
    gotoLine(number) {
      const doc = editor.state.doc;
      const line = doc.line(Math.min(Math.max(number, 1), doc.lines));
      editor.dispatch({
        selection: { anchor: line.from, head: line.to },
        effects: EditorView.scrollIntoView(line.from, { y: "center" }),
      });
      editor.focus();
    },
    focus: () => editor.focus(),
  };
}
