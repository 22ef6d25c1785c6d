// My places (Web/myplaces.mjs): a `starred` message with a station, a place, a pin and an
// unknown station mapped to rows (name, icon, temperature, humidity, what a tap opens, the
// removal), and a row's HTML. The frame follows PROTOCOL.md's `starred` for places and pins.
import { test } from "node:test";
import assert from "node:assert/strict";
import { starredRows, myPlaceRow, entryKey, temperatureText, humidityText } from "../../Web/myplaces.mjs";
import { translator } from "../../Web/i18n.mjs";

const seoul = { id: 1835848, name: "Seoul", admin1: null, countryCode: "KR", country: "South Korea", latitude: 37.566, longitude: 126.9784, population: 10349312, timeZone: "Asia/Seoul" };
const STARRED = {
  type: "starred", client: "alice", reason: "added", field: "temperature", units: "metric", windUnit: "kmh", locale: "en",
  items: [
    { id: "LZKZ", known: true, name: "Košice", coordinate: { latitude: 48.66308, longitude: 21.24111 },
      today: { title: "10°", details: [], icon: "snow", temperature: 9.6, humidity: 81.4 }, tomorrow: null },
    { place: seoul, known: true, name: "Seoul", coordinate: { latitude: 37.566, longitude: 126.9784 },
      today: { title: "3°", subtitle: "Seoul (RKSS) · 12.0 km · Today", station: { id: "RKSS", name: "Seoul", coordinate: { latitude: 37.55, longitude: 126.8 } },
        distanceKm: 12, bearing: 250, details: [], icon: null, temperature: -0.4, humidity: null },
      tomorrow: { title: "5°", details: [], icon: "rain", temperature: 5.2, humidity: 90 } },
    { pin: { name: "Stara Zagora", latitude: 42.432356, longitude: 25.637389 }, known: true, name: "Stara Zagora",
      coordinate: { latitude: 42.432356, longitude: 25.637389 }, today: null, tomorrow: null },
    { id: "GONE", known: false, name: null, coordinate: null, today: null, tomorrow: null },
  ],
  count: 4,
};

test("a starred frame maps to one row per item, in order, with the shown day's values", () => {
  const rows = starredRows(STARRED, "today");
  assert.deepEqual(rows.map((r) => [r.key, r.kind, r.name, r.known, r.icon, r.temperature, r.humidity]), [
    ["LZKZ", "station", "Košice", true, "snow", "10°C", "81 %"],
    ["place:1835848", "place", "Seoul", true, null, "0°C", null],
    ["pin:42.432356,25.637389", "pin", "Stara Zagora", true, null, null, null],
    ["GONE", "station", "GONE", false, null, null, null],
  ]);
  assert.equal(rows[1].subtitle, "Seoul (RKSS) · 12.0 km · Today");
  const tomorrow = starredRows(STARRED, "tomorrow");
  assert.deepEqual(tomorrow.map((r) => [r.icon, r.temperature, r.humidity]),
    [[null, null, null], ["rain", "5°C", "90 %"], [null, null, null], [null, null, null]]);
});

test("a tap opens a station's detail, a place's or pin's `weather` detail; remove sends its `favorite`", () => {
  const rows = starredRows(STARRED, "today");
  assert.deepEqual(rows.map((r) => r.open), [
    { detail: "LZKZ" },
    { weather: { type: "weather", id: 1835848, detail: true } },
    { weather: { type: "weather", latitude: 42.432356, longitude: 25.637389, detail: true } },
    { detail: "GONE" },
  ]);
  assert.deepEqual(rows.map((r) => r.remove), [
    { type: "favorite", id: "LZKZ", on: false },
    { type: "favorite", place: { id: 1835848 }, on: false },
    { type: "favorite", pin: { latitude: 42.432356, longitude: 25.637389 }, on: false },
    { type: "favorite", id: "GONE", on: false },
  ]);
});

test("temperature in the frame's units, humidity in %, nothing for what is missing", () => {
  assert.equal(temperatureText(50.4, "imperial"), "50°F");
  assert.equal(temperatureText(-7.5, "metric"), "-7°C");
  assert.equal(temperatureText(null, "metric"), null);
  assert.equal(humidityText(0), "0 %");
  assert.equal(humidityText(undefined), null);
  assert.equal(entryKey({ place: { id: 5 } }), "place:5");
  assert.deepEqual(starredRows({ items: [] }, "today"), []);
  assert.deepEqual(starredRows({}, "today"), []);
});

test("a row's HTML: icon, name, kind, temperature and humidity; Slovak words", () => {
  const [station, place, pin, gone] = starredRows(STARRED, "today");
  const en = translator({ locale: "en" });
  const sk = translator({ locale: "sk" });
  const html = myPlaceRow(station, "en", en);
  assert.match(html, /^<span class="wx"><svg class="wx-icon" data-icon="snow" width="24" height="24"/);
  assert.ok(html.endsWith(`<span class="name">Košice</span><span class="id">LZKZ</span><span class="title"><span class="temp">10°C</span> ` +
    `<span class="humidity" title="Humidity">💧81 %</span></span>`), html);
  assert.equal(myPlaceRow(place, "sk", sk), `<span class="name">Seoul</span><span class="id">miesto</span><span class="title"><span class="temp">0°C</span></span>`);
  assert.equal(myPlaceRow(pin, "sk", sk), `<span class="name">Stara Zagora</span><span class="id">špendlík</span><span class="title">–</span>`);
  assert.equal(myPlaceRow(gone, "en", en), `<span class="name">unknown station</span><span class="id">GONE</span><span class="title">–</span>`);
});
