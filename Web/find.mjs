// Find: search (debounced; `geocode` -> `locations` for places and `search` -> `results` for
// stations, listed places first), nearest (`nearest` -> `place`: the centre's button, an
// Alt-click), the pin (a right click or long press: `reverse` -> `vicinity` names it, `nearest`
// gives the weather there) and favorites (`favorite` -> `starred`).
import { escapeHTML } from "./i18n.mjs";
import { searchMessage, nearestMessage, geocodeMessage, reverseMessage, placeRegion, compassBearing, samePoint } from "./client.mjs";
import { hitRow, placeRow, rowIcon } from "./rows.mjs";
import { createMyPlaces } from "./myplaces.mjs";

const L = globalThis.L;
const SEARCH_DEBOUNCE_MS = 250;
const SEARCH_TIMEOUT_MS = 8000;
/// A pin is named by the nearest gazetteer place within this distance, else "no place nearby".
const PIN_RADIUS_KM = 100;
/// Places listed above the stations for a query.
const PLACE_HITS = 5;

export function createFind(ctx) {
  const { map, t } = ctx;
  const searchInput = document.getElementById("search");
  const searchError = document.getElementById("search-error");
  const resultsList = document.getElementById("results");
  const nearestButton = document.getElementById("nearest");
  const placeLine = document.getElementById("place");
  const favoritesList = document.getElementById("favorites");
  const myPlaces = createMyPlaces(ctx);
  const search = { timer: null, pending: null, timeout: null, lastSent: null };
  const placeLayer = L.layerGroup().addTo(map);
  // The last answers for the query in the box: places (`locations`) and stations (`results`).
  const found = { places: null, stations: null };
  // The dropped pin: the point asked (rounded as sent), its place and nearest station once answered.
  let pin = null;

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
      window.isobar.locations = null;
      found.places = found.stations = null;
      resultsList.replaceChildren();
      resultsList.hidden = true;
      showSearchError(null);
      return;
    }
    const message = searchMessage(query);
    if (!message) return showSearchError(t("searchTooLong"));
    if (!force && query === search.lastSent) return;
    if (!ctx.send(message)) return;
    if (query !== search.lastSent) found.places = found.stations = null;
    const places = geocodeMessage(query, PLACE_HITS);
    if (places) ctx.send(places);
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
    if (li.querySelector(".wx")) li.classList.add("has-icon");
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
    found.stations = m;
    search.pending = null;
    clearTimeout(search.timeout);
    showSearchError(null);
    renderFound();
  }

  /// `locations` for the query in the box: listed above the stations.
  function applyLocations(m) {
    if (!searchInput.value.trim() || m.query !== searchInput.value) return;
    window.isobar.locations = m;
    found.places = m;
    renderFound();
  }

  /// One list: the places first (a click centres the map on the place and pins it), then the stations.
  function renderFound() {
    const places = ((found.places && found.places.results) || []).map((p) => {
      const li = listItem(`place:${p.id}`, placeRow(p, t("placeKind")), () => goToPlace(p));
      li.classList.add("place");
      li.dataset.place = String(p.id);
      li.append(starButton(myPlaces.has(`place:${p.id}`), p.name, (on) => ctx.send({ type: "bookmark", place: p.id, on })));
      return li;
    });
    const m = found.stations;
    if (!m && !places.length) return;
    const items = ((m && m.hits) || []).map((h) => {
      const li = listItem(h.id, hitRow(h, ctx.settings.locale), () => goTo(h.id, h.coordinate, h.name));
      li.dataset.match = h.match || "";
      return li;
    });
    if (m && !items.length) items.push(emptyItem(t("noHits", m.query)));
    resultsList.replaceChildren(...places, ...items);
    resultsList.hidden = false;
  }

  /// A ☆/★ button that stars a place or pin (`send(on)`), its own target inside a clickable row.
  function starButton(on, name, send) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `star-place${on ? " on" : ""}`;
    b.textContent = on ? "★" : "☆";
    b.setAttribute("aria-pressed", String(on));
    b.title = `${t(on ? "unstar" : "star")}: ${name}`;
    b.setAttribute("aria-label", b.title);
    b.addEventListener("click", (e) => {
      e.stopPropagation();
      e.preventDefault();
      send(!on);
    });
    b.addEventListener("keydown", (e) => e.stopPropagation());
    return b;
  }

  /// Pans and zooms to a station and selects it (the callout opens when the pipeline sends it).
  function goTo(id, coordinate, name) {
    if (!coordinate) return;
    const zoom = Math.max(map.getZoom(), 7);
    map.setView([coordinate.latitude, ctx.mapView.nearLongitude(coordinate.longitude)], zoom, { animate: false });
    ctx.callout.open(id, coordinate, name || id);
  }

  /// `starred`: My places (myplaces.mjs), and the stars shown in the callout, pin and results.
  function applyStarred(m) {
    window.isobar.favorites = m;
    ctx.offline?.saveFavorites(m);
    myPlaces.render(m);
    ctx.callout.refreshStar();
    renderPin();
    if (resultsList.childElementCount) renderFound();
  }

  function askNearest(latlng) {
    ctx.send(nearestMessage(latlng.lat, latlng.lng));
  }
  nearestButton.addEventListener("click", () => askNearest(map.getCenter()));
  // A right click, or a long press on a touch screen (Leaflet fires contextmenu for both), drops
  // a pin; an Alt-click (callout.mjs) asks only for the nearest station.
  map.on("contextmenu", (e) => dropPin(e.latlng, null));

  /// Centres the map on a gazetteer place and pins it (named at once; the weather from `nearest`).
  function goToPlace(p) {
    // The selected station's callout would pan the map back to it when its next frame arrives.
    if (ctx.state.selected) {
      ctx.callout.close();
      ctx.callout.setSelected(null);
      ctx.send({ type: "select", id: null });
    }
    const latlng = L.latLng(p.latitude, ctx.mapView.nearLongitude(p.longitude));
    map.setView(latlng, Math.max(map.getZoom(), 8), { animate: false });
    dropPin(latlng, p);
  }

  const pinLayer = L.layerGroup().addTo(map);
  /// Drops the pin at a point: asks `reverse` for its name (unless `place` already names it) and
  /// `nearest` for the station whose values it shows. Its popup is added beside the callout (not
  /// opened with openPopup, which would close the callout).
  function dropPin(latlng, place) {
    clearPin();
    const ask = reverseMessage(latlng.lat, latlng.lng, PIN_RADIUS_KM);
    pin = { latitude: ask.latitude, longitude: ask.longitude, vicinity: null, station: null };
    if (place) pin.vicinity = { place, distanceKm: 0, bearing: null };
    pin.popup = L.popup({ className: "pin", autoClose: false, closeOnClick: false, maxWidth: 280, offset: [0, -4], autoPanPadding: [16, 16],
      autoPan: !place }) // a chosen place was centred: keep it there
      .setLatLng(latlng);
    L.circleMarker(latlng, { radius: 6, color: "#7a2ad0", weight: 3, fillColor: "#fff", fillOpacity: 1, interactive: false }).addTo(pinLayer);
    renderPin();
    pin.popup.addTo(map);
    window.isobar.pin = pin;
    if (!place) ctx.send(ask);
    askNearest(latlng);
  }

  function clearPin() {
    if (pin) map.removeLayer(pin.popup);
    pinLayer.clearLayers();
    pin = null;
    window.isobar.pin = null;
  }

  function renderPin() {
    if (!pin) return;
    const v = pin.vicinity;
    let head;
    if (!v) head = `<span class="pin-name">${escapeHTML(t("pinLooking"))}</span>`;
    else if (!v.place) head = `<span class="pin-name">${escapeHTML(t("noPlaceNearby", PIN_RADIUS_KM))}</span>`;
    else {
      const away = typeof v.distanceKm === "number" && typeof v.bearing === "number" && v.distanceKm >= 0.05
        ? `${v.distanceKm.toFixed(1)} km ${compassBearing(v.bearing)}` : t("atPlace");
      head = `<strong class="pin-name">${escapeHTML(v.place.name)}</strong>` +
        `<span class="pin-region">${escapeHTML(placeRegion(v.place))}</span>` +
        `<span class="pin-away">${escapeHTML(away)}</span>`;
    }
    const s = pin.station;
    let weather = `<span class="pin-weather">${escapeHTML(t("pinLooking"))}</span>`;
    if (s && !s.id) weather = `<span class="pin-weather">${escapeHTML(t("noPlace"))}</span>`;
    else if (s) {
      const details = (s.details || []).map((d) => `<li><span class="label">${escapeHTML(d.label)}</span> ${escapeHTML(d.value)}</li>`).join("");
      weather = `<span class="pin-weather">${rowIcon(s.icon, ctx.settings.locale)}${escapeHTML(t("weatherFrom"))} <a href="#" class="pin-station">${escapeHTML(s.title || s.id)}</a> ` +
        `(${escapeHTML(s.id)}, ${typeof s.distanceKm === "number" ? s.distanceKm.toFixed(1) : "?"} km)</span><ul class="pin-details">${details}</ul>`;
    }
    const body = document.createElement("div");
    body.className = "pin-body";
    body.innerHTML = head + weather;
    if (v) {
      // The pin is starred under the name shown for it (the place's, else its coordinate).
      const name = v.place ? v.place.name : `${pin.latitude.toFixed(4)}, ${pin.longitude.toFixed(4)}`;
      const point = { latitude: pin.latitude, longitude: pin.longitude };
      const star = starButton(myPlaces.hasPin(point), name, (on) =>
        ctx.send({ type: "favorite", pin: on ? { name, ...point } : point, on }));
      star.classList.add("pin-star");
      body.prepend(star);
    }
    const link = body.querySelector(".pin-station");
    if (link) link.addEventListener("click", (e) => {
      e.preventDefault();
      goTo(s.id, s.coordinate, s.title);
    });
    pin.popup.setContent(body);
  }

  /// `vicinity`: names the pin it answers (an answer for an older pin is dropped).
  function applyVicinity(m) {
    window.isobar.vicinity = m;
    if (!pin || pin.vicinity || !samePoint(m, pin)) return;
    pin.vicinity = m;
    renderPin();
  }

  function applyPlace(m) {
    window.isobar.place = m;
    if (pin && samePoint(m.point, pin)) {
      pin.station = m;
      renderPin();
    }
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
    placeLine.innerHTML = `${rowIcon(m.icon, ctx.settings.locale)}${escapeHTML(t("nearestTo"))}: <a href="#" class="name">${escapeHTML(m.title || m.id)}</a> ` +
      `<span class="id">${escapeHTML(m.id)}</span> · <span class="distance">${km} km</span> · ` +
      `<span class="bearing">${compassBearing(bearing)}</span>`;
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
    else if (window.isobar.favorites && favoritesList.dataset.locale !== ctx.settings.locale) myPlaces.render(window.isobar.favorites);
    favoritesList.dataset.locale = ctx.settings.locale;
  }

  function onError(message) {
    // The places stage's errors (no gazetteer loaded) leave the stations' list and the pin as they are.
    if (message.stage === "places") {
      if (pin && !pin.vicinity) {
        pin.vicinity = { place: null };
        renderPin();
      }
      return;
    }
    if (search.pending) showSearchError(message.message || message.reason || "error");
  }

  /// After a toggle: search titles are worded in the request's presentation, so ask again (after
  /// the viewport, whose presentation the filter then uses); favorites carry both days: redraw.
  function onSettingsChanged(key) {
    if (search.lastSent !== null && search.lastSent === searchInput.value) sendSearch(true);
    if (key === "day" && window.isobar.favorites) applyStarred(window.isobar.favorites);
  }

  return { applyResults, applyLocations, applyVicinity, applyStarred, applyPlace, askNearest, goTo, dropPin, clearPin, renderText, onError, onSettingsChanged,
    favoriteIds: () => myPlaces.keys() };
}
