// The map view: Leaflet with the GSHHG coast, lakes and borders and Natural Earth's states in a
// light or dark style, the annotations as markers (temperature colours, wind arrows,
// precipitation fill, clusters, stale faded), the legend, and the "my location" control. Leaflet is the global L of Debian's leaflet.js.
import { escapeHTML } from "./i18n.mjs";
import { HIT_SIZE, nearestMarker } from "./targets.mjs";
import { ICONS, iconName, iconSVG } from "./icons.mjs";

const L = globalThis.L;

/// The brief's initial region (the iOS app's): center plus span, fitted to the window.
export const INITIAL = { latitude: 40.924, longitude: -108.0955, latitudeDelta: 25, longitudeDelta: 20 };

/// Temperature bands in °F (the marker colours), low to high: class, upper bound.
export const TEMPERATURE_BANDS = [
  ["t-frigid", 20], ["t-cold", 40], ["t-cool", 55], ["t-mild", 70], ["t-warm", 85], ["t-hot", Infinity],
];

/// Place labels: at most this many in view, and only places of at least placeMinimum(zoom) people.
const PLACE_LABELS = 40;
export function placeMinimum(zoom) {
  return zoom < 3 ? 5000000 : zoom < 4 ? 2000000 : zoom < 5 ? 1000000 : 500000;
}

const STATE_STYLES = {
  light: { color: "#a9b6c2", weight: 0.7, dashArray: "3 3", fill: false },
  dark: { color: "#56636f", weight: 0.7, dashArray: "3 3", fill: false },
};

/// The GSHHG basemap (Web/coast.json): land filled over the sea colour with the coastline drawn,
/// lakes in the sea colour over the land, national borders as solid lines. Each style is a
/// function of the feature's `kind`, per map style.
export const COAST_STYLES = {
  light: {
    land: { color: "#7d8d9b", weight: 0.8, fillColor: "#f4f1e8", fillOpacity: 1 },
    lake: { color: "#7d8d9b", weight: 0.6, fillColor: "#c9dce8", fillOpacity: 1 },
    border: { color: "#8c99a6", weight: 0.9, fill: false },
  },
  dark: {
    land: { color: "#71808e", weight: 0.8, fillColor: "#2f3a45", fillOpacity: 1 },
    lake: { color: "#71808e", weight: 0.6, fillColor: "#16212c", fillOpacity: 1 },
    border: { color: "#84939f", weight: 0.9, fill: false },
  },
};

/// The Leaflet style of a basemap feature in a map style: coast.json's by kind, states' as one.
export function basemapStyle(styles, theme, feature) {
  const set = styles[theme] || styles.light;
  const kind = feature?.properties?.kind;
  return kind && set[kind] ? set[kind] : set;
}

/// Marker collision: which labels to draw as dots so that no two drawn labels overlap. `boxes`
/// are {id, x, y, w, h, keep} (centre and size in px) in priority order; `keep` ones (clusters,
/// the selected station) are placed first and always drawn whole; every other box is drawn whole
/// when it overlaps none placed before it, else as a dot (its station stays on the map, coloured,
/// tappable: zoom in to read it). Greedy and deterministic: same boxes, same answer.
export function declutter(boxes, gap = 1) {
  const placed = [];
  const dots = new Set();
  const hits = (b) => placed.some((p) => Math.abs(p.x - b.x) * 2 < p.w + b.w + 2 * gap && Math.abs(p.y - b.y) * 2 < p.h + b.h + 2 * gap);
  for (const b of [...boxes.filter((b) => b.keep), ...boxes.filter((b) => !b.keep)]) {
    if (!b.keep && hits(b)) dots.add(b.id);
    else placed.push(b);
  }
  return dots;
}

export function regionBounds(r) {
  return L.latLngBounds(
    [r.latitude - r.latitudeDelta / 2, r.longitude - r.longitudeDelta / 2],
    [r.latitude + r.latitudeDelta / 2, r.longitude + r.longitudeDelta / 2]);
}

/// Temperature class for a value in °F (null: unknown).
export function temperatureClass(f) {
  if (f === null) return "t-unknown";
  return TEMPERATURE_BANDS.find(([, upper]) => f < upper)[0];
}

export function createMapView(ctx) {
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
  // Top left, away from the panel (top right on wide screens, bottom sheet on phones).
  L.control.zoom({ position: "topleft" }).addTo(map);
  map.attributionControl.setPrefix('<a href="https://leafletjs.com" rel="noopener">Leaflet</a> (BSD-2)');
  map.attributionControl.addAttribution('Coast, lakes, borders: <a href="https://www.soest.hawaii.edu/pwessel/gshhg/" rel="noopener">GSHHG</a> (<a href="https://www.gnu.org/licenses/lgpl-3.0.html" rel="noopener">LGPL</a>)');
  map.attributionControl.addAttribution('States: <a href="https://www.naturalearthdata.com" rel="noopener">Natural Earth</a> (public domain)');
  // Place labels, the search box's places and the pin's names are GeoNames data (CC BY 4.0).
  map.attributionControl.addAttribution('Places: <a href="https://www.geonames.org/" rel="noopener">GeoNames</a> (<a href="https://creativecommons.org/licenses/by/4.0/" rel="noopener">CC BY 4.0</a>)');
  map.fitBounds(regionBounds(INITIAL), { animate: false });

  const basemapRenderer = L.canvas({ padding: 0.5 });
  map.createPane("basemap").style.zIndex = 250; // under markers and popups
  const basemap = [];
  const markerLayer = L.layerGroup().addTo(map);
  const markers = new Map(); // id -> { marker, html, lat, lon }
  let worldOffset = 0;
  let theme = "light";

  // Land, lakes and national borders (Web/coast.json, GSHHG low resolution), then state and
  // province borders over them (Web/states.json, Natural Earth 1:50m admin-1), each drawn three
  // times (one world either side) so panning across the date line never shows an empty ocean.
  const loadLayer = (url, styles) => fetch(url)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${url}: HTTP ${r.status}`))))
    .then((geojson) => {
      for (const offset of [-360, 0, 360]) {
        const layer = L.geoJSON(geojson, {
          pane: "basemap",
          renderer: basemapRenderer,
          interactive: false,
          style: (feature) => basemapStyle(styles, theme, feature),
          coordsToLatLng: (c) => L.latLng(c[1], c[0] + offset),
        }).addTo(map);
        basemap.push([layer, styles]);
      }
    });
  loadLayer("web/coast.json", COAST_STYLES)
    .then(() => loadLayer("web/states.json", STATE_STYLES))
    .catch((e) => console.warn("isobar: basemap incomplete", e));

  // Place labels (GeoNames, Web/places.json): at each zoom only places big enough to matter there,
  // at most PLACE_LABELS of them in view, drawn under the markers and never clickable; a label a
  // station marker would cover (cut to "San Fra") is hidden instead (relabel).
  map.createPane("places").style.zIndex = 350;
  map.getPane("places").style.pointerEvents = "none";
  const placeLayer = L.layerGroup().addTo(map);
  let places = [];
  let placeLabels = []; // the L.marker of each label drawn, most populous first
  fetch("web/places.json")
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`places.json: HTTP ${r.status}`))))
    .then((rows) => {
      places = rows;
      drawPlaces();
    })
    .catch((e) => console.warn("isobar: no place labels", e));

  function drawPlaces() {
    placeLayer.clearLayers();
    placeLabels = [];
    const zoom = map.getZoom();
    const minimum = placeMinimum(zoom);
    const bounds = map.getBounds();
    let shown = 0;
    for (const [name, lat, lon, population] of places) {
      if (population < minimum || shown >= PLACE_LABELS) break; // most populous first
      const at = L.latLng(lat, nearLongitude(lon));
      if (!bounds.contains(at)) continue;
      shown += 1;
      placeLabels.push(L.marker(at, {
        pane: "places", interactive: false, keyboard: false,
        icon: L.divIcon({ className: "place-label", html: `<span>${escapeHTML(name)}</span>`, iconSize: null }),
      }).addTo(placeLayer));
    }
    relabel();
  }
  map.on("moveend", drawPlaces);

  function setTheme(name) {
    theme = COAST_STYLES[name] ? name : "light";
    document.body.classList.toggle("theme-dark", theme === "dark");
    for (const [layer, styles] of basemap) layer.setStyle((feature) => basemapStyle(styles, theme, feature));
  }

  /// The longitude to draw `lon` at: the copy nearest the map's center.
  function nearLongitude(lon) {
    return lon + 360 * Math.round((map.getCenter().lng - lon) / 360);
  }

  /// Temperature in °F for colouring, whatever unit the title is in.
  function fahrenheit(a) {
    if (typeof a.value !== "number") return null;
    return ctx.shown().units === "metric" ? (a.value * 9) / 5 + 32 : a.value;
  }

  /// A marker's HTML; stale stations (older than the filter's --stale-after) are drawn faded.
  function markerHTML(a) {
    const title = a.title || "";
    const stale = a.stale && !a.cluster ? " stale" : "";
    if (ctx.shown().field === "conditions") return conditionsMarkerHTML(a, ctx.settings?.locale);
    if (a.cluster) {
      const digits = String(a.count || 0).length;
      return `<div class="ann cluster size-${Math.min(4, digits)}" data-id="${escapeHTML(a.id)}" title="${escapeHTML(a.subtitle || "")}">` +
        `<span class="count">${escapeHTML(a.count)}</span>` +
        (title ? `<span class="mean">${escapeHTML(title)}</span>` : "") + `</div>`;
    }
    const attrs = `data-id="${escapeHTML(a.id)}" title="${escapeHTML(a.subtitle || a.id)}"`;
    if (!title) return `<div class="ann${stale} unknown" ${attrs}>–</div>`;
    if (a.wind) {
      const w = a.wind;
      let text = title;
      if (w.arrow && text.endsWith(w.arrow)) text = text.slice(0, -w.arrow.length).trim();
      const arrow = typeof w.rotation === "number" && !w.calm
        ? `<span class="arrow" style="transform:rotate(${w.rotation}deg)">↑</span>` : "";
      return `<div class="ann${stale} wind${w.calm ? " calm" : ""}" ${attrs}>${arrow}<span>${escapeHTML(text)}</span></div>`;
    }
    if (ctx.shown().field === "precipitation") {
      const p = typeof a.value === "number" ? Math.max(0, Math.min(100, a.value)) : 0;
      return `<div class="ann${stale} precip" style="--p:${p}%" ${attrs}>${escapeHTML(title)}</div>`;
    }
    return `<div class="ann${stale} temp ${temperatureClass(fahrenheit(a))}" ${attrs}>${escapeHTML(title)}</div>`;
  }

  function removeMarker(id) {
    const entry = markers.get(id);
    if (entry) {
      markerLayer.removeLayer(entry.marker);
      markers.delete(id);
    }
  }

  function upsertMarker(a) {
    const html = markerHTML(a);
    const lat = a.coordinate.latitude;
    const lon = a.coordinate.longitude;
    let entry = markers.get(a.id);
    if (!entry) {
      const marker = L.marker([lat, nearLongitude(lon)], {
        icon: L.divIcon({ className: "ann-icon", html, iconSize: null }),
        keyboard: true,
        riseOnHover: true,
        title: a.subtitle || a.id,
        alt: a.subtitle || a.id,
      });
      marker.on("click", () => ctx.onMarkerClick(a.id));
      // Leaflet 1.6 makes a marker focusable (keyboard: true) but opens only a bound popup on
      // Enter; the callout is the page's own, so Enter or Space on a focused marker opens it here.
      marker.on("keypress", (e) => {
        if (e.originalEvent.key === "Enter" || e.originalEvent.key === " ") {
          e.originalEvent.preventDefault();
          ctx.onMarkerClick(a.id);
        }
      });
      entry = { marker, html, lat, lon };
      markers.set(a.id, entry);
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
    entry.marker.getElement()?.classList.toggle("selected", a.id === ctx.selected());
  }

  /// Redraws after an AnnotationSet result: `full` drops markers no longer held (keeping the
  /// others, no flicker), `diff` its removals; then the upserts; a restyle redraws everything.
  function draw(result, items) {
    for (const id of result.removed) removeMarker(id);
    if (result.kind === "full") for (const id of [...markers.keys()]) if (!items.has(id)) removeMarker(id);
    for (const a of result.upserted) upsertMarker(a);
    if (result.restyle) for (const a of items.values()) upsertMarker(a);
    relabel();
  }

  /// Draws a whole set (an offline start from the kept annotations).
  function drawAll(items) {
    for (const id of [...markers.keys()]) if (!items.has(id)) removeMarker(id);
    for (const a of items.values()) upsertMarker(a);
    relabel();
  }

  function setSelectedClass(id, on) {
    markers.get(id)?.marker.getElement()?.classList.toggle("selected", on);
    relabel();
  }

  /// Draws the labels that would overlap another as dots (declutter): clusters and the selected
  /// station first, then stations by id, so the same view always shows the same labels. A label's
  /// size is measured whole (before it is made a dot) each time its HTML is drawn anew. Then hides
  /// the place labels that a station or an earlier (more populous) place label would cover.
  function relabel() {
    const boxes = [];
    for (const [id, entry] of markers) {
      const el = entry.marker.getElement()?.querySelector(".ann");
      if (!el) continue;
      if (entry.size === undefined || entry.sizeOf !== el) {
        el.classList.remove("dot");
        const r = el.getBoundingClientRect(); // fractional px (offsetWidth rounds)
        entry.size = [r.width, r.height];
        entry.sizeOf = el;
      }
      const p = map.latLngToLayerPoint(entry.marker.getLatLng());
      boxes.push({ id, x: p.x, y: p.y, w: entry.size[0], h: entry.size[1], keep: el.classList.contains("cluster") || id === ctx.selected(), el, entry });
    }
    boxes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const dots = declutter(boxes);
    for (const b of boxes) {
      const dot = dots.has(b.id);
      if (b.el.classList.contains("dot") !== dot) {
        b.el.classList.toggle("dot", dot);
        b.entry.marker.setZIndexOffset(dot ? -1000 : 0);
      }
    }
    // Place labels go where no station (label or dot) is: the stations are placed first, whole.
    const DOT = 12;
    const occupied = boxes.map((b) => (dots.has(b.id) ? { ...b, w: DOT, h: DOT, keep: true } : { ...b, keep: true }));
    const labels = [];
    placeLabels.forEach((m, i) => {
      const span = m.getElement()?.firstElementChild;
      if (!span) return;
      const p = map.latLngToLayerPoint(m.getLatLng());
      const r = span.getBoundingClientRect();
      labels.push({ id: `place:${i}`, x: p.x, y: p.y, w: r.width, h: r.height, keep: false, el: m.getElement() });
    });
    // 2 px apart: Leaflet rounds each marker's position to a whole pixel.
    const covered = declutter([...occupied, ...labels], 2);
    for (const l of labels) l.el.classList.toggle("covered", covered.has(l.id));
  }
  map.on("zoomend", relabel);

  /// The hit area's side in px now (isobar.css `--hit`: 44 on touch screens, 24 with a mouse).
  function hitSize() {
    const css = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--hit"));
    return Number.isFinite(css) ? css : HIT_SIZE.fine;
  }

  /// The station or cluster a tap at each point {x, y} (viewport px) means (targets.mjs
  /// nearestMarker): the marker drawn on top there first (`top`, an id, else the one under the
  /// point), then whole labels before dots (dots are drawn under them). null: no marker's hit
  /// area is there. The boxes are measured once for all the points.
  function markersAt(points) {
    const boxes = [];
    const byId = new Map();
    for (const [id, entry] of markers) {
      const el = entry.marker.getElement()?.querySelector(".ann");
      if (!el) continue;
      const r = el.getBoundingClientRect();
      const box = { id, left: r.left, top: r.top, right: r.right, bottom: r.bottom, dot: el.classList.contains("dot") };
      boxes.push(box);
      byId.set(id, box);
    }
    boxes.sort((a, b) => a.dot - b.dot);
    const size = hitSize();
    return points.map(({ x, y, top }) => {
      const first = byId.get(top ?? document.elementFromPoint(x, y)?.closest(".ann[data-id]")?.dataset.id);
      return nearestMarker({ x, y }, first ? [first, ...boxes] : boxes, size);
    });
  }

  // Hit areas of close markers overlap (isobar.css `.ann::after`): a click or tap on one goes to
  // the marker nearest to it, which need not be the one drawn on top. Capture phase, so Leaflet
  // (which handles marker clicks on the map's container) never sees a click meant for another.
  map.getPane("markerPane").addEventListener("click", (e) => {
    const el = e.target.closest?.(".ann[data-id]");
    if (!el) return;
    const [id] = markersAt([{ x: e.clientX, y: e.clientY, top: el.dataset.id }]);
    if (id !== null && id !== el.dataset.id) {
      e.stopPropagation();
      e.preventDefault();
      ctx.onMarkerClick(id);
    }
  }, true);

  // After a pan across the date line, move markers to the world copy beside the center.
  function rewrap(popup) {
    const offset = 360 * Math.round(map.getCenter().lng / 360);
    if (offset === worldOffset) return;
    worldOffset = offset;
    for (const entry of markers.values()) entry.marker.setLatLng([entry.lat, nearLongitude(entry.lon)]);
    relabel();
    if (popup && popup.isOpen()) {
      const p = popup.getLatLng();
      popup.setLatLng([p.lat, nearLongitude(p.lng)]);
    }
  }

  return { map, markers, draw, drawAll, setSelectedClass, rewrap, nearLongitude, setTheme, markerHTML, relabel, markersAt };
}

/// A marker of the conditions field: the station's weather icon (its word, the annotation's
/// title, as the accessible name), a cluster's count over its most common icon, and "–" for a
/// station whose feed reports no conditions (no `icon`; PROTOCOL.md "Formatting rules, exactly").
export function conditionsMarkerHTML(a, locale = "en") {
  const title = a.title || "";
  const icon = iconSVG(a.icon, a.cluster ? 20 : 26, locale);
  if (a.cluster) {
    const digits = String(a.count || 0).length;
    return `<div class="ann cluster cond size-${Math.min(4, digits)}" data-id="${escapeHTML(a.id)}" data-icon="${escapeHTML(a.icon || "")}" ` +
      `title="${escapeHTML([a.subtitle, title].filter(Boolean).join(": "))}"><span class="count">${escapeHTML(a.count)}</span>${icon}</div>`;
  }
  const stale = a.stale ? " stale" : "";
  const label = escapeHTML([a.subtitle || a.id, title].filter(Boolean).join(": "));
  if (!icon) return `<div class="ann${stale} cond unknown" data-id="${escapeHTML(a.id)}" title="${label}">–</div>`;
  return `<div class="ann${stale} cond" data-id="${escapeHTML(a.id)}" data-icon="${escapeHTML(a.icon)}" title="${label}">${icon}</div>`;
}

/// The legend for the field shown: the temperature colour scale in the shown unit, the
/// precipitation fill, the wind arrow and calm; clusters, unknown and stale markers explained.
export function legendHTML(field, units, t, locale = "en") {
  const metric = units === "metric";
  const unit = metric ? "°C" : "°F";
  const show = (f) => (metric ? Math.round(((f - 32) * 5) / 9) : f);
  let scale = "";
  if (field === "temperature") {
    let lower = null;
    scale = `<ul class="legend-scale" aria-label="${escapeHTML(t("temperature"))} ${unit}">` + TEMPERATURE_BANDS.map(([cls, upper]) => {
      const text = lower === null ? `< ${show(upper)}` : upper === Infinity ? `≥ ${show(lower)}` : `${show(lower)}–${show(upper)}`;
      lower = upper;
      return `<li><span class="swatch ann ${cls}"></span>${escapeHTML(text)}</li>`;
    }).join("") + `</ul><div class="legend-unit">${escapeHTML(t("temperature"))}, ${unit}</div>`;
  } else if (field === "precipitation") {
    scale = `<ul class="legend-scale">` + [0, 30, 60, 100].map((p) =>
      `<li><span class="swatch ann precip" style="--p:${p}%"></span>${p}%</li>`).join("") +
      `</ul><div class="legend-unit">${escapeHTML(t("legendPrecip"))}</div>`;
  } else if (field === "conditions") {
    // Day and night icons of one condition share a row.
    const rows = ICONS.filter((icon) => !icon.endsWith("-night")).map((icon) => {
      const night = icon.endsWith("-day") ? icon.replace(/-day$/, "-night") : null;
      return `<li data-icon="${icon}"><span class="swatch icon">${iconSVG(icon, 20, locale)}${night ? iconSVG(night, 20, locale) : ""}</span>` +
        `${escapeHTML(iconName(icon, locale))}</li>`;
    }).join("");
    scale = `<ul class="legend-keys legend-icons">${rows}</ul>` +
      `<ul class="legend-keys"><li><span class="swatch ann cond unknown">–</span>${escapeHTML(t("legendNoConditions"))}</li></ul>`;
  } else {
    scale = `<ul class="legend-keys"><li><span class="swatch ann wind"><span class="arrow" style="transform:rotate(90deg)">↑</span></span>${escapeHTML(t("legendWindArrow"))}</li>` +
      `<li><span class="swatch ann wind calm">calm</span>${escapeHTML(t("legendCalm"))}</li></ul>`;
  }
  return scale + `<ul class="legend-keys">` +
    `<li><span class="swatch ann cluster"><span class="count">12</span></span>${escapeHTML(t(field === "conditions" ? "legendClusterIcon" : "legendCluster"))}</li>` +
    `<li><span class="swatch ann unknown">–</span>${escapeHTML(t("legendUnknown"))}</li>` +
    `<li><span class="swatch ann dot temp t-mild"></span>${escapeHTML(t("legendDot"))}</li>` +
    `<li><span class="swatch ann stale temp t-mild">46°</span>${escapeHTML(t("legendStale"))}</li></ul>`;
}
