// The site's service worker (games/views/app.py serves it at /sw.js, so it looks after every
// page). It keeps one page, the offline page, and shows it when a page cannot be fetched;
// everything else goes to the network untouched: game pages, moves, event streams. It also
// shows the site's push notifications and opens their page when one is clicked.
"use strict";

// Named after the offline page's version: a changed page is kept in a new cache.
const CACHE = "{{ cache|escapejs }}";
const OFFLINE = "{{ offline|escapejs }}";
const HOME = "{{ home|escapejs }}";
const ICON = "{{ icon|escapejs }}";
const BADGE = "{{ badge|escapejs }}";

// The offline page is fetched without cookies, so the page kept shows nobody's name.
self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.add(new Request(OFFLINE, { credentials: "omit" })))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      const old = names.filter((name) => name.startsWith("offline-") && name !== CACHE);
      await Promise.all(old.map((name) => caches.delete(name)));
      // The page's request starts while the worker wakes up, not after.
      if (self.registration.navigationPreload) {
        await self.registration.navigationPreload.enable();
      }
      await self.clients.claim();
    })(),
  );
});

// A page tells the worker the language it is shown in ({"language": "de"}): the offline page
// kept is brought to that language, so it speaks the player's chosen language, not only the
// browser's (it is still fetched without cookies). Each page answered says its language;
// of pages told one after the other, the last one's language is kept, whichever answer
// comes first.
let latest = "";
self.addEventListener("message", (event) => {
  const language = event.data && event.data.language;
  if (typeof language !== "string" || !/^[a-z]{2}(-[a-z]+)?$/.test(language)) return;
  latest = language;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const kept = await cache.match(OFFLINE, { ignoreVary: true });
      if (kept && kept.headers.get("Content-Language") === language) return;
      const page = await fetch(`${OFFLINE}?language=${language}`, { credentials: "omit" });
      if (page.ok && latest === language) await cache.put(OFFLINE, page);
    })().catch(() => {}),
  );
});

// Only a page being opened is answered here: from the network, else with the offline page.
// Forms sent (POST), htmx's requests and event streams are never navigations.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.mode !== "navigate" || request.method !== "GET") return;
  event.respondWith(
    (async () => {
      try {
        return (await event.preloadResponse) || (await fetch(request));
      } catch {
        const page = await caches.match(OFFLINE, { cacheName: CACHE, ignoreVary: true });
        return page || Response.error();
      }
    })(),
  );
});

// A push is {"title", "body", "url", "tag"}; one without them shows the site's name and
// opens the home page. A newer push of the same tag replaces the older and rings again.
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = (event.data && event.data.json()) || {};
  } catch {
    message = {};
  }
  const text = (value, fallback) => (typeof value === "string" && value ? value : fallback);
  const options = {
    body: text(message.body, ""),
    tag: text(message.tag, "nmbr9site"),
    icon: ICON,
    badge: BADGE,
    data: { url: text(message.url, HOME) },
    renotify: true,
  };
  event.waitUntil(self.registration.showNotification(text(message.title, "nmbr9site"), options));
});

// The address a notification opens: one on this site, else the home page.
function target(url) {
  const home = new URL(HOME, self.location.origin);
  if (typeof url !== "string") return home;
  try {
    const address = new URL(url, self.location.origin);
    return address.origin === self.location.origin ? address : home;
  } catch {
    return home; // not an address
  }
}

// A click focuses a window of the site already on that page, else opens the page.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const address = target(event.notification.data && event.notification.data.url);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).pathname === address.pathname);
      if (open) return open.focus();
      return self.clients.openWindow(address.href);
    })(),
  );
});
