// TileLab service worker: keeps one build of the site in Cache Storage and serves it, so a
// second visit reads nothing from the network and a classroom without network still works.
//
// build.py fills in BUILD (a hash over every file of the build) and FILES (each file's
// SRI hash, also checked against a cached file before it is served). One cache per build,
// named from BUILD: a page is served by one worker, and a worker only ever answers from its own build's cache, so files of two builds never mix.
// A new build installs beside the old one and takes over when no page of the old build is
// open (no skipWaiting); it then deletes the old cache.
"use strict";

const BUILD = "dev";
const FILES = {};

const SCOPE = new URL("./", self.location.href).href;
const PREFIX = "tilelab " + SCOPE + " ";
const CACHE = PREFIX + BUILD;
const PARALLEL = 6; // downloads at a time while precaching

function urlOf(path) {
  return new URL(path, SCOPE).href;
}

// The first visit has just downloaded every runtime file: take it from the HTTP cache
// ("force-cache") when the bytes are this build's (the integrity check says so), so the
// runtime is not downloaded twice; otherwise (another build's copy, or never fetched) ask
// the network.
async function download(path) {
  const integrity = FILES[path];
  try {
    const cached = await fetch(urlOf(path), { cache: "force-cache", integrity: integrity });
    if (cached.ok) return cached;
  } catch {
    // not in the HTTP cache, or another build's bytes: fetch it afresh below
  }
  const fresh = await fetch(urlOf(path), { cache: "reload", integrity: integrity });
  if (!fresh.ok) throw new Error(path + ": HTTP " + fresh.status);
  return fresh;
}

// The build's manifest (the boot guard reads it too), checked to be this build's: a
// deploy may land between the worker's download and this one.
async function manifestOfThisBuild() {
  for (const mode of ["force-cache", "reload"]) {
    try {
      const response = await fetch(urlOf("manifest.json"), { cache: mode });
      if (response.ok && (await response.clone().json()).build === BUILD) return response;
    } catch {
      // unreadable: try the network
    }
  }
  throw new Error("manifest.json is not from build " + BUILD);
}

async function precache() {
  const cache = await caches.open(CACHE);
  const manifest = await manifestOfThisBuild();
  const paths = Object.keys(FILES);
  let next = 0;
  async function worker() {
    while (next < paths.length) {
      const path = paths[next++];
      await cache.put(urlOf(path), await download(path));
    }
  }
  const workers = [];
  for (let i = 0; i < PARALLEL; i++) workers.push(worker());
  await Promise.all(workers);
  await cache.put(urlOf("manifest.json"), manifest);
}

self.addEventListener("install", function (event) {
  event.waitUntil(
    precache().catch(function (error) {
      // A half-filled cache must never serve: drop it; the next visit tries again.
      return caches.delete(CACHE).then(function () {
        throw error;
      });
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (keys) {
        return Promise.all(
          keys
            .filter(function (key) {
              return key.indexOf(PREFIX) === 0 && key !== CACHE;
            })
            .map(function (key) {
              return caches.delete(key);
            })
        );
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

// Cache Storage is per origin, not per path: on a shared origin (NAME.github.io serves every Pages
// project of an account or course organisation) another project's page can open this cache by its
// name and put its own bytes under our files. So a hit is served only once its bytes are shown to be
// this build's (SHA-256 against FILES, the manifest by its build), once per file while this worker
// runs; anything else is fetched afresh with its integrity and replaces the entry.
const VERIFIED = new Set();

async function digestOf(response) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await response.clone().arrayBuffer()));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return "sha256-" + btoa(binary);
}

async function isThisBuilds(path, response) {
  if (path !== "manifest.json") return (await digestOf(response)) === FILES[path];
  try {
    return (await response.clone().json()).build === BUILD;
  } catch {
    return false; // not even JSON
  }
}

async function answer(request, path) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(urlOf(path));
  if (!hit) return fetch(request); // never cached (or evicted): the network as usual
  if (VERIFIED.has(path) || (await isThisBuilds(path, hit))) {
    VERIFIED.add(path);
    return hit;
  }
  // Not this build's bytes: never served. Without a network the request fails rather than serve them.
  const fresh = path === "manifest.json" ? await manifestOfThisBuild() : await download(path);
  await cache.put(urlOf(path), fresh.clone());
  VERIFIED.add(path);
  return fresh;
}

self.addEventListener("fetch", function (event) {
  const request = event.request;
  if (request.method !== "GET" || request.url.indexOf(SCOPE) !== 0) return;
  let path = request.url.slice(SCOPE.length).replace(/[?#].*$/, "");
  if (path === "") path = "index.html";
  if (!(path in FILES) && path !== "manifest.json") return; // not ours: the network as usual
  event.respondWith(answer(request, path));
});
