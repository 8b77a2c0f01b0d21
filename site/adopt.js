// Python takes the pre-rendered view over in place. The build drew each view's first state with the
// views' own code (tools/sitebuild/prerender.py) and noted the order that code created the elements in
// (the template's data-created, read by site/boot.js). When Python builds the same view for the same
// state (site/app/core/shell.py `build`), its n-th createElement
// gets the n-th pre-rendered element, which is already on screen where it belongs: the browser styles
// and lays out nothing new, so the page Python takes over looks and measures exactly as before (a
// rebuilt view cost the first frame after start-up 60-85 ms of style and layout, which Lighthouse's
// Speed Index weighs as a late paint).
//
// While Python builds (between `start` and `finish`, one synchronous task), the children of the
// adopted elements and of the container are modelled, not changed: a build appends each child to an
// element that already holds it. Reads of that structure are answered from the model, or, for reads
// the model cannot answer (queries, text, geometry), after the part read has been made what the build
// would have made. `finish` makes the rest so: where the build did something the pre-render did not
// show (another environment, a bug), the page still ends exactly as a fresh build leaves it, at the
// cost of styling what changed. Attributes and properties are set on the live elements as the build
// sets them; a write that changes nothing is skipped, so it invalidates nothing.
(function () {
  "use strict";
  var ELEMENT = 1;
  var TEXT = 3;
  var native = {}; // "Proto.name" -> the browser's own descriptor while the patches are on
  var region = null; // the adoption under way: its container, the pre-rendered elements, what it did
  var virtualChildren = new WeakMap(); // modelled element -> the child nodes the build has given it
  var virtualParent = new WeakMap(); // node the build placed or took out -> its modelled parent (or null)
  var claimed = new WeakSet(); // the pre-rendered elements the build has created
  var touched = new WeakMap(); // claimed element -> the attributes the build has written (same value or not)

  function descriptor(proto, name) {
    return native[proto.name + "." + name] || Object.getOwnPropertyDescriptor(proto.prototype, name);
  }
  function call(proto, name, self, args) {
    return descriptor(proto, name).value.apply(self, args);
  }
  function get(proto, name, self) {
    return descriptor(proto, name).get.call(self);
  }
  function liveChildren(node) {
    return Array.prototype.slice.call(get(Node, "childNodes", node));
  }

  function modelled(node) {
    return virtualChildren.has(node);
  }
  function placed(node) {
    return virtualParent.has(node);
  }

  // --- the model ---------------------------------------------------------------------------------
  // The node leaves wherever the build had it. One on screen under a modelled parent that the build had
  // not placed (a pre-rendered node) is nowhere for the build already; one under a real parent leaves it.
  function takeOut(node) {
    if (placed(node)) {
      var parent = virtualParent.get(node);
      if (parent) {
        var siblings = virtualChildren.get(parent);
        siblings.splice(siblings.indexOf(node), 1);
      }
    } else {
      var live = get(Node, "parentNode", node);
      if (live && !modelled(live)) call(Node, "removeChild", live, [node]);
    }
    virtualParent.set(node, null);
  }

  function isRegion(node) {
    return region !== null && call(Node, "contains", region.container, [node]);
  }

  function nodesOf(args) {
    return Array.prototype.map.call(args, function (item) {
      return typeof item === "string" ? document.createTextNode(item) : item;
    });
  }

  function insert(parent, nodes, index) {
    nodes.forEach(function (node, offset) {
      if (node.nodeType === 11) throw new Error("adopt.js: fragments are not modelled");
      if (node.nodeType === ELEMENT && !claimed.has(node) && !isRegion(node)) region.freshPlaced += 1;
      takeOut(node);
      virtualChildren.get(parent).splice(index + offset, 0, node);
      virtualParent.set(node, parent);
    });
  }

  // A node the build moves into a real parent is real there (its own children may stay modelled).
  function leaveModel(node) {
    if (placed(node)) {
      takeOut(node);
      virtualParent.delete(node);
    }
    return node;
  }

  function leavingModel(items) {
    return items.map(function (item) {
      return typeof item === "string" ? item : leaveModel(item);
    });
  }

  // Appending a node that is already the last child changes nothing: a pre-rendered element is
  // appended to a parent the page wrote (a walkthrough's markup), where it is already.
  function appendReal(parent, child, original) {
    leaveModel(child);
    if (get(Node, "lastChild", parent) === child) return child;
    return original.call(parent, child);
  }

  function indexIn(parent, child) {
    var index = virtualChildren.get(parent).indexOf(child);
    if (index < 0) throw new DOMException("The node is not a child of this node.", "NotFoundError");
    return index;
  }

  function setChildren(parent, nodes) {
    virtualChildren.get(parent).slice().forEach(function (child) {
      virtualParent.set(child, null);
    });
    virtualChildren.set(parent, []);
    insert(parent, nodes, 0);
  }

  function parentOf(node) {
    return placed(node) ? virtualParent.get(node) : get(Node, "parentNode", node);
  }

  function siblingOf(node, step, elementsOnly) {
    var parent = parentOf(node);
    if (!parent) return null;
    var siblings = modelled(parent) ? virtualChildren.get(parent) : liveChildren(parent);
    for (var i = siblings.indexOf(node) + step; i >= 0 && i < siblings.length; i += step) {
      if (!elementsOnly || siblings[i].nodeType === ELEMENT) return siblings[i];
    }
    return null;
  }

  // The same elements and texts, attributes aside.
  function sameShape(fresh, live) {
    return (
      fresh.length === live.length &&
      fresh.every(function (node, i) {
        var other = live[i];
        if (node.nodeType !== other.nodeType) return false;
        if (node.nodeType === TEXT) return node.data === other.data;
        if (node.nodeType !== ELEMENT) return node.isEqualNode(other);
        return node.localName === other.localName && sameShape(liveChildren(node), liveChildren(other));
      })
    );
  }

  function copyAttributes(from, to) {
    if (from.nodeType !== ELEMENT) return;
    Array.prototype.forEach.call(to.attributes, function (attribute) {
      if (!from.hasAttribute(attribute.name)) to.removeAttribute(attribute.name);
    });
    Array.prototype.forEach.call(from.attributes, function (attribute) {
      to.setAttribute(attribute.name, attribute.value);
    });
    var children = liveChildren(to);
    liveChildren(from).forEach(function (child, i) {
      copyAttributes(child, children[i]);
    });
  }

  // --- making the page what the build made --------------------------------------------------------
  function sameNode(wanted, live) {
    return wanted === live || (wanted.nodeType === TEXT && live.nodeType === TEXT && wanted.data === live.data);
  }

  function inSync(node) {
    var wanted = virtualChildren.get(node);
    var live = liveChildren(node);
    if (wanted.length !== live.length) return false;
    for (var i = 0; i < wanted.length; i++) if (!sameNode(wanted[i], live[i])) return false;
    return true;
  }

  // The live children of `node` become its modelled ones (a text node equal to the one on screen stays),
  // and so on down; `node` and its subtree are then real (no longer modelled).
  function materialize(node) {
    if (modelled(node)) {
      var wanted = virtualChildren.get(node);
      var live = liveChildren(node);
      for (var i = 0; i < wanted.length; i++) {
        if (live[i] && sameNode(wanted[i], live[i])) {
          wanted[i] = live[i];
        } else {
          changed(node, wanted[i], live[i]);
          call(Node, "insertBefore", node, [wanted[i], get(Node, "childNodes", node)[i] || null]);
          live = liveChildren(node);
        }
      }
      live.slice(wanted.length).forEach(function (extra) {
        call(Node, "removeChild", node, [extra]);
        changed(node, extra);
      });
      virtualChildren.delete(node);
      wanted.forEach(function (child) {
        virtualParent.delete(child);
      });
    }
    liveChildren(node).forEach(materialize);
  }

  // Where the page had to change (the first few, for the message of a test that expects none).
  function changed(parent, child, instead) {
    var stats = region.stats;
    stats.changed += 1;
    if (stats.where.length < 8) stats.where.push(describe(parent) + " > " + describe(child) + (instead ? " for " + describe(instead) : ""));
  }
  function describe(node) {
    if (node.nodeType !== ELEMENT) return JSON.stringify(String(node.data).slice(0, 20));
    return node.localName + (node.getAttribute("class") ? "." + node.getAttribute("class").split(" ").join(".") : "");
  }

  // A read the model cannot answer: the part read is made real first (its ancestors' places matter to
  // geometry, so a geometry read makes the whole view real).
  function real(node) {
    if (!region) return;
    if (node !== region.container && call(Node, "contains", node, [region.container])) return real(region.container);
    if ((modelled(node) || isRegion(node)) && !deepInSync(node)) materialize(node);
  }
  function deepInSync(node) {
    var children = modelled(node) ? virtualChildren.get(node) : liveChildren(node);
    return (!modelled(node) || inSync(node)) && children.every(deepInSync);
  }
  function wholeRegion() {
    if (region) real(region.container);
  }

  // --- the patches ---------------------------------------------------------------------------------
  var methods = {
    Document: {
      createElement: function (original, tag) {
        return claim(tag) || original.apply(this, Array.prototype.slice.call(arguments, 1));
      },
      createElementNS: function (original, namespace, tag) {
        return claim(tag) || original.apply(this, Array.prototype.slice.call(arguments, 1));
      },
      querySelector: query(Document),
      querySelectorAll: query(Document),
      getElementsByClassName: regionRead,
    },
    Node: {
      appendChild: function (original, child) {
        if (!modelled(this)) return appendReal(this, child, original);
        insert(this, [child], virtualChildren.get(this).length);
        return child;
      },
      insertBefore: function (original, child, reference) {
        if (!modelled(this)) return original.call(this, leaveModel(child), reference);
        insert(this, [child], reference ? indexIn(this, reference) : virtualChildren.get(this).length);
        return child;
      },
      removeChild: function (original, child) {
        if (!modelled(this)) return original.call(this, child);
        indexIn(this, child);
        takeOut(child);
        return child;
      },
      replaceChild: function (original, child, old) {
        if (!modelled(this)) return original.call(this, leaveModel(child), old);
        var index = indexIn(this, old);
        takeOut(old);
        insert(this, [child], index);
        return old;
      },
      hasChildNodes: function (original) {
        return modelled(this) ? virtualChildren.get(this).length > 0 : original.call(this);
      },
      contains: function (original, other) {
        if (!region) return original.call(this, other);
        for (var node = other; node; node = parentOf(node)) if (node === this) return true;
        return false;
      },
    },
    Element: {
      append: function (original) {
        if (!modelled(this)) return original.apply(this, leavingModel(Array.prototype.slice.call(arguments, 1)));
        insert(this, nodesOf(Array.prototype.slice.call(arguments, 1)), virtualChildren.get(this).length);
      },
      prepend: function (original) {
        if (!modelled(this)) return original.apply(this, leavingModel(Array.prototype.slice.call(arguments, 1)));
        insert(this, nodesOf(Array.prototype.slice.call(arguments, 1)), 0);
      },
      replaceChildren: function (original) {
        if (!modelled(this)) return original.apply(this, leavingModel(Array.prototype.slice.call(arguments, 1)));
        setChildren(this, nodesOf(Array.prototype.slice.call(arguments, 1)));
      },
      remove: function (original) {
        var parent = parentOf(this);
        if (placed(this) || (parent && modelled(parent))) takeOut(this);
        else original.call(this);
      },
      replaceWith: function (original) {
        var parent = parentOf(this);
        var nodes = Array.prototype.slice.call(arguments, 1);
        var liveParent = get(Node, "parentNode", this);
        if (nodes.length === 1 && nodes[0] === this && liveParent && !modelled(liveParent)) {
          leaveModel(this); // what a query found in the page's markup is the very element the build drew there
          return;
        }
        if (placed(this) && !parent) return; // a node the build has not placed has no parent to replace it in
        if (!parent || !modelled(parent)) return original.apply(this, leavingModel(nodes));
        var index = indexIn(parent, this);
        takeOut(this);
        insert(parent, nodesOf(nodes), index);
      },
      insertAdjacentElement: function (original, where, element) {
        var position = String(where).toLowerCase();
        var parent = position === "beforebegin" || position === "afterend" ? parentOf(this) : this;
        if (!parent || !modelled(parent)) return original.call(this, where, leaveModel(element));
        var index =
          position === "beforebegin" ? indexIn(parent, this)
          : position === "afterend" ? indexIn(parent, this) + 1
          : position === "afterbegin" ? 0
          : virtualChildren.get(parent).length;
        insert(parent, [element], index);
        return element;
      },
      setAttribute: function (original, name, value) {
        touch(this, name);
        if (this.getAttribute(name) !== String(value)) original.call(this, name, value);
      },
      toggleAttribute: function (original, name, force) {
        touch(this, name);
        return original.apply(this, Array.prototype.slice.call(arguments, 1));
      },
      removeAttribute: function (original, name) {
        if (this.hasAttribute(name)) original.call(this, name);
      },
      querySelector: query(Element),
      querySelectorAll: query(Element),
      getElementsByClassName: subtreeRead,
      getElementsByTagName: subtreeRead,
      closest: function (original, selector) {
        if (!region) return original.call(this, selector);
        for (var node = this; node && node.nodeType === ELEMENT; node = parentOf(node)) {
          if (node.matches(selector)) return node;
        }
        return null;
      },
      getBoundingClientRect: geometryRead,
      getClientRects: geometryRead,
      scrollIntoView: geometryRead,
    },
    HTMLElement: { focus: geometryRead },
  };

  var accessors = {
    Node: {
      textContent: {
        get: function (original) {
          real(this);
          return original.call(this);
        },
        set: function (original, value) {
          var text = value === null || value === undefined ? "" : String(value);
          if (modelled(this)) return setChildren(this, text ? [document.createTextNode(text)] : []);
          var only = get(Node, "childNodes", this);
          if (only.length === 1 && only[0].nodeType === TEXT && only[0].data === text) return; // unchanged
          original.call(this, value);
        },
      },
      firstChild: { get: childAt(0, false) },
      lastChild: { get: childAt(-1, false) },
      childNodes: { get: childList(false) },
      parentNode: { get: parentRead },
      parentElement: { get: parentRead },
      nextSibling: { get: sibling(1, false) },
      previousSibling: { get: sibling(-1, false) },
      isConnected: {
        get: function (original) {
          if (!region || (!placed(this) && !isRegion(this))) return original.call(this);
          return region.container.contains(this);
        },
      },
    },
    Element: {
      innerHTML: {
        get: function (original) {
          real(this);
          return original.call(this);
        },
        set: function (original, markup) {
          if (!modelled(this)) return original.call(this, markup);
          var parsed = call(Document, "createElement", document, ["template"]);
          original.call(parsed, markup);
          var fresh = liveChildren(parsed.content);
          var live = liveChildren(this);
          if (!sameShape(fresh, live)) return setChildren(this, fresh);
          // The nodes on screen, with the attributes the markup gives them (a grid's cells, drawn later
          // with their marks, are written plain first).
          fresh.forEach(function (node, i) {
            copyAttributes(node, live[i]);
          });
          setChildren(this, live);
        },
      },
      className: {
        set: function (original, value) {
          touch(this, "class");
          if (this.getAttribute("class") !== String(value)) original.call(this, value);
        },
      },
      children: { get: childList(true) },
      firstElementChild: { get: childAt(0, true) },
      lastElementChild: { get: childAt(-1, true) },
      childElementCount: { get: liveRead },
      nextElementSibling: { get: sibling(1, true) },
      previousElementSibling: { get: sibling(-1, true) },
      outerHTML: { get: liveRead },
      clientWidth: { get: geometryGet },
      clientHeight: { get: geometryGet },
      scrollWidth: { get: geometryGet },
      scrollHeight: { get: geometryGet },
      scrollTop: { get: geometryGet },
    },
    HTMLElement: {
      offsetTop: { get: geometryGet },
      offsetLeft: { get: geometryGet },
      offsetWidth: { get: geometryGet },
      offsetHeight: { get: geometryGet },
    },
  };

  function touch(element, name) {
    if (touched.has(element)) touched.get(element).add(String(name).toLowerCase());
  }

  // Where the build went another way than the pre-render (a tag it did not expect, children moved), a
  // claimed element may be another than the one the build meant, with attributes the build never gave
  // it: those go. (Not `style`: the build sets it through the CSSOM, which may leave no record.) Every
  // other write shows: through the patches, or, for a property reflected as an attribute (hidden,
  // disabled, width...), as a mutation record, which the DOM makes even for an unchanged value.
  function dropUntouchedAttributes() {
    region.observer.takeRecords().forEach(function (record) {
      touch(record.target, record.attributeName);
    });
    region.claimed.forEach(function (element) {
      var written = touched.get(element);
      Array.prototype.slice.call(element.attributes).forEach(function (attribute) {
        if (attribute.name !== "style" && !written.has(attribute.name)) {
          element.removeAttribute(attribute.name);
          region.stats.changed += 1;
        }
      });
    });
  }

  // The pre-rendered element the build's next createElement stands for, or null (the pre-render has none).
  function claim(tag) {
    var n = region.next++;
    var waiting = region.queue[n];
    if (!waiting) return null;
    if (waiting.localName !== String(tag).toLowerCase() && waiting.localName !== String(tag)) {
      region.stats.mismatch = region.stats.mismatch || "element " + n + ": <" + tag + "> built, <" + waiting.localName + "> drawn";
      return null;
    }
    region.queue[n] = null;
    claimed.add(waiting);
    touched.set(waiting, new Set());
    region.claimed.push(waiting);
    region.stats.adopted += 1;
    virtualChildren.set(waiting, []);
    virtualParent.set(waiting, null);
    return waiting;
  }

  function childAt(index, elementsOnly) {
    return function (original) {
      if (!modelled(this)) return original.call(this);
      var nodes = virtualChildren.get(this).filter(function (node) {
        return !elementsOnly || node.nodeType === ELEMENT;
      });
      return nodes[index < 0 ? nodes.length + index : index] || null;
    };
  }
  // `children` / `childNodes` of an element the build is still giving children: a live list of the
  // model's (indexable, with length and item), which is the element's own list once the build is done.
  function childList(elementsOnly) {
    return function (original) {
      if (!modelled(this) || inSync(this)) return original.call(this);
      var node = this;
      var own = original.call(this);
      function nodes() {
        return virtualChildren.get(node).filter(function (child) {
          return !elementsOnly || child.nodeType === ELEMENT;
        });
      }
      return new Proxy(own, {
        get: function (target, key) {
          if (!modelled(node)) {
            var value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          }
          if (key === "length") return nodes().length;
          if (key === "item") return function (i) { return nodes()[i] || null; };
          if (key === Symbol.iterator) return function () { return nodes()[Symbol.iterator](); };
          if (typeof key === "string" && /^\d+$/.test(key)) return nodes()[Number(key)];
          return Reflect.get(target, key);
        },
      });
    };
  }

  function sibling(step, elementsOnly) {
    return function (original) {
      return placed(this) ? siblingOf(this, step, elementsOnly) : original.call(this);
    };
  }
  function parentRead(original) {
    return placed(this) ? virtualParent.get(this) : original.call(this);
  }
  function liveRead(original) {
    real(this);
    return original.call(this);
  }
  function subtreeRead(original) {
    real(this);
    return original.apply(this, Array.prototype.slice.call(arguments, 1));
  }
  // A query from outside the view (a panel's prose, the page) that finds nothing in it, while the build
  // has put nothing in it that is not on screen, finds the same in the model: it is asked as it is.
  function query(proto) {
    return function (original, selector) {
      if (region && !region.freshPlaced && (this === document || call(Node, "contains", this, [region.container]))) {
        var found = call(proto, "querySelectorAll", this, [selector]);
        var inView = Array.prototype.some.call(found, function (element) {
          return call(Node, "contains", region.container, [element]);
        });
        if (!inView) return original.call(this, selector);
      }
      real(this);
      return original.call(this, selector);
    };
  }
  function regionRead(original) {
    wholeRegion();
    return original.apply(this, Array.prototype.slice.call(arguments, 1));
  }
  function geometryRead(original) {
    wholeRegion();
    return original.apply(this, Array.prototype.slice.call(arguments, 1));
  }
  function geometryGet(original) {
    wholeRegion();
    return original.call(this);
  }

  function patch(on) {
    Object.keys(methods).forEach(function (protoName) {
      var proto = window[protoName];
      Object.keys(methods[protoName]).forEach(function (name) {
        var key = protoName + "." + name;
        if (!on) return native[key] && Object.defineProperty(proto.prototype, name, native[key]);
        if (!Object.getOwnPropertyDescriptor(proto.prototype, name)) return; // elsewhere in this browser
        native[key] = Object.getOwnPropertyDescriptor(proto.prototype, name);
        var original = native[key].value;
        var replacement = methods[protoName][name];
        Object.defineProperty(proto.prototype, name, {
          configurable: true,
          writable: true,
          value: function () {
            return replacement.apply(this, [original].concat(Array.prototype.slice.call(arguments)));
          },
        });
      });
    });
    Object.keys(accessors).forEach(function (protoName) {
      var proto = window[protoName];
      Object.keys(accessors[protoName]).forEach(function (name) {
        var key = protoName + "." + name;
        if (!on) return native[key] && Object.defineProperty(proto.prototype, name, native[key]);
        var own = Object.getOwnPropertyDescriptor(proto.prototype, name);
        if (!own) return; // elsewhere in this browser
        native[key] = own;
        var wrap = accessors[protoName][name];
        Object.defineProperty(proto.prototype, name, {
          configurable: true,
          enumerable: own.enumerable,
          get: wrap.get ? function () { return wrap.get.call(this, own.get); } : own.get,
          set: wrap.set ? function (value) { wrap.set.call(this, own.set, value); } : own.set,
        });
      });
    });
    if (!on) native = {};
  }

  // container: the element on screen holding the pre-render; written: the nodes the page wrote in it
  // (what the build starts from); queue: the pre-rendered elements by creation number.
  function start(container, written, queue) {
    if (region) finish();
    region = { container: container, queue: queue, next: 0, freshPlaced: 0, claimed: [], stats: { adopted: 0, drawn: 0, changed: 0, where: [], mismatch: "" } };
    region.stats.drawn = queue.filter(Boolean).length;
    if (written) {
      virtualChildren.set(container, written.slice());
      written.forEach(function (node) {
        virtualParent.set(node, container);
      });
    }
    region.observer = new MutationObserver(function () {});
    region.observer.observe(container, { attributes: true, subtree: true });
    patch(true);
  }

  // Ends the adoption: the page becomes what the build made; returns what was adopted and changed.
  function finish() {
    if (!region) return null;
    var stats = region.stats;
    try {
      materialize(region.container);
      // A pre-rendered element the build created and never placed is in no page it built.
      region.claimed.forEach(function (element) {
        var parent = get(Node, "parentNode", element);
        if (placed(element) && virtualParent.get(element) === null && parent) {
          call(Node, "removeChild", parent, [element]);
          changed(parent, element);
        }
      });
      if (stats.mismatch || stats.changed) dropUntouchedAttributes();
    } finally {
      region.observer.disconnect();
      patch(false);
      region = null;
      virtualChildren = new WeakMap();
      virtualParent = new WeakMap();
      claimed = new WeakSet();
      touched = new WeakMap();
    }
    return stats;
  }

  window.tilelabAdopt = { start: start, finish: finish };
})();
