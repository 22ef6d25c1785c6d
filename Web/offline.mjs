// What the page keeps for an offline start (localStorage): the last view, its annotations with
// their data info, and the favorites list. A reload with the gateway down shows them, marked
// "offline, data from HH:MM", until the connection comes back by itself.
const KEY = "isobar.offline";
const FAVORITES_KEY = "isobar.favorites";
const SAVE_DELAY_MS = 1000;

export function createOffline(ctx) {
  let timer = null;

  function read(key) {
    try {
      return JSON.parse(localStorage.getItem(key) || "null");
    } catch (e) {
      return null;
    }
  }

  function write(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch (e) {
      /* private mode or full: an offline start shows less */
    }
  }

  function saveNow() {
    clearTimeout(timer);
    timer = null;
    const set = ctx.client.set;
    if (set.awaitingFull && ctx.client.connection === "connected") return; // mid-repair: keep the last good one
    const c = ctx.map.getCenter();
    write(KEY, {
      savedAt: Date.now(),
      view: { latitude: c.lat, longitude: c.lng, zoom: ctx.map.getZoom() },
      shown: set.shown,
      data: set.data,
      items: [...set.items.values()],
    });
  }

  /// After annotations are applied: saves at most once a second.
  function schedule() {
    if (!timer) timer = setTimeout(saveNow, SAVE_DELAY_MS);
  }

  function saveFavorites(frame) {
    write(FAVORITES_KEY, frame);
  }

  /// The kept view and annotations, or null.
  function load() {
    const kept = read(KEY);
    if (!kept || !Array.isArray(kept.items) || !kept.view) return null;
    return kept;
  }

  window.addEventListener("pagehide", () => {
    if (ctx.client.set.items.size) saveNow();
  });

  return { schedule, saveNow, load, saveFavorites, loadFavorites: () => read(FAVORITES_KEY) };
}

/// Registers the service worker that keeps the app's files for an offline start. It must be served
/// from the page's own directory (a worker controls only pages at or under its path).
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register("sw.js", { scope: "./" }).catch((e) => {
    console.info("isobar: no offline start (the service worker is not served here)", String(e));
    return null;
  });
}
