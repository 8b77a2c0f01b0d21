// The storage guard: the IndexedDB stores PyScript opens live in memory.
/* exported memoryIndexedDB, guardStorage */

// @pyscript/core 0.6.66 opens two IndexedDB stores while it starts, through its IDBMap class
// (prefix "IDBMap/"): "@pyscript.fs" when its module is evaluated (for mounted folders) and
// "<origin>/pyodide@0.27.8" before Pyodide loads (its package cache, awaited). Where the browser
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
      transaction: function () {
        var transaction = { oncomplete: null, onerror: null, onabort: null, db: db };
        transaction.objectStore = function (storeName) {
          if (!stores[storeName]) throw new DOMException("No objectStore named " + storeName, "NotFoundError");
          return store(stores[storeName], transaction);
        };
        // Complete after the requests made in this task have succeeded (each a task later), as IndexedDB's do.
        later(function () {
          later(function () {
            if (transaction.oncomplete) transaction.oncomplete({ type: "complete", target: transaction });
          });
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
  } catch {
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
  } catch {
    window.tilelabStorageGuard = "";
  }
}
