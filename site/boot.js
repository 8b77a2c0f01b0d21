// TileLab boot guard. A classic script that runs before PyScript: it shows the
// route's static content at once, then starts the runtime's downloads and PyScript,
// reports loading progress, and turns any
// start-up failure (a missing runtime file, a wrong MIME type, a Python error)
// into data-state="error" with a message saying what failed. PyScript itself
// hangs silently on a missing file, hence the probes.
(function () {
  "use strict";
  var root = document.documentElement;

  // Pyodide 0.27 switches Python's stack (WebAssembly JSPI) wherever the browser offers it, and
  // with it the tab can crash, now and then, with JSPI only (pyodide#5702 on 0.27.7; #6106 on 0.28,
  // importing large packages). TileLab never suspends Python on a promise, so Pyodide is shown a
  // browser without JSPI and takes its ordinary path. The playground's worker does the same.
  ["Suspending", "promising", "Suspender"].forEach(function (name) {
    delete WebAssembly[name];
  });
  var expectedBytes = 0;
  var loadedBytes = 0;

  function byId(id) {
    return document.getElementById(id);
  }

  var stageNamed = false; // a stage after the downloads has been shown

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

  function fail(message) {
    if (root.dataset.state === "error") return; // the first failure is the cause
    if (!byId("boot-error-text")) {
      // Failed before the page's body was parsed: report once it is.
      document.addEventListener("DOMContentLoaded", function () {
        fail(message);
      });
      return;
    }
    performance.mark("tilelab:error");
    root.dataset.state = "error";
    byId("boot-error-text").textContent = String(message);
    byId("boot-error").hidden = false;
    byId("boot").hidden = true;
  }

  // A rejection or Python error often arrives just before the resource entry
  // that explains it; give the specific message a moment to win.
  var GENERIC_DELAY_MS = 600;

  function failSoon(message) {
    setTimeout(function () {
      fail(message);
    }, GENERIC_DELAY_MS);
  }

  function ready() {
    if (root.dataset.state !== "loading") return;
    performance.mark("tilelab:ready");
    root.dataset.state = "ready";
    byId("boot").hidden = true;
    setTimeout(registerServiceWorker, SW_DELAY_MS);
  }

  // The service worker (sw.js) keeps this build for repeat visits and offline use. It is
  // registered once the app is ready, so its precaching (from the HTTP cache the first
  // visit just filled) never competes with start-up. Skipped where a build or page says
  // so (<html data-sw="off">, e.g. LMS packages) and wherever workers are unavailable
  // (file://, sandboxed frames, opaque origins, some private windows): the site then
  // works as before, from the network.
  var SW_DELAY_MS = 1000;

  function registerServiceWorker() {
    if (root.dataset.sw === "off" || !/^https?:$/.test(location.protocol) || !window.isSecureContext) return;
    try {
      var container = navigator.serviceWorker; // reading it throws in opaque origins
      if (!container) return;
      var controlled = !!container.controller;
      container.register("sw.js").then(
        function (registration) {
          // A controlled page came from the cache: ask now whether a newer build exists,
          // so it installs beside this one and serves the next visit.
          if (controlled) registration.update().catch(function () {});
        },
        function () {}
      );
    } catch (error) {
      // SecurityError: no service worker here; nothing else changes.
    }
  }

  function currentRoute() {
    var hash = location.hash.replace(/^#/, "");
    var query = hash.indexOf("?");
    var path = query < 0 ? hash : hash.slice(0, query);
    var params = new URLSearchParams(query < 0 ? "" : hash.slice(query + 1));
    return { path: path || "/", params: params };
  }

  // --- the views drawn at build time (tools/sitebuild/prerender.py) --------------------------------
  // Each <template data-prerender="ID" data-address="..."> holds what the view of container ID
  // draws for that address. It stands in for the container's content while the address asks for
  // that state (the shell's keys that change no view aside), until Python builds the view.
  var NEUTRAL_KEYS = ["embed", "lock", "relay"];
  var written = {}; // container id -> its nodes as the page wrote them, while a pre-render stands in
  var takenOver = false;

  function asksFor(template, params) {
    var drawn = new URLSearchParams(template.dataset.address);
    var same = true;
    params.forEach(function (value, key) {
      if (NEUTRAL_KEYS.indexOf(key) < 0 && drawn.get(key) !== value) same = false;
    });
    return same;
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

  // Whether the template's pre-render is what the address asks its container to show.
  function standsFor(template, route) {
    var container = template && byId(template.dataset.prerender);
    var section = container && container.closest("[data-route]");
    return !!section && section.dataset.route === route.path && asksFor(template, route.params);
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
      var wanted = standsFor(template, route);
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
    // (While the page is still parsed, as a rule: a paint after this one shows the route.)
    if (routeShownAt === Infinity) routeShownAt = performance.now();
  }

  function describeTarget(target) {
    return target && (target.src || target.href);
  }

  window.addEventListener(
    "error",
    function (event) {
      var url = describeTarget(event.target);
      if (url) failSoon("Could not load " + url + ". Rebuild the site with `python build.py` and serve dist/.");
      else failSoon("JavaScript error during start-up: " + event.message);
    },
    true
  );
  window.addEventListener("unhandledrejection", function (event) {
    var reason = event.reason;
    failSoon("Start-up failed: " + (reason && reason.message ? reason.message : reason));
  });

  // PyScript shows a Python exception as a .py-error element.
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        if (node.nodeType === 1 && (node.matches(".py-error") || node.querySelector(".py-error"))) {
          failSoon("Python error: " + node.textContent.trim().split("\n").slice(-1)[0]);
        }
      });
    });
  }).observe(root, { childList: true, subtree: true });

  var RUNTIME = /\/(pyodide\/|pyscript\/|tilelab\.zip$|main\.py$|pyscript\.json$)/;

  function relative(url) {
    var base = location.href.replace(/[#?].*$/, "").replace(/[^/]*$/, "");
    return url.indexOf(base) === 0 ? url.slice(base.length) : url;
  }

  // Every runtime request is checked as it completes (Resource Timing gives
  // its HTTP status and MIME type), so a broken deployment is reported at
  // once without extra requests competing with the downloads.
  function checkResource(entry) {
    if (!RUNTIME.test(entry.name) || entry.responseStatus === undefined) return;
    var path = relative(entry.name);
    if (entry.responseStatus === 0) {
      // No status: the request failed outright, or an integrity check (the
      // wheels are fetched with SRI) threw the body away. Ask the server.
      probe({ path: path }).then(
        function (ok) {
          if (ok) fail("Runtime file " + path + " could not be loaded (connection dropped or integrity check failed). Rebuild and upload dist/ again.");
        },
        function () {
          fail("Runtime file " + path + " could not be loaded: no response from the server.");
        }
      );
    } else if (entry.responseStatus >= 400) {
      fail("Runtime file " + path + " is missing (HTTP " + entry.responseStatus + "). Upload the whole dist/ folder.");
    } else if (/\.wasm$/.test(path) && entry.contentType && entry.contentType !== "application/wasm" && root.dataset.wasm !== "bytes") {
      // (<html data-wasm="bytes">: a course package, whose shim compiles WebAssembly from bytes.)
      fail("Runtime file " + path + " is served as '" + entry.contentType + "'; the server must send application/wasm.");
    }
  }

  // Browsers without responseStatus: ask for each runtime file once the page has settled.
  function probe(entry) {
    return fetch(entry.path, { method: "HEAD", cache: "no-store" }).then(function (response) {
      var type = response.headers.get("content-type") || "";
      checkResource({ name: response.url, responseStatus: response.status, contentType: type.split(";")[0] });
      return response.ok;
    });
  }

  // The downloads. The runtime starts once the page has painted the route's text (the
  // reader's first view, and what Lighthouse takes as the largest paint): the preloads of its
  // files, then PyScript itself, which fetches nothing the preloads have not asked for.
  // Files the runtime asks for only after the interpreter has booted (NumPy and its bytecode,
  // which site/main.py loads) are preloaded once the standard library or the WebAssembly has
  // arrived: not sooner, so they do not split the bandwidth with the files the interpreter
  // cannot boot without, and long before the interpreter asks, so nothing is fetched twice.
  var preloaded = {};
  var runtimeStarted = false;
  var routeShownAt = Infinity;
  // When no paint is reported (a background tab paints nothing; a route whose text is not
  // larger than the progress line reports no new largest paint), the runtime starts anyway.
  var RUNTIME_START_MS = 1000;

  function preload(kind, path, integrity) {
    if (preloaded[path]) return;
    preloaded[path] = true;
    var link = document.createElement("link");
    if (kind === "module") {
      link.rel = "modulepreload";
    } else {
      // What fetch() sends (CORS mode, same-origin credentials), or it would not be reused.
      link.rel = "preload";
      link.as = "fetch";
      link.crossOrigin = "anonymous";
    }
    if (integrity) link.integrity = integrity;
    link.href = path;
    document.head.appendChild(link);
  }

  // <meta name="NAME" content="KIND PATH [INTEGRITY]"> elements, written by build.py.
  function preloadAll(name) {
    document.querySelectorAll('meta[name="' + name + '"]').forEach(function (meta) {
      var parts = meta.content.split(" ");
      preload(parts[0], parts[1], parts[2]);
    });
  }

  // @pyscript/core 0.6.66 watches the whole document with one MutationObserver (every element added is
  // searched for Python scripts and py-* handlers, every attribute set is looked at) for as long as the page
  // lives. This page adds no script and no handler after main.py, so that watch ends when Python takes the
  // page over (`takeOver`): it was 10 ms of a playground Run's page work, in pieces of 4-6 ms at the end of
  // its longest tasks (bench/playground.py --trace), and nothing added later can start Python code.
  var documentWatchers = [];
  var NativeObserver = window.MutationObserver;

  function recordDocumentWatchers() {
    if (!NativeObserver) return;
    function RecordingObserver(callback) {
      var watcher = new NativeObserver(callback);
      var observe = watcher.observe;
      watcher.observe = function (target, options) {
        if (target === document) documentWatchers.push(watcher);
        return observe.call(watcher, target, options);
      };
      return watcher;
    }
    RecordingObserver.prototype = NativeObserver.prototype;
    window.MutationObserver = RecordingObserver;
  }

  function endDocumentWatch() {
    documentWatchers.forEach(function (watcher) {
      watcher.disconnect();
    });
    documentWatchers = [];
    if (NativeObserver) window.MutationObserver = NativeObserver;
  }

  function startRuntime() {
    if (runtimeStarted) return;
    runtimeStarted = true;
    performance.mark("tilelab:runtime");
    recordDocumentWatchers(); // PyScript's core sets its watch up as it loads
    var script = document.createElement("script");
    script.type = "module";
    script.src = "pyscript/core.js";
    document.head.appendChild(script); // first: a small file on the way to Pyodide's own requests
    preloadAll("tilelab-preload"); // before the module runs: PyScript then finds them in flight
    if (!window.PerformanceObserver) preloadAll("tilelab-preload-later"); // arrivals unknown: now
  }

  function startAfterPaint() {
    setTimeout(startRuntime, RUNTIME_START_MS);
    var types = window.PerformanceObserver && PerformanceObserver.supportedEntryTypes;
    if (!types || types.indexOf("largest-contentful-paint") < 0) return;
    new PerformanceObserver(function (list) {
      var painted = list.getEntries().some(function (entry) {
        return entry.startTime >= routeShownAt;
      });
      if (painted) startRuntime();
    }).observe({ type: "largest-contentful-paint", buffered: true });
  }

  // What the interpreter cannot boot without; once both are in, Python is starting.
  var BOOT_FILES = /\/pyodide\/(pyodide\.asm\.wasm|python_stdlib\.zip)$/;
  var bootFilesIn = {};

  function noteArrival(entry) {
    if (BOOT_FILES.test(entry.name) && entry.responseStatus < 400) {
      preloadAll("tilelab-preload-later");
      bootFilesIn[entry.name] = true;
      // (Observers report late: never after site/main.py has named a later stage.)
      if (Object.keys(bootFilesIn).length === 2 && !stageNamed) setStage("Starting Python…");
    }
  }

  function readManifest() {
    // "no-cache": always this deployment's manifest (revalidated), and kept in the HTTP
    // cache, where the service worker finds it instead of downloading it again.
    fetch("manifest.json", { cache: "no-cache" })
      .then(function (response) {
        if (!response.ok) throw new Error("manifest.json is missing (HTTP " + response.status + ")");
        return response.json();
      })
      .then(function (manifest) {
        var runtime = manifest.files.filter(function (entry) {
          return RUNTIME.test("/" + entry.path);
        });
        runtime.forEach(function (entry) {
          if (/^pyodide\//.test(entry.path)) expectedBytes += entry.bytes;
        });
        showProgress();
        if (!window.PerformanceResourceTiming || !("responseStatus" in PerformanceResourceTiming.prototype)) {
          return Promise.all(runtime.map(probe));
        }
      })
      .catch(function (error) {
        fail("Could not check the runtime files: " + error.message);
      });
  }

  var counted = {};
  if (window.PerformanceObserver) {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (entry) {
        checkResource(entry);
        noteArrival(entry);
        // As the manifest counts them (not gzip), each file once (a preload and the fetch that reuses it are two entries).
        if (entry.name.indexOf("/pyodide/") >= 0 && !counted[entry.name]) {
          counted[entry.name] = true;
          loadedBytes += entry.decodedBodySize || 0;
        }
      });
      showProgress();
    }).observe({ type: "resource", buffered: true });
  }

  // --- storage guard -------------------------------------------------------------------
  // @pyscript/core 0.6.66 opens two IndexedDB stores while it starts, through its IDBMap class
  // (prefix "IDBMap/"): "@pyscript.fs" when its module is evaluated (for mounted folders) and
  // "<origin>/pyodide@0.27.7" before Pyodide loads (its package cache, awaited). Where the browser
  // refuses storage (a frame on another site with third-party storage blocked, some private
  // windows, opaque origins) the open fails; PyScript's error handler then throws ("InvalidStateError
  // ... already being dispatched") and start-up dies. TileLab uses neither store (no packages to
  // cache, no mounted folders; nothing else on the page uses IndexedDB, Cache Storage is only
  // sw.js's), so PyScript gets them in memory here, always: the same on every page, and nothing
  // written to IndexedDB. Any other name goes to the browser's own indexedDB untouched.
  var PYSCRIPT_STORES = /^IDBMap\//;

  function memoryIndexedDB() {
    var databases = {};

    function later(work) {
      setTimeout(work, 0);
    }

    function succeed(request, result) {
      later(function () {
        request.readyState = "done";
        request.result = result;
        if (request.onsuccess) request.onsuccess.call(request, { type: "success", target: request });
      });
      return request;
    }

    function newRequest(transaction) {
      return { readyState: "pending", result: undefined, error: null, transaction: transaction || null, onsuccess: null, onerror: null };
    }

    function store(entries, transaction) {
      function run(work) {
        return succeed(newRequest(transaction), work());
      }
      return {
        get: function (key) {
          return run(function () {
            return entries.get(key);
          });
        },
        getKey: function (key) {
          return run(function () {
            return entries.has(key) ? key : undefined;
          });
        },
        getAllKeys: function () {
          return run(function () {
            return Array.from(entries.keys());
          });
        },
        count: function () {
          return run(function () {
            return entries.size;
          });
        },
        put: function (value, key) {
          return run(function () {
            entries.set(key, value);
            return key;
          });
        },
        delete: function (key) {
          return run(function () {
            entries.delete(key);
          });
        },
        clear: function () {
          return run(function () {
            entries.clear();
          });
        },
      };
    }

    function database(name) {
      var stores = {};
      var names = [];
      names.contains = function (storeName) {
        return names.indexOf(storeName) >= 0;
      };
      var db = {
        name: name,
        version: 1,
        objectStoreNames: names,
        onabort: null,
        onclose: null,
        onerror: null,
        onversionchange: null,
        createObjectStore: function (storeName) {
          if (!stores[storeName]) {
            stores[storeName] = new Map();
            names.push(storeName);
          }
          return store(stores[storeName], null);
        },
        transaction: function (storeNames) {
          var transaction = { oncomplete: null, onerror: null, onabort: null, db: db };
          transaction.objectStore = function (storeName) {
            if (!stores[storeName]) throw new DOMException("No objectStore named " + storeName, "NotFoundError");
            return store(stores[storeName], transaction);
          };
          later(function () {
            if (transaction.oncomplete) transaction.oncomplete({ type: "complete", target: transaction });
          });
          return transaction;
        },
        close: function () {},
      };
      return db;
    }

    return {
      open: function (name) {
        var known = Object.prototype.hasOwnProperty.call(databases, name);
        var db = known ? databases[name] : (databases[name] = database(name));
        var request = newRequest(null);
        request.onupgradeneeded = null;
        request.onblocked = null;
        if (known) return succeed(request, db);
        var upgrade = { oncomplete: null, onerror: null, onabort: null, db: db };
        request.transaction = upgrade;
        later(function () {
          request.result = db;
          if (request.onupgradeneeded) {
            request.onupgradeneeded.call(request, { type: "upgradeneeded", target: request, oldVersion: 0, newVersion: 1 });
          }
          later(function () {
            if (upgrade.oncomplete) upgrade.oncomplete({ type: "complete", target: upgrade });
            request.transaction = null;
            succeed(request, db);
          });
        });
        return request;
      },
    };
  }

  function guardStorage() {
    var real = null;
    try {
      real = window.indexedDB || null; // reading it throws in opaque origins
    } catch (error) {
      real = null;
    }
    var memory = memoryIndexedDB();
    var factory = {
      open: function (name, version) {
        if (PYSCRIPT_STORES.test(String(name)) || !real) return memory.open(String(name));
        return real.open(name, version);
      },
      deleteDatabase: function (name) {
        if (real && !PYSCRIPT_STORES.test(String(name))) return real.deleteDatabase(name);
        throw new DOMException("IndexedDB is not available here", "SecurityError");
      },
      cmp: function (a, b) {
        return real ? real.cmp(a, b) : a < b ? -1 : a > b ? 1 : 0;
      },
      databases: function () {
        return real && real.databases ? real.databases() : Promise.resolve([]);
      },
    };
    try {
      Object.defineProperty(window, "indexedDB", { configurable: true, enumerable: true, get: function () { return factory; } });
      window.tilelabStorageGuard = real ? "memory" : "memory (no IndexedDB here)"; // lets tests see it
    } catch (error) {
      window.tilelabStorageGuard = "";
    }
  }

  guardStorage();

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

  showRouteWhenParsed();
  window.tilelabBoot = { stage: setStage, ready: ready, fail: fail, takeOver: takeOver };
  window.addEventListener("hashchange", showRoute);
  readManifest();
  document.addEventListener("DOMContentLoaded", function () {
    showRoute();
    showProgress();
    startAfterPaint();
  });
})();
