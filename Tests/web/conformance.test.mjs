// The web client against the conformance kit (conformance/, the contract issue's vectors): every
// frame a client receives in the format vectors' expected output is taken by the page's pure code
// as PROTOCOL.md means it, and every request the vectors send that a stage answers without an
// error is the one the page's request helpers write for the same arguments.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { AnnotationSet, nearestMessage, searchMessage, geocodeMessage, reverseMessage, detailMessage, UNIT_CHOICES } from "../../Web/client.mjs";
import { hitRow } from "../../Web/rows.mjs";
import { starredRows, myPlaceRow } from "../../Web/myplaces.mjs";
import { pointValues, hourlyChartSVG, dailyRowsHTML } from "../../Web/forecast.mjs";
import { escapeHTML } from "../../Web/i18n.mjs";

const root = new URL("../../conformance/", import.meta.url);

/// Every vector of a stage: { name, input, expected }, disputed ones left out.
function vectors(stage) {
  const out = [];
  for (const section of readdirSync(new URL(`${stage}/`, root), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
    for (const file of readdirSync(new URL(`${stage}/${section}/`, root))) {
      if (!file.endsWith(".json")) continue;
      const v = JSON.parse(readFileSync(new URL(`${stage}/${section}/${file}`, root), "utf8"));
      if (v.disputed) continue;
      out.push({ name: `${stage}/${section}/${file}`, input: v.input, expected: v.expected });
    }
  }
  return out;
}

const received = vectors("format").flatMap((v) => v.expected.filter((m) => m && typeof m === "object").map((m) => [v.name, m]));

test("every annotations frame of the format vectors applies as PROTOCOL.md says (full: the upserts; diff: removes, then upserts)", () => {
  const frames = received.filter(([, m]) => m.type === "annotations");
  assert.ok(frames.length >= 10 && frames.some(([, m]) => !m.full), `${frames.length} annotations frames`);
  for (const [name, m] of frames) {
    const set = new AnnotationSet();
    if (m.full) {
      assert.equal(set.apply(m).kind, "full", name);
    } else {
      // A diff needs the set it changes: a full set one version before, holding the removed ids and one more.
      const base = [...m.remove, "KEEP"].map((id) => ({ id, coordinate: { latitude: 1, longitude: 2 }, title: "old", subtitle: id }));
      assert.equal(set.apply({ ...m, version: m.version - 1, full: true, upsert: base, remove: [] }).kind, "full", name);
      assert.equal(set.apply(m).kind, "diff", name);
    }
    const want = new Map(m.full ? [] : [["KEEP", "old"]]);
    for (const x of m.upsert) want.set(x.id, x.title);
    assert.deepEqual(Object.fromEntries([...set.items].map(([id, x]) => [id, x.title])), Object.fromEntries(want), name);
    // The presentation the titles are in (a field or units change redraws every marker).
    assert.deepEqual(set.shown, { field: m.field, units: m.units }, name);
  }
});

test("results, starred and report frames of the format vectors draw their rows, chart and days", () => {
  const kinds = new Set();
  for (const [name, m] of received) {
    kinds.add(m.type);
    if (m.type === "results") {
      for (const h of m.hits) {
        const row = hitRow(h, m.locale);
        assert.ok(row.includes(`<span class="title">${escapeHTML(h.title || "–")}</span>`) && row.includes(escapeHTML(h.name || h.id)), name);
      }
    } else if (m.type === "starred") {
      // The panel's own rows (My places): one per item, a station's row naming its id.
      const rows = starredRows(m, "today");
      assert.equal(rows.length, m.items.length, name);
      rows.forEach((row, index) => {
        const item = m.items[index];
        const html = myPlaceRow(row, m.locale, (k) => k);
        if (item.id) assert.ok(html.includes(`<span class="id">${escapeHTML(item.id)}</span>`), name);
      });
    } else if (m.type === "report") {
      const hourly = m.hourly.filter((p) => pointValues(p).temperature !== null);
      // A feed without a forecast (onX) gives a report with none; one with a forecast must chart it.
      assert.equal(hourly.length, m.hourly.length, `${name}: every hourly point has a temperature`);
      const svg = hourlyChartSVG(m.hourly, "UTC", m.locale, "chart");
      assert.equal((svg.match(/class="temp-dot"/g) || []).length, hourly.length, name);
      const days = dailyRowsHTML(m.daily, "UTC", m.locale, (k) => k);
      assert.equal((days.match(/class="day-row/g) || []).length, m.daily.length, name);
      for (const p of m.daily) {
        const v = pointValues(p);
        assert.ok(v.low !== null && v.high !== null && v.low <= v.high, `${name}: a day's low and high`);
      }
    }
  }
  for (const kind of ["results", "starred", "report", "annotations", "callout", "place"]) assert.ok(kinds.has(kind), `a ${kind} frame among the vectors`);
});

test("the requests of the vectors that a stage answers without an error are the ones the page writes", () => {
  let compared = 0;
  for (const stage of ["filter", "format", "places"]) {
    for (const v of vectors(stage)) {
      if (v.expected.some((m) => m && m.type === "error")) continue;
      for (const m of v.input) {
        if (!m || typeof m !== "object") continue;
        const { client, ...sent } = m;
        let ours = null;
        if (m.type === "nearest") ours = nearestMessage(m.latitude, m.longitude);
        else if (m.type === "search" && "limit" in m) ours = searchMessage(m.query, m.limit);
        else if (m.type === "geocode" && "limit" in m && !("id" in m)) ours = geocodeMessage(m.query, m.limit);
        else if (m.type === "reverse" && "radiusKm" in m) ours = reverseMessage(m.latitude, m.longitude, m.radiusKm);
        else if (m.type === "detail" && m.units && m.windUnit) {
          const choice = Object.keys(UNIT_CHOICES).find((k) => UNIT_CHOICES[k].units === m.units && UNIT_CHOICES[k].windUnit === m.windUnit);
          if (choice) ours = detailMessage(m.id, { day: m.day, units: choice, locale: m.locale });
        }
        // Only requests with the keys the page writes (a vector may add `day`, which the page leaves
        // to its viewport's day).
        if (!ours || Object.keys(ours).sort().join() !== Object.keys(sent).sort().join()) continue;
        assert.deepEqual(ours, sent, `${v.name}: ${JSON.stringify(sent)}`);
        compared += 1;
      }
    }
  }
  assert.ok(compared >= 5, `${compared} requests compared`);
});
