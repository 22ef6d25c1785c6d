// Isobar web map: one page, no build step. Speaks the client contract of PROTOCOL.md over the
// gateway's WebSocket (/ws, without a `client` field: the gateway names the connection), draws
// the annotations it holds on a Leaflet map of Natural Earth country outlines, and exposes its
// state as window.isobar for tests.
(function () {
  "use strict";

  // The brief's initial region (the iOS app's): center plus span, fitted to the window.
  const INITIAL = { latitude: 40.924, longitude: -108.0955, latitudeDelta: 25, longitudeDelta: 20 };
  const MOVE_THROTTLE_MS = 150;
  const RECONNECT_MIN_MS = 500;
  const RECONNECT_MAX_MS = 10000;
  const RESYNC_RETRY_MS = 2000;
  // ?limit=N: most annotations before the pipeline clusters (PROTOCOL.md `limit`; default 500).
  const LIMIT = (() => {
    const n = Number(new URLSearchParams(window.location.search).get("limit"));
    return Number.isInteger(n) && n >= 1 && n <= 1000000 ? n : null;
  })();

  // The units control's three choices, as the viewport's `units` + `windUnit`.
  const UNIT_CHOICES = {
    imperial: { units: "imperial", windUnit: "mph" },
    metric: { units: "metric", windUnit: "kmh" },
    knots: { units: "metric", windUnit: "knots" },
  };

  const TEXT = {
    en: {
      today: "Today", tomorrow: "Tomorrow", temperature: "Temperature", wind: "Wind",
      precipitation: "Precipitation", imperial: "°F · mph", metric: "°C · km/h", knots: "°C · kn",
      connecting: "connecting…", connected: "live", reconnecting: (s) => `reconnecting in ${s} s`,
      stations: (n) => `${n} ${n === 1 ? "station" : "stations"}`,
      age: (a) => `data ${a} old`, stored: "stored data", offline: "feed offline",
      waiting: "waiting for data", loading: "loading…", unknown: "no data",
      clustered: (n, m) => `${n} stations in ${m} markers`,
      search: "Search stations", nearestCentre: "Nearest to centre", favorites: "Favorites",
      noHits: (q) => `no station matches “${q}”`, noPlace: "no station (no data for this day)",
      nearestTo: "Nearest", unknownStation: "unknown station", star: "Add to favorites",
      unstar: "Remove from favorites", noFavorites: "none yet: ☆ in a station's callout adds one", stale: "stale data",
      searchTooLong: "at most 100 characters", searchTimeout: "no answer from the server",
      details: "Details", close: "Close", hourly: "Next hours", daily: "Next days", noForecast: "no forecast in this feed",
    },
    sk: {
      today: "Dnes", tomorrow: "Zajtra", temperature: "Teplota", wind: "Vietor",
      precipitation: "Zrážky", imperial: "°F · mph", metric: "°C · km/h", knots: "°C · kn",
      connecting: "pripájam…", connected: "naživo", reconnecting: (s) => `nové pripojenie o ${s} s`,
      stations: (n) => `${n} ${n === 1 ? "stanica" : n >= 2 && n <= 4 ? "stanice" : "staníc"}`,
      age: (a) => `údaje staré ${a}`, stored: "uložené údaje", offline: "zdroj nedostupný",
      waiting: "čakám na údaje", loading: "načítavam…", unknown: "bez údajov",
      clustered: (n, m) => `${n} staníc v ${m} značkách`,
      search: "Hľadať stanice", nearestCentre: "Najbližšia k stredu", favorites: "Obľúbené",
      noHits: (q) => `žiadna stanica nezodpovedá „${q}“`, noPlace: "žiadna stanica (bez údajov pre tento deň)",
      nearestTo: "Najbližšia", unknownStation: "neznáma stanica", star: "Pridať k obľúbeným",
      unstar: "Odobrať z obľúbených", noFavorites: "zatiaľ žiadne: ☆ v popise stanice pridá", stale: "neaktuálne údaje",
      searchTooLong: "najviac 100 znakov", searchTimeout: "server neodpovedá",
      details: "Podrobnosti", close: "Zavrieť", hourly: "Najbližšie hodiny", daily: "Najbližšie dni", noForecast: "tento zdroj nemá predpoveď",
    },
  };

  // ---- state -------------------------------------------------------------------------------

  const settings = loadSettings();
  const state = {
    annotations: new Map(), // id -> annotation object as received
    markers: new Map(), // id -> { marker, html, lat, lon }
    version: 0, // version of the last annotations message applied (0: none on this connection)
    awaitingFull: true, // after connect or a gap: ignore diffs until a full arrives
    resyncTimer: null,
    socket: null,
    opens: 0, // connections opened so far
    viewportsSent: 0,
    searchesSent: 0,
    clientName: null, // the ?client= name the page made for itself (null when the URL names one)
    connection: "connecting", // connecting | connected | reconnecting
    reconnectDelay: RECONNECT_MIN_MS,
    reconnectTimer: null,
    reconnectAt: 0,
    lastSentJSON: null,
    lastSentAt: 0,
    moveTimer: null,
    data: null, // { source, snapshot, fetchedAt, ageSeconds, receivedAt } of the last annotations
    feedFailed: { today: false, tomorrow: false },
    selected: null, // id of the selected station
    shown: { field: "temperature", units: "imperial" }, // field and units of the titles held
    lastError: null,
    worldOffset: 0, // multiple of 360 added to longitudes so markers sit beside the map's center
  };

  // ---- map ---------------------------------------------------------------------------------

  const map = L.map("map", {
    zoomSnap: 0, // fractional zoom, so the initial region fits the window tightly
    zoomDelta: 1,
    wheelPxPerZoomLevel: 90,
    minZoom: 1,
    maxZoom: 12,
    worldCopyJump: false,
    attributionControl: true,
    zoomControl: false,
  });
  L.control.zoom({ position: "bottomright" }).addTo(map);
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  map.attributionControl.addAttribution("Outlines: Natural Earth (public domain)");
  map.fitBounds(regionBounds(INITIAL), { animate: false });

  const basemapRenderer = L.canvas({ padding: 0.5 });
  map.createPane("basemap").style.zIndex = 250; // under markers and popups
  const markerLayer = L.layerGroup().addTo(map);

  // Country outlines, drawn three times (one world either side) so panning across the date line
  // never shows an empty ocean.
  fetch("countries.geojson")
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`countries.geojson: HTTP ${r.status}`))))
    .then((geojson) => {
      for (const offset of [-360, 0, 360]) {
        L.geoJSON(geojson, {
          pane: "basemap",
          renderer: basemapRenderer,
          interactive: false,
          style: { color: "#8a9aa8", weight: 0.8, fillColor: "#f4f1e8", fillOpacity: 1 },
          coordsToLatLng: (c) => L.latLng(c[1], c[0] + offset),
        }).addTo(map);
      }
    })
    .catch((e) => console.warn("isobar: no basemap", e));

  function regionBounds(r) {
    return L.latLngBounds(
      [r.latitude - r.latitudeDelta / 2, r.longitude - r.longitudeDelta / 2],
      [r.latitude + r.latitudeDelta / 2, r.longitude + r.longitudeDelta / 2]
    );
  }

  // ---- viewport ----------------------------------------------------------------------------

  const round6 = (x) => Math.round(x * 1e6) / 1e6;
  // Longitude into [-180, 180).
  const normalizeLongitude = (x) => ((((x + 180) % 360) + 360) % 360) - 180;

  /// The viewport message for what the map shows now, or null while the map has no size.
  function currentViewport() {
    const size = map.getSize();
    if (size.x <= 0 || size.y <= 0) return null;
    const b = map.getBounds();
    const south = Math.max(-90, b.getSouth());
    const north = Math.min(90, b.getNorth());
    const west = b.getWest();
    const east = b.getEast();
    const latitudeDelta = Math.min(180, Math.max(1e-6, round6(north - south)));
    // Leaflet's bounds are unwrapped (they can pass ±180 after panning across the date line);
    // the span is simply east - west, and 360 or more means every longitude.
    const longitudeDelta = Math.min(360, Math.max(1e-6, round6(east - west)));
    let centerLongitude = round6(normalizeLongitude((west + east) / 2));
    if (centerLongitude >= 180) centerLongitude -= 360; // rounding can reach 180
    const choice = UNIT_CHOICES[settings.units];
    const message = {
      type: "viewport",
      center: {
        latitude: round6((north + south) / 2),
        longitude: centerLongitude,
      },
      span: { latitudeDelta, longitudeDelta },
      day: settings.day,
      field: settings.field,
      units: choice.units,
      windUnit: choice.windUnit,
      locale: settings.locale,
    };
    if (LIMIT !== null) message.limit = LIMIT;
    return message;
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
    rewrapMarkers();
  });
  map.on("resize", () => sendViewport(false));

  // ---- socket ------------------------------------------------------------------------------

  function socketURL() {
    const url = new URL("ws", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    // A page opened as ...?client=NAME keeps its name (and favorites) across reconnects.
    const page = new URLSearchParams(window.location.search);
    url.search = "";
    for (const key of ["client", "token"]) if (page.has(key)) url.searchParams.set(key, page.get(key));
    // Without ?client= (and without a token, which names the client itself) the page uses a name
    // of its own, made once and kept in localStorage, so favorites survive a reload.
    if (!page.has("client") && !page.has("token")) url.searchParams.set("client", storedClientName());
    return url.toString();
  }

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
  /// stored name: it holds a Web Lock on it for its lifetime (released when the page goes). A
  /// further tab, finding the lock held, takes a name of its own for this tab (its own favorites),
  /// kept in sessionStorage so its reloads keep it. Resolves when the name is settled.
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

  function connect() {
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = null;
    setConnection("connecting");
    let socket;
    try {
      socket = new WebSocket(socketURL());
    } catch (e) {
      console.warn("isobar: cannot open the WebSocket", e);
      scheduleReconnect();
      return;
    }
    state.socket = socket;
    socket.onopen = () => {
      state.reconnectDelay = RECONNECT_MIN_MS;
      state.opens += 1;
      // A new connection is a new client to the pipeline: its versions start over with a full set.
      state.version = 0;
      state.awaitingFull = true;
      state.lastSentJSON = null;
      setConnection("connected");
      sendViewport(true);
      if (state.selected) send({ type: "select", id: state.selected });
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        console.warn("isobar: a frame that is not JSON", event.data);
        return;
      }
      receive(message);
    };
    socket.onclose = (event) => {
      if (state.socket !== socket) return;
      // 1000/1001: a normal close or the gateway stopping; 1006: the connection simply dropped.
      if (![1000, 1001, 1005, 1006].includes(event.code)) {
        state.lastError = { text: `closed ${event.code}${event.reason ? ": " + event.reason : ""}`, at: Date.now() };
      }
      state.socket = null;
      clearTimeout(state.resyncTimer);
      scheduleReconnect();
    };
    socket.onerror = () => {}; // onclose follows and reconnects
  }

  // The page keeps one client name, and the gateway refuses a second connection under a name in
  // use (409): so a page that is left (reload, navigation, or the back/forward cache keeping it)
  // closes its socket at once, and one brought back from that cache connects again.
  window.addEventListener("pagehide", () => {
    clearTimeout(state.reconnectTimer);
    const socket = state.socket;
    state.socket = null; // its onclose then schedules nothing
    if (socket) socket.close(1000, "page hidden");
  });
  window.addEventListener("pageshow", (e) => {
    if (e.persisted && !state.socket) connect();
  });

  function scheduleReconnect() {
    const delay = state.reconnectDelay;
    state.reconnectDelay = Math.min(RECONNECT_MAX_MS, state.reconnectDelay * 2);
    state.reconnectAt = Date.now() + delay;
    setConnection("reconnecting");
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = setTimeout(connect, delay * (0.8 + 0.4 * Math.random()));
  }

  function send(message) {
    const socket = state.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  function setConnection(c) {
    state.connection = c;
    renderStatus();
  }

  // ---- messages ----------------------------------------------------------------------------

  function receive(message) {
    switch (message.type) {
      case "annotations":
        return applyAnnotations(message);
      case "callout":
        return applyCallout(message);
      case "status":
        if (message.day in state.feedFailed) state.feedFailed[message.day] = message.state === "failed";
        return renderStatus();
      case "place":
        return applyPlace(message);
      case "results":
        return applyResults(message);
      case "starred":
        return applyStarred(message);
      case "report":
        return applyReport(message);
      case "error":
        console.warn("isobar: error from the gateway", message);
        if (search.pending) showSearchError(message.message || message.reason || "error");
        state.lastError = { text: message.message || message.reason || "error", at: Date.now() };
        return renderStatus();
      default:
        return; // other client-facing types are not drawn by this page
    }
  }

  function applyAnnotations(m) {
    if (typeof m.version !== "number") return;
    if (m.full) {
      state.annotations.clear();
      for (const a of m.upsert || []) state.annotations.set(a.id, a);
      state.awaitingFull = false;
      clearTimeout(state.resyncTimer);
    } else {
      if (state.awaitingFull) return; // a full is on its way
      if (m.version <= state.version) return; // already applied
      if (m.version !== state.version + 1) {
        console.warn(`isobar: version gap (${state.version} -> ${m.version}); resync`);
        state.awaitingFull = true;
        requestResync();
        return;
      }
      for (const id of m.remove || []) state.annotations.delete(id);
      for (const a of m.upsert || []) state.annotations.set(a.id, a);
    }
    state.version = m.version;
    window.isobar.version = m.version;
    if ("source" in m || "fetchedAt" in m) {
      const snapshotChanged = !state.data || state.data.snapshot !== m.snapshot;
      state.data = {
        source: m.source,
        snapshot: m.snapshot,
        fetchedAt: m.fetchedAt,
        ageSeconds: m.ageSeconds,
        receivedAt: snapshotChanged || !state.data ? Date.now() / 1000 : state.data.receivedAt,
      };
    }
    const shown = { field: m.field || state.shown.field, units: m.units || state.shown.units };
    const restyle = shown.field !== state.shown.field || shown.units !== state.shown.units;
    state.shown = shown;
    drawMarkers(m.full, m.full ? [] : m.remove || [], m.upsert || []);
    if (restyle) redrawAllMarkers();
    renderStatus();
  }

  // Asks for the whole set again; repeats with backoff while no full arrives.
  function requestResync(delay) {
    clearTimeout(state.resyncTimer);
    send({ type: "resync", reason: "version gap" });
    const next = Math.min(16000, delay || RESYNC_RETRY_MS);
    state.resyncTimer = setTimeout(() => {
      if (state.awaitingFull) requestResync(next * 2);
    }, next);
  }

  // ---- markers -----------------------------------------------------------------------------

  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  /// Temperature in °F for colouring, whatever unit the title is in.
  function fahrenheit(a) {
    if (typeof a.value !== "number") return null;
    return state.shown.units === "metric" ? (a.value * 9) / 5 + 32 : a.value;
  }

  function temperatureClass(f) {
    if (f === null) return "t-unknown";
    if (f < 20) return "t-frigid";
    if (f < 40) return "t-cold";
    if (f < 55) return "t-cool";
    if (f < 70) return "t-mild";
    if (f < 85) return "t-warm";
    return "t-hot";
  }

  /// A station's marker, drawn faded when its data is stale (older than the filter's --stale-after).
  function markerHTML(a) {
    const html = stationOrClusterHTML(a);
    return a.stale && !a.cluster ? html.replace('class="ann ', 'class="ann stale ') : html;
  }

  function stationOrClusterHTML(a) {
    const title = a.title || "";
    if (a.cluster) {
      const digits = String(a.count || 0).length;
      return `<div class="ann cluster size-${Math.min(4, digits)}" data-id="${escapeHTML(a.id)}" title="${escapeHTML(a.subtitle || "")}">` +
        `<span class="count">${escapeHTML(a.count)}</span>` +
        (title ? `<span class="mean">${escapeHTML(title)}</span>` : "") + `</div>`;
    }
    const attrs = `data-id="${escapeHTML(a.id)}" title="${escapeHTML(a.subtitle || a.id)}"`;
    if (!title) return `<div class="ann unknown" ${attrs}>–</div>`;
    if (a.wind) {
      const w = a.wind;
      let text = title;
      if (w.arrow && text.endsWith(w.arrow)) text = text.slice(0, -w.arrow.length).trim();
      const arrow = typeof w.rotation === "number" && !w.calm
        ? `<span class="arrow" style="transform:rotate(${w.rotation}deg)">↑</span>` : "";
      return `<div class="ann wind${w.calm ? " calm" : ""}" ${attrs}>${arrow}<span>${escapeHTML(text)}</span></div>`;
    }
    if (state.shown.field === "precipitation") {
      const p = typeof a.value === "number" ? Math.max(0, Math.min(100, a.value)) : 0;
      return `<div class="ann precip" style="--p:${p}%" ${attrs}>${escapeHTML(title)}</div>`;
    }
    return `<div class="ann temp ${temperatureClass(fahrenheit(a))}" ${attrs}>${escapeHTML(title)}</div>`;
  }

  /// The longitude to draw `lon` at: the copy nearest the map's center.
  function nearLongitude(lon) {
    return lon + 360 * Math.round((map.getCenter().lng - lon) / 360);
  }

  function drawMarkers(full, removed, upserted) {
    if (full) {
      // Keep markers that are still there (no flicker); drop the rest.
      for (const [id, entry] of state.markers) {
        if (!state.annotations.has(id)) {
          markerLayer.removeLayer(entry.marker);
          state.markers.delete(id);
        }
      }
    } else {
      for (const id of removed) {
        const entry = state.markers.get(id);
        if (entry) {
          markerLayer.removeLayer(entry.marker);
          state.markers.delete(id);
        }
      }
    }
    for (const a of upserted) upsertMarker(a);
  }

  function upsertMarker(a) {
    const html = markerHTML(a);
    const lat = a.coordinate.latitude;
    const lon = a.coordinate.longitude;
    let entry = state.markers.get(a.id);
    if (!entry) {
      const marker = L.marker([lat, nearLongitude(lon)], {
        icon: L.divIcon({ className: "ann-icon", html, iconSize: null }),
        keyboard: true,
        riseOnHover: true,
      });
      marker.on("click", () => markerClicked(a.id));
      entry = { marker, html, lat, lon };
      state.markers.set(a.id, entry);
      markerLayer.addLayer(marker);
    } else {
      if (entry.lat !== lat || entry.lon !== lon) {
        entry.lat = lat;
        entry.lon = lon;
        entry.marker.setLatLng([lat, nearLongitude(lon)]);
      }
      if (entry.html !== html) {
        entry.html = html;
        entry.marker.setIcon(L.divIcon({ className: "ann-icon", html, iconSize: null }));
      }
    }
    entry.marker.getElement()?.classList.toggle("selected", a.id === state.selected);
  }

  // After a pan across the date line, move markers to the world copy beside the center.
  function rewrapMarkers() {
    const offset = 360 * Math.round(map.getCenter().lng / 360);
    if (offset === state.worldOffset) return;
    state.worldOffset = offset;
    for (const entry of state.markers.values()) entry.marker.setLatLng([entry.lat, nearLongitude(entry.lon)]);
    if (popup.isOpen()) {
      const p = popup.getLatLng();
      popup.setLatLng([p.lat, nearLongitude(p.lng)]);
    }
  }

  function redrawAllMarkers() {
    for (const a of state.annotations.values()) upsertMarker(a);
  }

  // ---- selection and callout ---------------------------------------------------------------

  // The map's own click (not a marker's) closes the callout; a click on another marker only moves it.
  const popup = L.popup({ className: "callout", maxWidth: 320, minWidth: 200, offset: [0, -8], autoPanPadding: [24, 24], closeOnClick: false });
  map.on("click", (e) => {
    // Alt-click asks for the station nearest the point (a long press does too: see contextmenu).
    if (e.originalEvent && e.originalEvent.altKey) return askNearest(e.latlng);
    if (popup.isOpen()) map.closePopup(popup);
  });
  let closingProgrammatically = false;
  map.on("popupclose", (e) => {
    if (e.popup !== popup || closingProgrammatically) return;
    if (state.selected) {
      setSelected(null);
      send({ type: "select", id: null });
    }
  });

  function closePopup() {
    closingProgrammatically = true;
    map.closePopup(popup);
    closingProgrammatically = false;
  }

  function setSelected(id) {
    const old = state.selected && state.markers.get(state.selected);
    old?.marker.getElement()?.classList.remove("selected");
    state.selected = id;
    const now = id && state.markers.get(id);
    now?.marker.getElement()?.classList.add("selected");
  }

  function markerClicked(id) {
    const a = state.annotations.get(id);
    if (!a) return;
    if (a.cluster) {
      // A cluster is not a station: zoom in on it, which splits it.
      map.setView([a.coordinate.latitude, nearLongitude(a.coordinate.longitude)], Math.min(map.getMaxZoom(), map.getZoom() + 2));
      return;
    }
    setSelected(id);
    send({ type: "select", id });
    // Show the station at once; the callout replaces this when it arrives.
    showPopup(a.coordinate, placeholderHTML(id, a.subtitle || id));
  }

  function showPopup(coordinate, html) {
    const latlng = L.latLng(coordinate.latitude, nearLongitude(coordinate.longitude));
    if (popup.isOpen()) {
      popup.setLatLng(latlng).setContent(html);
    } else {
      popup.setLatLng(latlng).setContent(html);
      closingProgrammatically = true; // opening closes any other popup
      popup.openOn(map);
      closingProgrammatically = false;
    }
  }

  function applyCallout(c) {
    if (c.clear) {
      if (!c.id || c.id === state.selected) {
        setSelected(null);
        closePopup();
      }
      return;
    }
    if (c.id !== state.selected) return; // an answer for an older selection
    const details = (c.details || [])
      .map((d) => `<dt>${escapeHTML(d.label)}</dt><dd>${escapeHTML(d.value)}</dd>`)
      .join("");
    const html = `<div class="callout-body" data-id="${escapeHTML(c.id)}" data-reason="${escapeHTML(c.reason || "")}">` +
      `${starHTML(c.id)}<h3>${escapeHTML(c.title || c.id)}</h3>` +
      (c.subtitle ? `<div class="sub">${escapeHTML(c.subtitle)}</div>` : "") +
      (details ? `<dl>${details}</dl>` : `<div class="loading">${escapeHTML(t("unknown"))}</div>`) +
      (c.stale ? `<div class="stale-note">${escapeHTML(t("stale"))}</div>` : "") +
      `<button type="button" class="detail-open" data-id="${escapeHTML(c.id)}">${escapeHTML(t("details"))}</button>` +
      `</div>`;
    const coordinate = c.coordinate || state.annotations.get(c.id)?.coordinate;
    if (coordinate) showPopup(coordinate, html);
  }

  // ---- controls ----------------------------------------------------------------------------

  function loadSettings() {
    const defaults = { day: "today", field: "temperature", units: "imperial", locale: "en" };
    const allowed = {
      day: ["today", "tomorrow"],
      field: ["temperature", "wind", "precipitation"],
      units: Object.keys(UNIT_CHOICES),
      locale: Object.keys(TEXT),
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

  function saveSettings() {
    try {
      localStorage.setItem("isobar.settings", JSON.stringify(settings));
    } catch (e) {
      /* private mode: settings last for this page only */
    }
  }

  function t(key, ...args) {
    const entry = (TEXT[settings.locale] || TEXT.en)[key];
    return typeof entry === "function" ? entry(...args) : entry;
  }

  for (const group of document.querySelectorAll("[data-control]")) {
    const key = group.dataset.control;
    group.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-value]");
      if (!button || settings[key] === button.dataset.value) return;
      settings[key] = button.dataset.value;
      saveSettings();
      renderControls();
      sendViewport(false);
      // Search titles are worded in the presentation of the request: ask again (after the
      // viewport, whose presentation the filter then uses). Favorites carry both days: redraw.
      if (search.lastSent !== null && search.lastSent === searchInput.value) sendSearch(true);
      if (key === "day" && window.isobar.favorites) applyStarred(window.isobar.favorites);
      // An open detail screen follows the day, units and locale: ask again.
      if (detail.id) requestDetail(detail.id);
    });
  }

  function renderControls() {
    document.documentElement.lang = settings.locale;
    for (const group of document.querySelectorAll("[data-control]")) {
      const key = group.dataset.control;
      for (const button of group.querySelectorAll("button")) {
        const on = button.dataset.value === settings[key];
        button.classList.toggle("on", on);
        button.setAttribute("aria-pressed", String(on));
        if (button.dataset.label) button.textContent = t(button.dataset.label);
      }
    }
    renderStatus();
  }

  // ---- status line -------------------------------------------------------------------------

  function formatAge(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  }

  /// Age of the shown data now: from the local clock and `fetchedAt` when the two clocks agree with
  /// the message's own `ageSeconds`; otherwise `ageSeconds` plus the time since the data arrived.
  function dataAge() {
    const d = state.data;
    if (!d || typeof d.fetchedAt !== "number") return null;
    const now = Date.now() / 1000;
    const byMessage = (d.ageSeconds || 0) + (now - d.receivedAt);
    const byClock = now - d.fetchedAt;
    return byClock >= (d.ageSeconds || 0) - 5 ? byClock : byMessage;
  }

  const statusDot = document.getElementById("status-connection");
  const statusText = document.getElementById("status-text");
  function renderStatus() {
    const parts = [];
    if (state.connection === "connected") parts.push(t("connected"));
    else if (state.connection === "reconnecting")
      parts.push(t("reconnecting", Math.max(0, Math.ceil((state.reconnectAt - Date.now()) / 1000))));
    else parts.push(t("connecting"));
    const d = state.data;
    if (d && d.snapshot == null) {
      parts.push(t("waiting"));
    } else if (d) {
      const age = dataAge();
      if (age !== null) parts.push(t("age", formatAge(age)));
      if (d.source === "store") parts.push(t("stored"));
    }
    if (state.feedFailed[settings.day]) parts.push(t("offline"));
    if (d || state.annotations.size) {
      let stations = 0;
      let clusters = 0;
      for (const a of state.annotations.values()) {
        if (a.cluster) clusters += 1;
        stations += a.cluster ? a.count || 0 : 1;
      }
      parts.push(clusters ? t("clustered", stations, state.annotations.size) : t("stations", stations));
    }
    if (state.lastError && Date.now() - state.lastError.at < 8000) parts.push(`⚠ ${state.lastError.text}`);
    statusText.textContent = parts.join(" · ");
    if (typeof renderFindText === "function") renderFindText();
    statusDot.className = `dot ${state.connection}${state.feedFailed[settings.day] ? " failed" : ""}${d && d.source === "store" ? " stored" : ""}`;
  }
  setInterval(renderStatus, 1000);

  // ---- find: search, nearest, favorites ----------------------------------------------------

  const SEARCH_DEBOUNCE_MS = 250;
  const SEARCH_TIMEOUT_MS = 8000;
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

  /// Sends the search box's query (unless blank or unchanged since the last send, `force` sends anyway).
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
    if (query.length > 100) return showSearchError(t("searchTooLong"));
    if (!force && query === search.lastSent) return;
    if (!send({ type: "search", query, limit: 20 })) return;
    state.searchesSent += 1;
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
  // (The panel is outside the map's container, so its clicks never reach the map. Leaflet 1.6's
  // disableClickPropagation must not be used on it: its click flag is reset only by the map, so
  // the map would drop its next click.)

  function showSearchError(text) {
    searchError.textContent = text ? `⚠ ${text}` : "";
    searchError.hidden = !text;
  }

  function applyResults(m) {
    // Answers to queries typed over since are dropped; so are answers with the box emptied.
    if (!searchInput.value.trim() || m.query !== searchInput.value) return;
    window.isobar.results = m;
    search.pending = null;
    clearTimeout(search.timeout);
    showSearchError(null);
    const hits = m.hits || [];
    const items = hits.map((h) => {
      const li = document.createElement("li");
      li.dataset.id = h.id;
      li.dataset.match = h.match || "";
      li.tabIndex = 0;
      li.innerHTML = `<span class="name">${escapeHTML(h.name || h.id)}</span>` +
        `<span class="id">${escapeHTML(h.id)}</span>` +
        `<span class="title">${escapeHTML(h.title || "–")}</span>` +
        `<span class="match m-${escapeHTML(h.match || "")}">${escapeHTML(h.match || "")}</span>`;
      const go = () => goTo(h.id, h.coordinate, h.name);
      li.addEventListener("click", go);
      li.addEventListener("keydown", (e) => e.key === "Enter" && go());
      return li;
    });
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = t("noHits", m.query);
      items.push(li);
    }
    resultsList.replaceChildren(...items);
    resultsList.hidden = false;
  }

  /// Pans and zooms to a station and selects it (the callout opens when the pipeline sends it).
  function goTo(id, coordinate, name) {
    if (!coordinate) return;
    const zoom = Math.max(map.getZoom(), 7);
    map.setView([coordinate.latitude, nearLongitude(coordinate.longitude)], zoom, { animate: false });
    setSelected(id);
    send({ type: "select", id });
    showPopup(coordinate, placeholderHTML(id, name || id));
  }

  function placeholderHTML(id, name) {
    return `<div class="callout-body">${starHTML(id)}<h3>${escapeHTML(name)}</h3>` +
      `<div class="sub">${escapeHTML(id)}</div><div class="loading">${escapeHTML(t("loading"))}</div></div>`;
  }

  function starHTML(id) {
    const on = favoriteIds.has(id);
    return `<button type="button" class="star${on ? " on" : ""}" data-id="${escapeHTML(id)}" aria-pressed="${on}" ` +
      `title="${escapeHTML(t(on ? "unstar" : "star"))}">${on ? "★" : "☆"}</button>`;
  }

  // The star in the callout: Leaflet stops clicks at the popup, so listen in the capture phase.
  document.addEventListener("click", (e) => {
    const star = e.target.closest && e.target.closest(".leaflet-popup .star");
    if (!star) return;
    e.preventDefault();
    const id = star.dataset.id;
    send({ type: "favorite", id, on: !favoriteIds.has(id) });
  }, true);

  function applyStarred(m) {
    window.isobar.favorites = m;
    const items = m.items || [];
    favoriteIds = new Set(items.map((i) => i.id));
    favoritesCount.textContent = String(typeof m.count === "number" ? m.count : items.length);
    const rows = items.map((item) => {
      const li = document.createElement("li");
      li.dataset.id = item.id;
      const day = item[settings.day] || item.today || item.tomorrow;
      if (item.known === false) {
        li.className = "unknown";
        li.innerHTML = `<span class="name">${escapeHTML(t("unknownStation"))}</span><span class="id">${escapeHTML(item.id)}</span>`;
      } else {
        li.tabIndex = 0;
        li.innerHTML = `<span class="name">${escapeHTML(item.name || item.id)}</span>` +
          `<span class="id">${escapeHTML(item.id)}</span>` +
          `<span class="title">${escapeHTML((day && day.title) || "–")}</span>`;
        const go = () => goTo(item.id, item.coordinate, item.name);
        li.addEventListener("click", go);
        li.addEventListener("keydown", (e) => e.key === "Enter" && go());
      }
      return li;
    });
    if (!rows.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = t("noFavorites");
      rows.push(li);
    }
    favoritesList.replaceChildren(...rows);
    // The open callout's star follows the list.
    const star = document.querySelector(".leaflet-popup .star");
    if (star) {
      const on = favoriteIds.has(star.dataset.id);
      star.classList.toggle("on", on);
      star.setAttribute("aria-pressed", String(on));
      star.textContent = on ? "★" : "☆";
      star.title = t(on ? "unstar" : "star");
    }
  }

  function askNearest(latlng) {
    const latitude = round6(Math.max(-90, Math.min(90, latlng.lat)));
    let longitude = round6(normalizeLongitude(latlng.lng));
    if (longitude >= 180) longitude -= 360;
    send({ type: "nearest", latitude, longitude });
  }
  nearestButton.addEventListener("click", () => askNearest(map.getCenter()));
  // A right click, or a long press on a touch screen (Leaflet fires contextmenu for both).
  map.on("contextmenu", (e) => askNearest(e.latlng));

  const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
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
      const from = [point.latitude, nearLongitude(point.longitude)];
      // The station's copy nearest the point, so the line never wraps round the world.
      const to = [c.latitude, c.longitude + 360 * Math.round((from[1] - c.longitude) / 360)];
      L.polyline([from, to], { color: "#d0602a", weight: 2, dashArray: "5 5", interactive: false }).addTo(placeLayer);
      L.circleMarker(from, { radius: 4, color: "#d0602a", fillOpacity: 1, interactive: false }).addTo(placeLayer);
      L.circleMarker(to, { radius: 11, color: "#d0602a", weight: 3, fill: false, interactive: false }).addTo(placeLayer);
    }
  }

  function renderFindText() {
    searchInput.placeholder = t("search");
    searchInput.setAttribute("aria-label", t("search"));
    nearestButton.textContent = t("nearestCentre");
    for (const el of document.querySelectorAll("[data-text]")) el.textContent = t(el.dataset.text);
    const only = favoritesList.children.length === 1 ? favoritesList.firstElementChild : null;
    if (!favoritesList.children.length || (only && only.classList.contains("empty"))) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = t("noFavorites");
      favoritesList.replaceChildren(li);
    }
  }

  // ---- detail screen ----------------------------------------------------------------------

  // `detail` -> `report` (PROTOCOL.md "Detail"): every known value of one station with its label and
  // unit in the chosen locale, and the forecast when the feed has one. Opened from a callout.
  const detail = { id: null, panel: document.getElementById("detail") };
  const detailContent = detail.panel.querySelector(".detail-content");

  function requestDetail(id) {
    detail.id = id;
    const units = UNIT_CHOICES[settings.units] || UNIT_CHOICES.imperial;
    send({ type: "detail", id, day: settings.day, units: units.units, windUnit: units.windUnit, locale: settings.locale });
  }

  function openDetail(id) {
    detail.panel.hidden = false;
    detailContent.innerHTML = `<h2>${escapeHTML(id)}</h2><div class="loading">${escapeHTML(t("loading"))}</div>`;
    requestDetail(id);
  }

  function closeDetail() {
    detail.id = null;
    detail.panel.hidden = true;
  }

  function linesHTML(lines) {
    return `<dl>${(lines || []).map((d) => `<dt>${escapeHTML(d.label)}</dt><dd>${escapeHTML(d.value)}</dd>`).join("")}</dl>`;
  }

  function forecastHTML(key, points) {
    if (!points || !points.length) return "";
    const rows = points.map((p) => `<li><div class="when">${escapeHTML(p.label || "")}` +
      (p.summary ? ` <span class="summary">${escapeHTML(p.summary)}</span>` : "") + `</div>` +
      `<div class="values">${(p.details || []).map((d) => `<span>${escapeHTML(d.label)}: ${escapeHTML(d.value)}</span>`).join(" · ")}</div></li>`);
    return `<h3>${escapeHTML(t(key))}</h3><ol class="forecast ${key}">${rows.join("")}</ol>`;
  }

  function applyReport(m) {
    if (!m.id || m.id !== detail.id) return; // an answer for a screen since closed or changed
    window.isobar.detail = m;
    const forecast = forecastHTML("hourly", m.hourly) + forecastHTML("daily", m.daily);
    detailContent.innerHTML = `<h2>${escapeHTML(m.title || m.id)}</h2>` +
      `<div class="sub">${escapeHTML(m.subtitle || "")}</div>` +
      (m.stale ? `<div class="stale-note">${escapeHTML(t("stale"))}</div>` : "") +
      linesHTML(m.details) +
      (forecast || `<div class="no-forecast">${escapeHTML(t("noForecast"))}</div>`);
    detailContent.dataset.id = m.id;
    detailContent.dataset.locale = m.locale || "";
  }

  // The callout's Details button: Leaflet stops clicks at the popup, so listen in the capture phase.
  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest(".leaflet-popup .detail-open");
    if (!button) return;
    e.preventDefault();
    openDetail(button.dataset.id);
  }, true);
  detail.panel.querySelector(".close").addEventListener("click", closeDetail);

  // ---- start -------------------------------------------------------------------------------

  window.isobar = {
    annotations: state.annotations,
    viewport: null,
    version: 0,
    map,
    settings,
    state,
    send,
    receive, // lets a test inject a message (e.g. a diff after a version gap)
    results: null, // the last `results` frame
    place: null, // the last `place` frame
    favorites: null, // the last `starred` frame
    detail: null, // the last `report` shown (the detail screen)
    openDetail,
    closeDetail,
  };
  renderControls();
  claimClientName().then(connect);
})();
