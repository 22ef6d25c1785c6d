// The pure helpers the views draw with: the viewport message and the fitting limit, the weather
// icons for PROTOCOL.md's vocabulary, the forecast's numbers, local times and chart, feed labels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { viewportMessage, fittingLimit, nearestMessage, searchMessage, socketURL, detailMessage, geocodeMessage, reverseMessage,
  placeRegion, compassBearing, samePoint } from "../../Web/client.mjs";
import { ICONS, iconSVG } from "../../Web/icons.mjs";
import { pointValues, displayZone, clock, hourlyChartSVG, dailyRowsHTML } from "../../Web/forecast.mjs";
import { feedLabels, mergeFeeds, FEEDS_KEPT } from "../../Web/about.mjs";
import { hitRow, placeRow, rowIcon, ROW_ICON } from "../../Web/rows.mjs";

test("the viewport message: unwrapped bounds normalised, spans clamped, presentation keys, limit", () => {
  const settings = { day: "tomorrow", field: "wind", units: "knots", locale: "sk" };
  assert.deepEqual(viewportMessage({ south: 28.424, north: 53.424, west: -478.0955, east: -458.0955 }, settings, 120), {
    type: "viewport", center: { latitude: 40.924, longitude: -108.0955 }, span: { latitudeDelta: 25, longitudeDelta: 20 },
    day: "tomorrow", field: "wind", units: "metric", windUnit: "knots", locale: "sk", limit: 120 });
  const world = viewportMessage({ south: -95, north: 95, west: -400, east: 400 }, { ...settings, units: "imperial" }, null);
  assert.deepEqual([world.span, world.center, "limit" in world], [{ latitudeDelta: 180, longitudeDelta: 360 }, { latitude: 0, longitude: 0 }, false]);
  // A centre that rounds to 180 is written -180.
  assert.equal(viewportMessage({ south: 0, north: 1, west: 179.9999996, east: 180.0000002 }, settings, 1).center.longitude, -180);
});

test("the limit fits the map's pixels: one marker cell of 56x34 px each, within [20, 1000]", () => {
  assert.equal(fittingLimit(1280, 900), 22 * 26);
  assert.equal(fittingLimit(390, 792), 6 * 23);
  assert.equal(fittingLimit(100, 100), 20);
  assert.equal(fittingLimit(10000, 10000), 1000);
  assert.equal(fittingLimit(0, 500), 20);
});

test("request helpers: nearest normalised, search bounded, detail in the page's presentation, socket URL", () => {
  assert.deepEqual(nearestMessage(91, 190.0000004), { type: "nearest", latitude: 90, longitude: -170 });
  assert.equal(searchMessage("  "), null);
  assert.equal(searchMessage("x".repeat(101)), null);
  assert.deepEqual(searchMessage("platte"), { type: "search", query: "platte", limit: 20 });
  assert.deepEqual(detailMessage("K1D3", { day: "today", units: "metric", locale: "en" }),
    { type: "detail", id: "K1D3", day: "today", units: "metric", windUnit: "kmh", locale: "en" });
  assert.equal(socketURL("https://maps.example/isobar/?limit=30#x", "web-1"), "wss://maps.example/isobar/ws?client=web-1");
  assert.equal(socketURL("http://127.0.0.1:8080/?client=alice&token=t", "web-1"), "ws://127.0.0.1:8080/ws?client=alice&token=t");
});

test("every icon of PROTOCOL.md's vocabulary is drawn, nothing outside it", () => {
  const protocol = readFileSync(new URL("../../PROTOCOL.md", import.meta.url), "utf8");
  const row = protocol.split("\n").find((line) => line.startsWith("| `icon` |"));
  const documented = [...row.split("|")[3].split("(")[0].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
  assert.deepEqual(documented.sort(), [...ICONS].sort());
  for (const icon of ICONS) {
    const svg = iconSVG(icon, 32, "en");
    assert.match(svg, new RegExp(`^<svg class="wx-icon" data-icon="${icon}" .*role="img" aria-label="[^"]+"><title>`));
  }
  assert.equal(iconSVG("tornado"), "");
  assert.equal(iconSVG(undefined), "");
  assert.match(iconSVG("snow", 20, "sk"), /aria-label="Sneh"/);
});

test("forecast numbers are read from the report's worded values", () => {
  assert.deepEqual(pointValues({ details: [{ label: "Temperature", value: "40.4 °F" }, { label: "Chance of precipitation", value: "5 %" },
    { label: "Wind", value: "6.9 mph from W (270°) →" }] }), { temperature: 40.4, low: 40.4, high: 40.4, precipitation: 5 });
  assert.deepEqual(pointValues({ details: [{ label: "Minimum", value: "-4,2 °C" }, { label: "Maximum", value: "3,1 °C" }] }),
    { temperature: -4.2, low: -4.2, high: 3.1, precipitation: null });
});

test("times are local: the station's zone when the report names a known one, else the browser's", () => {
  assert.deepEqual(displayZone({ timeZone: "Europe/Bratislava" }, "America/Denver"), { zone: "Europe/Bratislava", whose: "station" });
  assert.deepEqual(displayZone({ timeZone: "Mars/Olympus" }, "America/Denver"), { zone: "America/Denver", whose: "browser" });
  assert.deepEqual(displayZone({}, undefined), { zone: "UTC", whose: "browser" });
  // The report's own `zone` (PROTOCOL.md, "Local time"), a fixed offset spelt as Intl wants it.
  assert.deepEqual(displayZone({ zone: "Asia/Seoul" }, "America/Denver"), { zone: "Asia/Seoul", whose: "station" });
  assert.deepEqual(displayZone({ zone: "UTC+09:00" }, "America/Denver"), { zone: "Etc/GMT-9", whose: "station" });
  assert.equal(clock(1795417380, displayZone({ zone: "UTC-05:00" }).zone), "02:03");
  assert.equal(clock(1795417380, displayZone({ zone: "UTC" }).zone), "07:03");
  // 1795428000 is 2026-11-23 10:00 UTC.
  assert.equal(clock(1795428000, "UTC"), "10:00");
  assert.equal(clock(1795428000, "Europe/Bratislava"), "11:00");
  assert.equal(clock(1795428000, "America/Denver"), "03:00");
});

test("the hourly chart: one dot per known temperature, one bar per chance of precipitation above 0, six hour labels and icons", () => {
  const hours = Array.from({ length: 12 }, (_, i) => ({
    time: 1795428000 + i * 3600, icon: i < 6 ? "rain" : "cloudy",
    details: [{ label: "Temperature", value: `${40 + i} °F` }, { label: "Chance of precipitation", value: `${i * 10} %` }],
  }));
  hours[3].details = []; // unknown hour: the line breaks there
  const svg = hourlyChartSVG(hours, "UTC", "en", "chart");
  assert.equal((svg.match(/class="temp-dot"/g) || []).length, 11);
  assert.equal((svg.match(/class="precip-bar"/g) || []).length, 10);
  assert.equal((svg.match(/data-icon=/g) || []).length, 6);
  assert.equal((svg.match(/class="tick" x="[^"]*" y="145"/g) || []).length, 6);
  assert.equal((svg.match(/<path class="temp-line" d="M[^"]*M/g) || []).length, 1, "the line restarts after the gap");
  assert.match(svg, />40°<\/text>/);
  assert.match(svg, />51°<\/text>/);
  assert.match(svg, />10:00<\/text>/);
  assert.equal(hourlyChartSVG([], "UTC", "en", "chart"), "");
});

test("daily rows: day, icon, low and high", () => {
  const html = dailyRowsHTML([{ time: 1795392000, icon: "snow", summary: "Snow", details: [{ label: "Minimum", value: "-4,2 °C" },
    { label: "Maximum", value: "1,0 °C" }, { label: "Zrážky", value: "80 %" }] }], "UTC", "en", (k) => k);
  assert.match(html, /<span class="day">Mon 23<\/span>/);
  assert.match(html, /data-icon="snow"/);
  assert.match(html, /<span class="low" title="low">-4.2°<\/span><span class="high" title="high">1°<\/span>/);
  assert.match(html, /<span class="precip">80 %<\/span>/);
});

test("feed labels come from station id prefixes", () => {
  assert.deepEqual(feedLabels(["onx:K1D3", "darksky-2:43.4,-98.8", "K1D3", "cluster:1:2:3", "openweather:1"]), ["darksky", "onx", "openweather"]);
});

test("geocode and reverse requests, and the pin's words (PROTOCOL.md, Places)", () => {
  assert.equal(geocodeMessage(""), null);
  assert.equal(geocodeMessage("   "), null);
  assert.equal(geocodeMessage("x".repeat(101)), null);
  assert.equal(geocodeMessage(7), null);
  assert.deepEqual(geocodeMessage("seoul"), { type: "geocode", query: "seoul", limit: 5 });
  assert.deepEqual(geocodeMessage("springfield, il", 10), { type: "geocode", query: "springfield, il", limit: 10 });
  // Rounded and normalised as `nearest` is, so both answers echo the same point.
  assert.deepEqual(reverseMessage(42.4323564, 25.6373891, 50), { type: "reverse", latitude: 42.432356, longitude: 25.637389, radiusKm: 50 });
  assert.deepEqual(reverseMessage(91, 190.0000004), { type: "reverse", latitude: 90, longitude: -170, radiusKm: 100 });
  assert.deepEqual(reverseMessage(0, 180), { type: "reverse", latitude: 0, longitude: -180, radiusKm: 100 });
  assert.equal(reverseMessage(0, 0, 1e9).radiusKm, 20016);
  assert.equal(reverseMessage(0, 0, -5).radiusKm, 1);
  const asked = reverseMessage(37.5665, 126.978);
  const pointOfNearest = nearestMessage(37.5665, 126.978);
  assert.ok(samePoint(asked, pointOfNearest));
  assert.ok(!samePoint(asked, { latitude: 37.5665, longitude: 126.979 }));
  assert.ok(!samePoint(asked, null));
  assert.equal(placeRegion({ name: "Seoul", admin1: null, countryCode: "KR", country: "South Korea" }), "South Korea");
  assert.equal(placeRegion({ name: "Springfield", admin1: "Illinois", countryCode: "US", country: "United States" }), "Illinois, United States");
  assert.equal(placeRegion({ name: "X", admin1: null, countryCode: "XK", country: null }), "XK");
  assert.equal(placeRegion(null), "");
  assert.equal(compassBearing(94.52983171950022), "95° E");
  assert.equal(compassBearing(359.9), "0° N");
  assert.equal(compassBearing(-90), "270° W");
  assert.equal(compassBearing(191.25), "191° SSW");
});

test("list rows draw the answer's weather icon (search hits, favorites, the nearest line), never a guessed one", () => {
  const hit = { id: "LZKZ", name: "Košice", title: "50°", match: "prefix", icon: "partly-cloudy-day" };
  assert.equal(hitRow(hit, "en"),
    `<span class="wx">${iconSVG("partly-cloudy-day", ROW_ICON, "en")}</span><span class="name">Košice</span><span class="id">LZKZ</span>` +
    `<span class="title">50°</span><span class="match m-prefix">prefix</span>`);
  assert.match(hitRow(hit, "sk"), /aria-label="Polojasno"/);
  // No icon, or one outside the vocabulary: no icon cell at all (the row keeps its three columns).
  assert.equal(hitRow({ ...hit, icon: undefined }, "en"),
    `<span class="name">Košice</span><span class="id">LZKZ</span><span class="title">50°</span><span class="match m-prefix">prefix</span>`);
  assert.doesNotMatch(hitRow({ ...hit, icon: "tornado" }, "en"), /wx/);
  assert.match(hitRow({ id: "<b>", title: "", match: "id" }, "en"), /<span class="name">&lt;b&gt;<\/span><span class="id">&lt;b&gt;<\/span><span class="title">–<\/span>/);
  assert.equal(placeRow({ name: "Seoul", countryCode: "KR", country: "South Korea" }, "place"),
    `<span class="name">Seoul</span><span class="id">place</span><span class="title">South Korea</span>`);
  assert.equal(rowIcon("fog", "en"), `<span class="wx">${iconSVG("fog", 24, "en")}</span>`);
  assert.equal(rowIcon(null, "en"), "");
});

test("About's feed URLs: each status's url first, several split on ' + ', kept to 8, a held status (no url) changes nothing", () => {
  const a = "http://127.0.0.1:8089/today.json";
  const b = "http://127.0.0.1:8089/tomorrow.json";
  assert.deepEqual(mergeFeeds([], { type: "status", state: "ok", url: a }), [a]);
  assert.deepEqual(mergeFeeds([a], { type: "status", state: "unchanged", url: `${b} + ${a}` }), [b, a]);
  assert.deepEqual(mergeFeeds([a, b], { type: "status", state: "ok", url: b }), [b, a]);
  const known = [a, b];
  assert.equal(mergeFeeds(known, { type: "status", state: "held", url: "", reason: "shrunk" }), known);
  assert.equal(mergeFeeds(known, { type: "status", state: "ok" }), known);
  const many = Array.from({ length: 12 }, (_, i) => `http://feed/${i}`).reduce((k, u) => mergeFeeds(k, { url: u }), []);
  assert.equal(many.length, FEEDS_KEPT);
  assert.deepEqual(many.slice(0, 2), ["http://feed/11", "http://feed/10"]);
});
