// Find: search (debounced, `search` -> `results`), nearest (`nearest` -> `place`: the centre's
// button, a right click or long press, an Alt-click) and favorites (`favorite` -> `starred`).
import { escapeHTML } from "./i18n.mjs";
import { searchMessage, nearestMessage } from "./client.mjs";

const L = globalThis.L;
const SEARCH_DEBOUNCE_MS = 250;
const SEARCH_TIMEOUT_MS = 8000;
const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];

export function createFind(ctx) {
  const { map, t } = ctx;
  const searchInput = document.getElementById("search");
  const searchError = document.getElementById("search-error");
  const resultsList = document.getElementById("results");
  const nearestButton = document.getElementById("nearest");
  const placeLine = document.getElementById("place");
  const favoritesList = document.getElementById("favorites");
  const favoritesCount = document.getElementById("fav-count");
  const search = { timer: null, pending: null, timeout: null, lastSent: null };
  const placeLayer = L.layerGroup().addTo(map);
  let favoriteIds = new Set();

  function showSearchError(text) {
    searchError.textContent = text ? `⚠ ${text}` : "";
    searchError.hidden = !text;
  }

  /// Sends the search box's query (unless blank or unchanged since the last send; `force` sends anyway).
  function sendSearch(force) {
    clearTimeout(search.timer);
    search.timer = null;
    const query = searchInput.value;
    if (!query.trim()) {
      search.pending = null;
      search.lastSent = null;
      clearTimeout(search.timeout);
      window.isobar.results = null;
      resultsList.replaceChildren();
      resultsList.hidden = true;
      showSearchError(null);
      return;
    }
    const message = searchMessage(query);
    if (!message) return showSearchError(t("searchTooLong"));
    if (!force && query === search.lastSent) return;
    if (!ctx.send(message)) return;
    ctx.state.searchesSent += 1;
    search.lastSent = query;
    search.pending = query;
    clearTimeout(search.timeout);
    search.timeout = setTimeout(() => {
      if (search.pending === query) {
        search.pending = null;
        showSearchError(t("searchTimeout"));
      }
    }, SEARCH_TIMEOUT_MS);
  }

  searchInput.addEventListener("input", () => {
    clearTimeout(search.timer);
    search.timer = setTimeout(() => sendSearch(false), SEARCH_DEBOUNCE_MS);
  });
  searchInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      sendSearch(true);
    } else if (e.key === "Escape") {
      searchInput.value = "";
      sendSearch(false);
    }
  });
  // (The panel is outside the map's container, so its clicks never reach the map. Leaflet's
  // disableClickPropagation must not be used on it: its click flag is reset only by the map, so
  // the map would drop its next click.)

  function listItem(id, inner, go) {
    const li = document.createElement("li");
    li.dataset.id = id;
    li.innerHTML = inner;
    if (go) {
      li.tabIndex = 0;
      li.addEventListener("click", go);
      li.addEventListener("keydown", (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), go()));
    }
    return li;
  }

  function emptyItem(text) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = text;
    return li;
  }

  function applyResults(m) {
    // Answers to queries typed over since are dropped; so are answers with the box emptied.
    if (!searchInput.value.trim() || m.query !== searchInput.value) return;
    window.isobar.results = m;
    search.pending = null;
    clearTimeout(search.timeout);
    showSearchError(null);
    const items = (m.hits || []).map((h) => {
      const li = listItem(h.id, `<span class="name">${escapeHTML(h.name || h.id)}</span>` +
        `<span class="id">${escapeHTML(h.id)}</span>` +
        `<span class="title">${escapeHTML(h.title || "–")}</span>` +
        `<span class="match m-${escapeHTML(h.match || "")}">${escapeHTML(h.match || "")}</span>`,
      () => goTo(h.id, h.coordinate, h.name));
      li.dataset.match = h.match || "";
      return li;
    });
    if (!items.length) items.push(emptyItem(t("noHits", m.query)));
    resultsList.replaceChildren(...items);
    resultsList.hidden = false;
  }

  /// Pans and zooms to a station and selects it (the callout opens when the pipeline sends it).
  function goTo(id, coordinate, name) {
    if (!coordinate) return;
    const zoom = Math.max(map.getZoom(), 7);
    map.setView([coordinate.latitude, ctx.mapView.nearLongitude(coordinate.longitude)], zoom, { animate: false });
    ctx.callout.open(id, coordinate, name || id);
  }

  function applyStarred(m) {
    window.isobar.favorites = m;
    ctx.offline?.saveFavorites(m);
    const items = m.items || [];
    favoriteIds = new Set(items.map((i) => i.id));
    favoritesCount.textContent = String(typeof m.count === "number" ? m.count : items.length);
    const rows = items.map((item) => {
      const day = item[ctx.settings.day] || item.today || item.tomorrow;
      if (item.known === false) {
        const li = listItem(item.id, `<span class="name">${escapeHTML(t("unknownStation"))}</span><span class="id">${escapeHTML(item.id)}</span>`, null);
        li.className = "unknown";
        return li;
      }
      return listItem(item.id, `<span class="name">${escapeHTML(item.name || item.id)}</span>` +
        `<span class="id">${escapeHTML(item.id)}</span>` +
        `<span class="title">${escapeHTML((day && day.title) || "–")}</span>`,
      () => goTo(item.id, item.coordinate, item.name));
    });
    if (!rows.length) rows.push(emptyItem(t("noFavorites")));
    favoritesList.replaceChildren(...rows);
    ctx.callout.refreshStar();
  }

  function askNearest(latlng) {
    ctx.send(nearestMessage(latlng.lat, latlng.lng));
  }
  nearestButton.addEventListener("click", () => askNearest(map.getCenter()));
  // A right click, or a long press on a touch screen (Leaflet fires contextmenu for both).
  map.on("contextmenu", (e) => askNearest(e.latlng));

  function applyPlace(m) {
    window.isobar.place = m;
    placeLayer.clearLayers();
    placeLine.hidden = false;
    placeLine.replaceChildren();
    placeLine.dataset.id = m.id || "";
    if (!m.id) {
      placeLine.textContent = `${t("nearestTo")}: ${t("noPlace")}`;
      return;
    }
    const km = typeof m.distanceKm === "number" ? m.distanceKm.toFixed(1) : "?";
    const bearing = typeof m.bearing === "number" ? m.bearing : 0;
    const point = m.point;
    const c = m.coordinate;
    placeLine.innerHTML = `${escapeHTML(t("nearestTo"))}: <a href="#" class="name">${escapeHTML(m.title || m.id)}</a> ` +
      `<span class="id">${escapeHTML(m.id)}</span> · <span class="distance">${km} km</span> · ` +
      `<span class="bearing">${Math.round(bearing)}° ${COMPASS[Math.round(bearing / 22.5) % 16]}</span>`;
    placeLine.querySelector("a").addEventListener("click", (e) => {
      e.preventDefault();
      goTo(m.id, c, m.title);
    });
    if (point && c) {
      const from = [point.latitude, ctx.mapView.nearLongitude(point.longitude)];
      // The station's copy nearest the point, so the line never wraps round the world.
      const to = [c.latitude, c.longitude + 360 * Math.round((from[1] - c.longitude) / 360)];
      L.polyline([from, to], { color: "#d0602a", weight: 2, dashArray: "5 5", interactive: false }).addTo(placeLayer);
      L.circleMarker(from, { radius: 4, color: "#d0602a", fillOpacity: 1, interactive: false }).addTo(placeLayer);
      L.circleMarker(to, { radius: 11, color: "#d0602a", weight: 3, fill: false, interactive: false }).addTo(placeLayer);
    }
  }

  function renderText() {
    searchInput.placeholder = t("search");
    searchInput.setAttribute("aria-label", t("search"));
    nearestButton.textContent = t("nearestCentre");
    for (const el of document.querySelectorAll("[data-text]")) el.textContent = t(el.dataset.text);
    const only = favoritesList.children.length === 1 ? favoritesList.firstElementChild : null;
    if (!favoritesList.children.length || (only && only.classList.contains("empty"))) favoritesList.replaceChildren(emptyItem(t("noFavorites")));
  }

  function onError(message) {
    if (search.pending) showSearchError(message.message || message.reason || "error");
  }

  /// After a toggle: search titles are worded in the request's presentation, so ask again (after
  /// the viewport, whose presentation the filter then uses); favorites carry both days: redraw.
  function onSettingsChanged(key) {
    if (search.lastSent !== null && search.lastSent === searchInput.value) sendSearch(true);
    if (key === "day" && window.isobar.favorites) applyStarred(window.isobar.favorites);
  }

  return { applyResults, applyStarred, applyPlace, askNearest, goTo, renderText, onError, onSettingsChanged,
    favoriteIds: () => favoriteIds };
}
