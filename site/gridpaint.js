// Paints the changed cells of a big matrix on its canvas in one call from Python (site/app/widgets/grids.py):
// one call per drawing command, from Python, would cost more than the drawing itself. The cells come
// as columns (typed arrays), their looks as a small table of styles, one per combination of classes.
(function () {
  "use strict";
  var SOLID = [], DASHED = [3, 2], DOTTED = [2, 2];

  // A cell's value as the element grids write it (Python's "{:g}" for these whole and short numbers).
  function text(value) {
    if (value !== value) return "";
    return Number.isInteger(value) ? String(value) : String(+value.toPrecision(6));
  }

  // style: {fill, border, dashed, width, line, outline, hatch, color, bold} ("" for a cue the cell lacks)
  function paint(ctx, pitch, cols, indices, values, styleIds, styles, labels, cursor) {
    var size = pitch - 1;
    var font = "", align = "";  // set only when they change: each assignment of a font is parsed again
    ctx.textBaseline = "middle";
    function setText(newFont, newAlign) {
      if (newFont !== font) ctx.font = font = newFont;
      if (newAlign !== align) ctx.textAlign = align = newAlign;
    }
    for (var i = 0; i < indices.length; i++) {
      var index = indices[i], s = styles[styleIds[i]];
      var x = (index % cols) * pitch, y = Math.floor(index / cols) * pitch;
      ctx.clearRect(x, y, pitch, pitch);
      ctx.fillStyle = s.fill;
      ctx.fillRect(x, y, size, size);
      if (s.hatch) {  // zero-fill: hatching, the second cue besides colour
        ctx.strokeStyle = s.hatch;
        ctx.lineWidth = 2;
        for (var o = -size; o < size; o += 6) {
          ctx.beginPath();
          ctx.moveTo(x + Math.max(o, 0), y + Math.max(-o, 0));
          ctx.lineTo(x + Math.min(o + size, size), y + Math.min(size - o, size));
          ctx.stroke();
        }
      }
      ctx.setLineDash(s.dashed ? DASHED : SOLID);
      ctx.strokeStyle = s.border;
      ctx.lineWidth = s.width;
      ctx.strokeRect(x + 0.5, y + 0.5, size - 1, size - 1);
      ctx.setLineDash(SOLID);
      if (s.line) {  // the followed thread's operands
        ctx.strokeStyle = s.line;
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 2, y + 2, size - 4, size - 4);
      }
      if (s.outline) {  // the followed thread's cell now
        ctx.strokeStyle = s.outline;
        ctx.lineWidth = 3;
        ctx.strokeRect(x + 1.5, y + 1.5, size - 3, size - 3);
      }
      var value = text(values[i]);
      if (value) {
        ctx.fillStyle = s.color;
        setText((s.bold ? "bold " : "") + "10px ui-monospace, monospace", "center");
        ctx.fillText(value, x + size / 2, y + size / 2 + 1);
      }
      var label = labels.get(index);
      if (label) {
        ctx.fillStyle = s.color;
        setText("7px ui-monospace, monospace", "left");
        ctx.fillText(label, x + 2, y + size - 4);
      }
      if (index === cursor.index) {  // the keyboard cursor
        ctx.strokeStyle = cursor.color;
        ctx.setLineDash(DOTTED);
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, y + 1, size - 2, size - 2);
        ctx.setLineDash(SOLID);
      }
    }
  }

  // Many elements' texts and classes in one call from Python (an element grid's changed cells, a
  // monitor's changed values): one assignment per call across the Python-JavaScript bridge would cost
  // more than the update itself. texts[i] / classes[i] is null (None, undefined once converted) where
  // that side of elements[indices[i]] is unchanged.
  function update(elements, indices, texts, classes) {
    for (var i = 0; i < indices.length; i++) {
      var element = elements[indices[i]];
      if (texts[i] != null) element.textContent = texts[i];
      if (classes && classes[i] != null) element.className = classes[i];
    }
  }

  // A picture's changed attributes and texts in one call from Python (site/app/widgets/warp_pictures.py):
  // a step of #/transpose changes about 200 of its SVG shapes' attributes. names[i] "" writes the text.
  function write(elements, names, values) {
    for (var i = 0; i < elements.length; i++) {
      if (names[i]) elements[i].setAttribute(names[i], values[i]);
      else elements[i].textContent = values[i];
    }
  }

  // Values in flight (site/app/widgets/motion.py), placed and set moving in one call: each token is put on
  // its start by a transform, the layer's style is resolved once, and each is given its end, so that the
  // CSS transition (css/tilelab.css .flight) moves it on the compositor. The page's content security policy
  // refuses style attributes in markup, so the places are set here. numbers: x0, y0, x1, y1, width, height
  // per token, in px from the layer's corner.
  function fly(layer, numbers) {
    var tokens = layer.children;
    for (var i = 0; i < tokens.length; i++) {
      var style = tokens[i].style, n = numbers.slice(i * 6, i * 6 + 6);
      style.width = n[4] + "px";
      style.height = n[5] + "px";
      style.transform = "translate(" + n[0] + "px, " + n[1] + "px)";
    }
    if (tokens.length) getComputedStyle(tokens[0]).transform;  // the start is their style before they move
    for (var j = 0; j < tokens.length; j++) {
      tokens[j].style.transform = "translate(" + numbers[j * 6 + 2] + "px, " + numbers[j * 6 + 3] + "px)";
      tokens[j].classList.add("arrived");
    }
  }

  window.tilelabGridPaint = paint;
  window.tilelabUpdate = update;
  window.tilelabWrite = write;
  window.tilelabFly = fly;
})();
