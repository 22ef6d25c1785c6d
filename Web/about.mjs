// About and data sources: what the map shows comes from, with the credit each licence asks for.
// Feeds are named from what the page saw: the `formats` of `status` messages (each source's format,
// as fetch resolved it; PROTOCOL.md "status"), station id prefixes (`onx:`, `metar:` ... when a
// fetcher joins several sources) and the feed URLs of `status` messages.
import { escapeHTML } from "./i18n.mjs";

/// Credits the feeds' terms ask for, by the source label fetch gives them (PROTOCOL.md "Several
/// sources"): `credit` in About, `short` in the map's attribution line.
export const FEEDS = {
  onx: { short: 'onX', name: "onX Weather", credit: "Weather data: onX" },
  openweather: { short: '<a href="https://openweathermap.org/" rel="noopener">OpenWeather</a>', name: "OpenWeather", credit: 'Weather data provided by <a href="https://openweathermap.org/" rel="noopener">OpenWeather</a> (CC BY-SA 4.0)' },
  darksky: { short: '<a href="https://darksky.net/poweredby/" rel="noopener">Powered by Dark Sky</a>', name: "Dark Sky", credit: '<a href="https://darksky.net/poweredby/" rel="noopener">Powered by Dark Sky</a>' },
  airvisual: { short: 'IQAir AirVisual', name: "AirVisual (IQAir)", credit: 'Weather and air data: <a href="https://www.iqair.com/" rel="noopener">IQAir AirVisual</a>' },
  metar: { short: 'METAR: <a href="https://aviationweather.gov/" rel="noopener">NOAA Aviation Weather Center</a>', name: "METAR (Aviation Weather Center)",
    credit: 'METAR observations. Source: NOAA <a href="https://aviationweather.gov/" rel="noopener">Aviation Weather Center</a> ' +
    "(U.S. National Weather Service data, public domain)" },
  openmeteo: { short: '<a href="https://open-meteo.com/" rel="noopener">Weather data by Open-Meteo.com</a> (CC BY 4.0)', name: "Open-Meteo", credit: '<a href="https://open-meteo.com/" rel="noopener">Weather data by Open-Meteo.com</a>, licensed under ' +
    '<a href="https://creativecommons.org/licenses/by/4.0/" rel="noopener">CC BY 4.0</a>' },
  nws: { short: '<a href="https://www.weather.gov/" rel="noopener">NOAA NWS</a> (public domain)', name: "National Weather Service",
    credit: 'Observations. Source: NOAA <a href="https://www.weather.gov/" rel="noopener">National Weather Service</a> ' +
    "(api.weather.gov, public domain)" },
};

/// The formats named by a `status` (its `formats`, each source's format in source order), kept per
/// day: `known` with the status's day replaced. A status without `formats` (the filter's `held`, an
/// `auto` source not yet read) changes nothing.
export function mergeFormats(known, status) {
  const formats = Array.isArray(status?.formats) ? status.formats.filter((f) => typeof f === "string" && FEEDS[f]) : [];
  if (!formats.length || (status.day !== "today" && status.day !== "tomorrow")) return known;
  return { ...known, [status.day]: [...new Set(formats)].sort() };
}

/// The feeds to credit: those the statuses named (either day) and those station ids show, sorted.
export function creditedFeeds(formatsByDay, ids) {
  return [...new Set([...(formatsByDay.today || []), ...(formatsByDay.tomorrow || []), ...feedLabels(ids)])].sort();
}

/// The feed labels among station ids ("onx:K1D3" -> "onx", "darksky-2:..." -> "darksky").
export function feedLabels(ids) {
  const labels = new Set();
  for (const id of ids) {
    const m = /^([a-z]+)(?:-\d+)?:/.exec(id);
    if (m && FEEDS[m[1]]) labels.add(m[1]);
  }
  return [...labels].sort();
}

/// Feed URLs remembered across reloads (localStorage), newest first, at most this many.
export const FEEDS_KEPT = 8;
const FEEDS_KEY = "isobar.feeds";
const FORMATS_KEY = "isobar.formats";

/// The feed URLs known after a `status` message: its `url` (several joined by " + " when a
/// fetcher polls several sources) put first, the others kept after it, at most FEEDS_KEPT. A
/// status without a URL (the filter's `held` has an empty one) changes nothing.
export function mergeFeeds(known, status) {
  const urls = typeof status?.url === "string" ? status.url.split(" + ").map((u) => u.trim()).filter(Boolean) : [];
  if (!urls.length) return known;
  return [...new Set([...urls, ...known])].slice(0, FEEDS_KEPT);
}

export function createAbout(ctx) {
  const dialog = document.getElementById("about");
  const content = dialog.querySelector(".about-content");
  // The gateway relays `status` as fetches happen (it keeps none for a new page), so the URLs
  // seen are kept: a reload names the feed at once.
  let urls = [];
  try {
    const kept = JSON.parse(localStorage.getItem(FEEDS_KEY) || "[]");
    if (Array.isArray(kept)) urls = kept.filter((u) => typeof u === "string").slice(0, FEEDS_KEPT);
  } catch (e) {
    /* unreadable: start empty */
  }
  let formats = {};
  try {
    const kept = JSON.parse(localStorage.getItem(FORMATS_KEY) || "{}");
    for (const day of ["today", "tomorrow"]) formats = mergeFormats(formats, { day, formats: kept?.[day] });
  } catch (e) {
    /* unreadable: start empty */
  }

  // The map's attribution line names the weather feeds too (Open-Meteo asks for its credit
  // wherever its data is shown): one entry, replaced when the feeds change.
  let attribution = "";
  function syncAttribution() {
    const labels = creditedFeeds(formats, ctx.client?.set?.items?.keys?.() || []);
    const next = labels.length ? "Weather: " + labels.map((l) => FEEDS[l].short).join("; ") : "";
    if (next === attribution || !ctx.map?.attributionControl) return;
    if (attribution) ctx.map.attributionControl.removeAttribution(attribution);
    if (next) ctx.map.attributionControl.addAttribution(next);
    attribution = next;
  }

  function noteStatus(m) {
    const named = mergeFormats(formats, m);
    if (named !== formats) {
      formats = named;
      try {
        localStorage.setItem(FORMATS_KEY, JSON.stringify(formats));
      } catch (e) {
        /* private mode or full: named again after the next status */
      }
      if (dialog.open) render();
      syncAttribution();
    }
    const next = mergeFeeds(urls, m);
    if (next === urls || JSON.stringify(next) === JSON.stringify(urls)) return;
    urls = next;
    try {
      localStorage.setItem(FEEDS_KEY, JSON.stringify(urls));
    } catch (e) {
      /* private mode or full: named again after the next status */
    }
  }

  function render() {
    const labels = creditedFeeds(formats, ctx.client.set.items.keys());
    const feeds = labels.length
      ? labels.map((l) => `<li>${FEEDS[l].credit}</li>`).join("") +
        (urls.length ? `<li>Fetched from: ${urls.map((u) => escapeHTML(u)).join(", ")}.</li>` : "")
      : `<li>Weather stations: the feed this server fetches${urls.length ? ` (${urls.map((u) => escapeHTML(u)).join(", ")})` : ""}. ` +
        `Each of these carries its own credit when fetched: ${Object.values(FEEDS).map((f) => escapeHTML(f.name)).join(", ")}.</li>`;
    content.innerHTML = `<p>Isobar turns live weather-station feeds into the map annotations for the part of the map you look at.</p>` +
      `<h3>Data sources</h3><ul class="sources" data-feeds="${labels.join(" ")}">${feeds}` +
      `<li>Place names and time zones: <a href="https://www.geonames.org/" rel="noopener">GeoNames</a>, licensed under ` +
      `<a href="https://creativecommons.org/licenses/by/4.0/" rel="noopener">CC BY 4.0</a>.</li>` +
      `<li>Coastlines, lakes and national borders: <a href="https://www.soest.hawaii.edu/pwessel/gshhg/" rel="noopener">GSHHG</a> 2.3.7 ` +
      `(Global Self-consistent Hierarchical High-resolution Geography, P. Wessel and W. H. F. Smith), low resolution, simplified; ` +
      `<a href="https://www.gnu.org/licenses/lgpl-3.0.html" rel="noopener">GNU LGPL 3.0 or later</a>.</li>` +
      `<li>State and province borders (1:50m): <a href="https://www.naturalearthdata.com/" rel="noopener">Made with Natural Earth</a>. Free vector and raster map data (public domain).</li>` +
      `<li>Map library: <a href="https://leafletjs.com/" rel="noopener">Leaflet</a> © Volodymyr Agafonkin, BSD 2-Clause licence.</li>` +
      `<li>Weather icons: drawn by Isobar.</li></ul>`;
  }

  function open() {
    render();
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    dialog.querySelector(".close").focus();
  }

  dialog.querySelector(".close").addEventListener("click", () => dialog.close());
  document.getElementById("about-open").addEventListener("click", open);
  syncAttribution();
  return { open, render, noteStatus, syncAttribution };
}
