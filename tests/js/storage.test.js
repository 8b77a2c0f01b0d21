// The in-memory IndexedDB PyScript is given (site/boot/storage.js), used as @pyscript/core 0.6.66's
// IDBMap uses IndexedDB: open with an upgrade that creates the store, then one transaction per request.
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { load, plain } = require("./parts.js");

// A request's outcome: resolves with its result on success (the handlers run in a later task).
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

// Open `name` as IDBMap does: the first open creates its store "entries" in the upgrade.
function open(factory, name) {
  const request = factory.open(name);
  const upgrades = [];
  request.onupgradeneeded = (event) => {
    upgrades.push(event.oldVersion);
    request.result.createObjectStore("entries");
  };
  return done(request).then((db) => ({ db, upgrades }));
}

function store(db, mode) {
  return db.transaction(["entries"], mode).objectStore("entries");
}

test("a new database is upgraded once, then keeps what is put in it", async () => {
  const { memoryIndexedDB } = load(["storage.js"]);
  const factory = memoryIndexedDB();
  const first = await open(factory, "IDBMap/@pyscript.fs");
  assert.deepEqual(first.upgrades, [0]);
  assert.equal(first.db.objectStoreNames.contains("entries"), true);
  assert.equal(await done(store(first.db, "readwrite").put({ size: 3 }, "/home/a.py")), "/home/a.py");
  assert.equal(await done(store(first.db, "readwrite").put("b", "/home/b.py")), "/home/b.py");

  const again = await open(factory, "IDBMap/@pyscript.fs");
  assert.equal(again.db, first.db);
  assert.deepEqual(again.upgrades, [], "no second upgrade");
  assert.deepEqual(plain(await done(store(again.db, "readonly").get("/home/a.py"))), { size: 3 });
  assert.equal(await done(store(again.db, "readonly").getKey("/home/b.py")), "/home/b.py");
  assert.equal(await done(store(again.db, "readonly").getKey("/nowhere")), undefined);
  assert.deepEqual(plain(await done(store(again.db, "readonly").getAllKeys())), ["/home/a.py", "/home/b.py"]);
  assert.equal(await done(store(again.db, "readonly").count()), 2);
});

test("delete and clear empty the store; databases of other names are apart", async () => {
  const { memoryIndexedDB } = load(["storage.js"]);
  const factory = memoryIndexedDB();
  const { db } = await open(factory, "IDBMap/one");
  const other = (await open(factory, "IDBMap/two")).db;
  await done(store(db, "readwrite").put(1, "a"));
  await done(store(db, "readwrite").put(2, "b"));
  await done(store(other, "readwrite").put(3, "a"));
  await done(store(db, "readwrite").delete("a"));
  assert.deepEqual(plain(await done(store(db, "readonly").getAllKeys())), ["b"]);
  await done(store(db, "readwrite").clear());
  assert.equal(await done(store(db, "readonly").count()), 0);
  assert.equal(await done(store(other, "readonly").get("a")), 3);
});

test("a transaction completes after its requests, and an unknown store is refused", async () => {
  const { memoryIndexedDB } = load(["storage.js"]);
  const { db } = await open(memoryIndexedDB(), "IDBMap/x");
  const transaction = db.transaction(["entries"], "readwrite");
  const order = [];
  const request = transaction.objectStore("entries").put("v", "k");
  request.onsuccess = () => order.push("request");
  await new Promise((resolve) => {
    transaction.oncomplete = () => {
      order.push("complete");
      resolve();
    };
  });
  assert.deepEqual(order, ["request", "complete"]);
  assert.throws(() => db.transaction(["nowhere"]).objectStore("nowhere"), { name: "NotFoundError" });
});

// The browser's own IndexedDB, as far as the guard passes names to it.
function browserIndexedDB() {
  const opened = [];
  return { opened, open: (name) => opened.push(name) && { browser: name }, cmp: () => 0 };
}

test("PyScript's stores go to memory, every other name to the browser's IndexedDB", () => {
  const real = browserIndexedDB();
  const window = { indexedDB: real };
  const { guardStorage } = load(["storage.js"], { window });
  guardStorage();
  assert.notEqual(window.indexedDB, real);
  assert.equal(window.tilelabStorageGuard, "memory");
  window.indexedDB.open("IDBMap/@pyscript.fs");
  assert.deepEqual(plain(window.indexedDB.open("mine", 2)), { browser: "mine" });
  assert.deepEqual(real.opened, ["mine"]);
});

test("where reading IndexedDB throws, every name opens in memory", async () => {
  const window = {};
  Object.defineProperty(window, "indexedDB", {
    configurable: true,
    get() {
      throw new Error("SecurityError");
    },
  });
  const { guardStorage } = load(["storage.js"], { window });
  guardStorage();
  assert.equal(window.tilelabStorageGuard, "memory (no IndexedDB here)");
  const { upgrades } = await open(window.indexedDB, "mine");
  assert.deepEqual(upgrades, [0]);
  assert.throws(() => window.indexedDB.deleteDatabase("mine"), { name: "SecurityError" });
});
