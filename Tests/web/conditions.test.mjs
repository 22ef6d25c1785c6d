// The conditions field on the page (PROTOCOL.md "Formatting rules, exactly"): a marker is the
// annotation's weather icon (a cluster's count over its most common icon, "–" for a station whose
// feed reports none), the legend explains every icon, and About credits the feeds the `status`
// messages name (their `formats`) with the wording each asks for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { conditionsMarkerHTML, legendHTML } from "../../Web/map.mjs";
import { ICONS } from "../../Web/icons.mjs";
import { FEEDS, mergeFormats, creditedFeeds } from "../../Web/about.mjs";

test("a conditions marker draws the annotation's icon; a cluster its count and icon; no icon is a dash", () => {
  const rain = conditionsMarkerHTML({ id: "KRAI", title: "Rain", subtitle: "Raintown", icon: "rain" }, "en");
  assert.match(rain, /^<div class="ann cond" data-id="KRAI" data-icon="rain" title="Raintown: Rain"><svg class="wx-icon" data-icon="rain" width="26" height="26" /);
  assert.match(rain, /aria-label="Rain"><title>Rain<\/title>/);
  const sk = conditionsMarkerHTML({ id: "KRAI", title: "Dážď", subtitle: "Raintown", icon: "rain" }, "sk");
  assert.match(sk, /title="Raintown: Dážď"/);
  assert.match(sk, /aria-label="Dážď"/);
  assert.equal(conditionsMarkerHTML({ id: "KNON", title: "", subtitle: "Nowhere" }, "en"),
    '<div class="ann cond unknown" data-id="KNON" title="Nowhere">–</div>');
  assert.equal(conditionsMarkerHTML({ id: "KNON", title: "", subtitle: "Nowhere", stale: true }, "en"),
    '<div class="ann stale cond unknown" data-id="KNON" title="Nowhere">–</div>');
  const cluster = conditionsMarkerHTML({ id: "cluster:1:2:3", cluster: true, count: 12, title: "Snow", subtitle: "12 stations", icon: "snow" }, "en");
  assert.match(cluster, /^<div class="ann cluster cond size-2" data-id="cluster:1:2:3" data-icon="snow" title="12 stations: Snow"><span class="count">12<\/span><svg class="wx-icon" data-icon="snow" width="20"/);
  const bare = conditionsMarkerHTML({ id: "cluster:1:2:4", cluster: true, count: 3, title: "", subtitle: "3 stations" }, "en");
  assert.equal(bare, '<div class="ann cluster cond size-1" data-id="cluster:1:2:4" data-icon="" title="3 stations"><span class="count">3</span></div>');
  // A word outside the vocabulary is never drawn as some other icon.
  assert.match(conditionsMarkerHTML({ id: "X", title: "Volcano", subtitle: "X", icon: "volcano" }, "en"), /class="ann cond unknown"/);
});

test("the conditions legend shows every icon of the vocabulary with its name, the dash and the cluster rule", () => {
  const t = (k) => k;
  const html = legendHTML("conditions", "imperial", t, "en");
  const drawn = [...html.matchAll(/<svg class="wx-icon" data-icon="([a-z-]+)"/g)].map((m) => m[1]);
  assert.deepEqual(drawn.filter((icon) => ICONS.includes(icon)).sort(), [...ICONS].sort());
  assert.deepEqual([...html.matchAll(/<li data-icon="([a-z-]+)">/g)].map((m) => m[1]),
    ["clear-day", "partly-cloudy-day", "cloudy", "rain", "sleet", "snow", "wind", "fog", "thunderstorm", "hail"]);
  assert.match(html, /<\/span>Partly cloudy<\/li>/);
  assert.match(html, /<span class="swatch ann cond unknown">–<\/span>legendNoConditions/);
  assert.match(html, /legendClusterIcon/);
  assert.ok(!html.includes(">legendCluster<"), "the conditions legend explains a cluster's icon");
  assert.match(legendHTML("conditions", "imperial", t, "sk"), /<\/span>Polojasno<\/li>/);
});

test("About credits the formats statuses name (per day, the latest status of each) and the ids' prefixes", () => {
  let known = {};
  known = mergeFormats(known, { type: "status", day: "today", state: "ok", formats: ["metar", "nws"] });
  known = mergeFormats(known, { type: "status", day: "tomorrow", state: "ok", formats: ["openmeteo"] });
  assert.deepEqual(known, { today: ["metar", "nws"], tomorrow: ["openmeteo"] });
  assert.equal(mergeFormats(known, { type: "status", day: "today", state: "held", url: "" }), known);
  assert.equal(mergeFormats(known, { type: "status", day: "today", formats: ["unheard-of"] }), known);
  known = mergeFormats(known, { type: "status", day: "today", state: "ok", formats: ["onx"] });
  assert.deepEqual(creditedFeeds(known, ["K1D3"]), ["onx", "openmeteo"]);
  assert.deepEqual(creditedFeeds({}, ["darksky:1,2", "onx:K1D3"]), ["darksky", "onx"]);
  assert.match(FEEDS.openmeteo.credit, /Weather data by Open-Meteo\.com<\/a>, licensed under <a[^>]*>CC BY 4\.0/);
  assert.match(FEEDS.openmeteo.short, /Weather data by Open-Meteo\.com/);
  assert.match(FEEDS.metar.credit, /Source: NOAA <a href="https:\/\/aviationweather\.gov\/" rel="noopener">Aviation Weather Center<\/a> \(U\.S\. National Weather Service data, public domain\)/);
  assert.match(FEEDS.nws.credit, /Source: NOAA <a href="https:\/\/www\.weather\.gov\/" rel="noopener">National Weather Service<\/a> \(api\.weather\.gov, public domain\)/);
});
