// Isobar web map: one page, ES modules served as they are (no build step). Speaks the client
// contract of PROTOCOL.md over the gateway's WebSocket (/ws), draws the annotations it holds on a
// Leaflet map of GSHHG coasts, lakes and borders, and exposes its state as window.isobar for tests.
// This module wires the pure client (client.mjs) to the views (map, panel, callout, detail,
// find, locate, about) and the offline keeping (offline.mjs).
import { Client, UNIT_CHOICES, viewportMessage, fittingLimit, socketURL } from "./client.mjs";
import { TEXT, translator } from "./i18n.mjs";
import { createMapView, legendHTML } from "./map.mjs";
import { createPanel, SMALL } from "./panel.mjs";
import { createCallout } from "./callout.mjs";
import { createDetail } from "./detail.mjs";
import { createFind } from "./find.mjs";
import { createLocate } from "./locate.mjs";
import { createAbout } from "./about.mjs";
import { createOffline, registerServiceWorker } from "./offline.mjs";

const L = globalThis.L;
const MOVE_THROTTLE_MS = 150;

// ?limit=N: most annotations before the pipeline clusters (PROTOCOL.md `limit`). Without it the
// page asks for as many as fit its map's pixels (fittingLimit), so the filter's clusters keep
// labels from piling up.
const LIMIT = (() => {
  const n = Number(new URLSearchParams(window.location.search).get("limit"));
  return Number.isInteger(n) && n >= 1 && n <= 1000000 ? n : null;
})();

function loadSettings() {
  const defaults = { day: "today", field: "temperature", units: "imperial", locale: "en", theme: "light" };
  const allowed = {
    day: ["today", "tomorrow"],
    field: ["temperature", "wind", "precipitation", "conditions"],
    units: Object.keys(UNIT_CHOICES),
    locale: Object.keys(TEXT),
    theme: ["light", "dark"],
  };
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem("isobar.settings") || "{}") || {};
  } catch (e) {
    saved = {};
  }
  const out = {};
  for (const key of Object.keys(defaults)) out[key] = allowed[key].includes(saved[key]) ? saved[key] : defaults[key];
  return out;
}

const settings = loadSettings();
const t = translator(settings);

// Page state the views share (and tests read through window.isobar.state).
const state = {
  viewportsSent: 0,
  searchesSent: 0,
  clientName: null, // the ?client= name the page made for itself (null when the URL names one)
  lastSentJSON: null,
  lastSentAt: 0,
  moveTimer: null,
  feedFailed: { today: false, tomorrow: false },
  selected: null, // id of the selected station
  keptAt: 0, // when the annotations shown offline were kept (ms), 0 when live
  startedOffline: false,
};

// ---- client name -----------------------------------------------------------------------------

/// "web-" and 16 random hex digits, kept in localStorage (valid for the gateway: [A-Za-z0-9._-], 1-64).
function storedClientName() {
  if (state.clientName) return state.clientName;
  let name = null;
  try {
    name = localStorage.getItem("isobar.client");
  } catch (e) {
    name = null;
  }
  if (!name || !/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    name = "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try {
      localStorage.setItem("isobar.client", name);
    } catch (e) {
      /* private mode: the name lasts for this page only */
    }
  }
  state.clientName = name;
  return name;
}

/// The gateway refuses a second connection under a name in use (409), so only one tab uses the
/// stored name: it holds a Web Lock on it for its lifetime. A further tab takes a name of its own
/// (its own favorites), kept in sessionStorage so its reloads keep it. Resolves when settled.
function claimClientName() {
  const page = new URLSearchParams(window.location.search);
  if (page.has("client") || page.has("token")) return Promise.resolve();
  const name = storedClientName();
  if (!navigator.locks) return Promise.resolve(); // not a secure context: one tab per browser
  return new Promise((resolve) => {
    navigator.locks
      .request(`isobar.client.${name}`, { ifAvailable: true }, (lock) => {
        if (lock) {
          resolve();
          return new Promise(() => {}); // held until the page goes
        }
        let tab = null;
        try {
          tab = sessionStorage.getItem("isobar.tabClient");
        } catch (e) {
          tab = null;
        }
        if (!tab || !tab.startsWith(name + ".") || tab.length > 64) {
          const bytes = new Uint8Array(3);
          crypto.getRandomValues(bytes);
          tab = `${name}.${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
          try {
            sessionStorage.setItem("isobar.tabClient", tab);
          } catch (e) {
            /* this page only */
          }
        }
        state.clientName = tab;
        resolve();
        return null;
      })
      .catch(() => resolve());
  });
}

// ---- wiring ------------------------------------------------------------------------------------

const ctx = { settings, t, state };
const client = new Client({
  WebSocket: window.WebSocket,
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (id) => window.clearTimeout(id),
  random: Math.random,
  now: Date.now,
  url: () => socketURL(window.location.href, new URLSearchParams(window.location.search).has("client") ? null : storedClientName()),
}, {
  state: (c) => {
    if (c === "reconnecting" && client.opens === 0 && !state.startedOffline) startOffline();
    panel?.renderStatus();
  },
  open: () => {
    state.lastSentJSON = null;
    state.keptAt = 0;
    sendViewport(true);
    if (state.selected) send({ type: "select", id: state.selected });
  },
  annotations: (result) => {
    if (result.kind === "full" || result.kind === "diff" || result.kind === "duplicate") {
      if (result.kind !== "duplicate") {
        state.keptAt = 0;
        mapView.draw(result, client.set.items);
        if (result.restyle) renderLegend();
        if (result.kind === "full") about?.syncAttribution();
        offline.schedule();
      }
    }
    panel.renderStatus();
  },
  message: (m) => receiveOther(m),
  warn: (text) => console.warn(`isobar: ${text}`),
});
ctx.client = client;

function send(message) {
  return client.send(message);
}
ctx.send = send;
ctx.shown = () => client.set.shown;
ctx.selected = () => state.selected;
ctx.annotations = () => client.set.items;

const mapView = createMapView(Object.assign(ctx, { onMarkerClick: (id) => markerClicked(id) }));
const map = mapView.map;
ctx.map = map;
ctx.mapView = mapView;
mapView.setTheme(settings.theme);
const offline = createOffline(ctx);
ctx.offline = offline;
let panel = null;
const callout = createCallout(Object.assign(ctx, {
  askNearest: (latlng) => find.askNearest(latlng),
  favoriteIds: () => find.favoriteIds(),
  clearPin: () => find.clearPin(),
  openDetail: (id) => detail.open(id),
  beforeCallout: () => {
    // On a phone the expanded sheet would cover the callout: fold it to its header.
    if (panel && panel.small.matches && panel.isOpen()) panel.setOpen(false);
  },
}));
ctx.callout = callout;
const detail = createDetail(ctx);
ctx.openWeather = (message, name) => detail.openWeather(message, name);
const find = createFind(ctx);
ctx.find = find;
panel = createPanel(Object.assign(ctx, {
  saveSettings,
  onSettingChanged,
  onPanelChanged: () => map.invalidateSize({ pan: false }),
}));
const locate = createLocate(ctx);
const about = createAbout(ctx);

// The legend: bottom left, folded on small screens.
const Legend = L.Control.extend({
  options: { position: "bottomleft" },
  onAdd() {
    const box = L.DomUtil.create("details", "legend");
    box.id = "legend";
    if (!window.matchMedia(SMALL).matches) box.open = true;
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    box.innerHTML = '<summary></summary><div class="legend-body"></div>';
    return box;
  },
});
const legend = new Legend().addTo(map);
function renderLegend() {
  const box = legend.getContainer();
  box.querySelector("summary").textContent = t("legend");
  const units = UNIT_CHOICES[settings.units].units;
  box.querySelector(".legend-body").innerHTML = legendHTML(settings.field, units, t, settings.locale);
  box.dataset.field = settings.field;
}

// ---- viewport ----------------------------------------------------------------------------------

/// The viewport message for what the map shows now, or null while the map has no size.
function currentViewport() {
  const size = map.getSize();
  if (size.x <= 0 || size.y <= 0) return null;
  const b = map.getBounds();
  const limit = LIMIT !== null ? LIMIT : fittingLimit(size.x, size.y);
  return viewportMessage({ south: b.getSouth(), north: b.getNorth(), west: b.getWest(), east: b.getEast() }, settings, limit);
}

/// Sends the viewport unless it equals the last one sent on this connection (`force` sends it anyway).
function sendViewport(force) {
  const vp = currentViewport();
  if (!vp) return;
  const json = JSON.stringify(vp);
  if (!force && json === state.lastSentJSON) return;
  if (send(vp)) {
    state.viewportsSent += 1;
    state.lastSentJSON = json;
    state.lastSentAt = performance.now();
    window.isobar.viewport = vp;
  }
}

// While the map moves: at most one viewport every MOVE_THROTTLE_MS, with a trailing send;
// when it stops: at once.
map.on("move", () => {
  const wait = MOVE_THROTTLE_MS - (performance.now() - state.lastSentAt);
  if (wait <= 0) {
    clearTimeout(state.moveTimer);
    state.moveTimer = null;
    sendViewport(false);
  } else if (!state.moveTimer) {
    state.moveTimer = setTimeout(() => {
      state.moveTimer = null;
      sendViewport(false);
    }, wait);
  }
});
map.on("moveend", () => {
  clearTimeout(state.moveTimer);
  state.moveTimer = null;
  sendViewport(false);
  mapView.rewrap(callout.popup);
  offline.schedule();
});
map.on("resize", () => sendViewport(false));

// ---- messages ----------------------------------------------------------------------------------

function receiveOther(m) {
  switch (m.type) {
    case "callout":
      return callout.apply(m);
    case "status":
      about.noteStatus(m);
      if (m.day in state.feedFailed) state.feedFailed[m.day] = m.state === "failed";
      return panel.renderStatus();
    case "place":
      return find.applyPlace(m);
    case "results":
      return find.applyResults(m);
    case "locations":
      return find.applyLocations(m);
    case "vicinity":
      return find.applyVicinity(m);
    case "starred":
      return find.applyStarred(m);
    case "report":
      return detail.apply(m);
    case "conditions":
      return detail.applyConditions(m);
    case "error":
      console.warn("isobar: error from the gateway", m);
      find.onError(m);
      return panel.renderStatus();
    default:
      return; // other client-facing types are not drawn by this page
  }
}

function markerClicked(id) {
  const a = client.set.items.get(id);
  if (!a) return;
  if (a.cluster) {
    // A cluster is not a station: zoom in on it, which splits it.
    map.setView([a.coordinate.latitude, mapView.nearLongitude(a.coordinate.longitude)], Math.min(map.getMaxZoom(), map.getZoom() + 2));
    return;
  }
  callout.open(id, a.coordinate, a.subtitle || id);
}

// ---- settings ----------------------------------------------------------------------------------

function saveSettings() {
  try {
    localStorage.setItem("isobar.settings", JSON.stringify(settings));
  } catch (e) {
    /* private mode: settings last for this page only */
  }
}

function onSettingChanged(key) {
  if (key === "theme") return mapView.setTheme(settings.theme);
  sendViewport(false);
  find.onSettingsChanged(key);
  renderLegend();
  locate.renderText();
  // An open detail screen follows the day, units and locale: ask again.
  if (detail.state.id) detail.request(detail.state.id);
}

// ---- offline start -----------------------------------------------------------------------------

/// The first connection failed: show what the page kept (view, annotations, favorites), marked
/// offline; the client keeps reconnecting and the first full set replaces it all.
function startOffline() {
  state.startedOffline = true;
  const kept = offline.load();
  if (!kept) return;
  state.keptAt = kept.savedAt || Date.now();
  client.set.restore(kept.items, kept.shown);
  if (kept.data) client.set.data = kept.data;
  map.setView([kept.view.latitude, kept.view.longitude], kept.view.zoom, { animate: false });
  mapView.drawAll(client.set.items);
  const favorites = offline.loadFavorites();
  if (favorites && !window.isobar.favorites) find.applyStarred(favorites);
  renderLegend();
}

// The page keeps one client name, and the gateway refuses a second connection under a name in
// use (409): so a page that is left (reload, navigation, or the back/forward cache keeping it)
// closes its socket at once, and one brought back from that cache connects again.
window.addEventListener("pagehide", () => client.stop());
window.addEventListener("pageshow", (e) => {
  if (e.persisted && !client.socket) client.connect();
});

// ---- start -------------------------------------------------------------------------------------

// window.isobar.state: the page's state with the client's connection fields, for tests.
const exposed = Object.defineProperties(state, {
  connection: { get: () => client.connection, enumerable: true },
  socket: { get: () => client.socket, enumerable: true },
  opens: { get: () => client.opens, enumerable: true },
  awaitingFull: { get: () => client.awaitingFull, enumerable: true },
  version: { get: () => client.set.version, enumerable: true },
  lastError: { get: () => client.lastError, set: (v) => (client.lastError = v), enumerable: true },
});

window.isobar = {
  get annotations() {
    return client.set.items;
  },
  get version() {
    return client.set.version;
  },
  viewport: null,
  map,
  settings,
  state: exposed,
  client,
  send,
  receive: (m) => client.receive(m), // lets a test inject a message (e.g. a diff after a version gap)
  results: null, // the last `results` frame
  place: null, // the last `place` frame
  locations: null, // the last `locations` frame (places for the search box)
  vicinity: null, // the last `vicinity` frame (the pin's name)
  pin: null, // the dropped pin: {latitude, longitude, vicinity, station, popup}
  favorites: null, // the last `starred` frame (My places: myplaces.mjs)
  detail: null, // the last `report` shown (the detail screen)
  location: null, // the last position found (or { error })
  clearPin: () => find.clearPin(),
  openDetail: (id) => detail.open(id),
  openWeather: (message, name) => detail.openWeather(message, name),
  closeDetail: () => detail.close(),
  locate: () => locate.locate(),
  about,
  fittingLimit: () => fittingLimit(map.getSize().x, map.getSize().y),
  markersAt: (points) => mapView.markersAt(points), // the marker a tap at each {x, y} means (targets.mjs)
};
panel.renderControls();
renderLegend();
registerServiceWorker();
claimClientName().then(() => client.connect());
