// About and data sources: what the map shows comes from, with the credit each licence asks for.
// Feeds are named from what the page saw: station id prefixes (`onx:`, `darksky:` ... when a
// fetcher joins several sources) and the feed URLs of `status` messages.
import { escapeHTML } from "./i18n.mjs";

/// Credits the feeds' terms ask for, by the source label fetch gives them (PROTOCOL.md "Several sources").
export const FEEDS = {
  onx: { name: "onX Weather", credit: "Weather data: onX" },
  openweather: { name: "OpenWeather", credit: 'Weather data provided by <a href="https://openweathermap.org/" rel="noopener">OpenWeather</a> (CC BY-SA 4.0)' },
  darksky: { name: "Dark Sky", credit: '<a href="https://darksky.net/poweredby/" rel="noopener">Powered by Dark Sky</a>' },
  airvisual: { name: "AirVisual (IQAir)", credit: 'Weather and air data: <a href="https://www.iqair.com/" rel="noopener">IQAir AirVisual</a>' },
};

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

  function noteStatus(m) {
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
    const labels = feedLabels(ctx.client.set.items.keys());
    const feeds = labels.length
      ? labels.map((l) => `<li>${FEEDS[l].credit}</li>`).join("")
      : `<li>Weather stations: the feed this server fetches${urls.length ? ` (${urls.map((u) => escapeHTML(u)).join(", ")})` : ""}. ` +
        `OpenWeather, Dark Sky and AirVisual data carry their own credit when fetched: ${Object.values(FEEDS).map((f) => escapeHTML(f.name)).join(", ")}.</li>`;
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
  return { open, render, noteStatus };
}
