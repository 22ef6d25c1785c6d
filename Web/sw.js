// Isobar's service worker: keeps the web map's files so a reload with the gateway down still shows
// the page (which then draws its kept annotations, marked offline, and reconnects by itself).
// Network first, so a running gateway always serves the newest files; the cache only when the
// network fails. Registered by the page as `sw.js` beside index.html, so its scope is the page's.
const CACHE = "isobar-v4";
const FILES = [
  "./", "web/isobar.css", "web/app.mjs", "web/client.mjs", "web/i18n.mjs", "web/icons.mjs", "web/forecast.mjs",
  "web/map.mjs", "web/panel.mjs", "web/callout.mjs", "web/detail.mjs", "web/find.mjs", "web/rows.mjs", "web/myplaces.mjs", "web/locate.mjs",
  "web/offline.mjs", "web/about.mjs", "web/targets.mjs", "web/places.json", "web/coast.json", "web/states.json", "leaflet/leaflet.js", "leaflet/leaflet.css",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (/\/(ws|healthz|metrics)$/.test(url.pathname)) return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
