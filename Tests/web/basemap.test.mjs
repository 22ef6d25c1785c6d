// The basemap data the page draws (Web/coast.json from GSHHG by scripts/make-coast.py,
// Web/states.json from Natural Earth by scripts/make-states.py): small enough for a phone, closed
// rings, the big lakes and the coast where they are, and the style of each kind in both map styles;
// and the marker collision rule the map applies over it (declutter).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { COAST_STYLES, basemapStyle, declutter, legendHTML } from "../../Web/map.mjs";

const coastURL = new URL("../../Web/coast.json", import.meta.url);
const coast = JSON.parse(readFileSync(coastURL, "utf8"));
const byKind = Object.fromEntries(coast.features.map((f) => [f.properties.kind, f.geometry]));

/// Ray casting: is [lon, lat] inside the ring (any world copy within one turn)?
function inRing(ring, lon, lat) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if ((yi > lat) !== (yj > lat) && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
function inside(multipolygon, lon, lat) {
  return multipolygon.coordinates.some((polygon) => [lon - 360, lon, lon + 360].some((x) => inRing(polygon[0], x, lat)));
}

test("coast.json: land, lakes and borders, sizes fit a phone (under 330 KB, with states under 480 KB)", () => {
  assert.deepEqual(coast.features.map((f) => [f.properties.kind, f.geometry.type]),
    [["land", "MultiPolygon"], ["lake", "MultiPolygon"], ["border", "MultiLineString"]]);
  assert.match(coast.source, /^GSHHG 2\.3\.7 low resolution \(Debian gmt-gshhg-low\).*LGPL-3\.0-or-later/);
  const size = statSync(coastURL).size;
  const states = statSync(new URL("../../Web/states.json", import.meta.url)).size;
  assert.ok(size < 330_000 && size + states < 480_000, `coast.json ${size} bytes, states.json ${states} bytes`);
  assert.ok(byKind.land.coordinates.length > 150, `${byKind.land.coordinates.length} land polygons`);
  assert.ok(byKind.lake.coordinates.length > 100, `${byKind.lake.coordinates.length} lakes`);
  assert.ok(byKind.border.coordinates.length > 300, `${byKind.border.coordinates.length} border lines`);
});

test("coast.json: every ring closed, every point a longitude within one turn of the map and a latitude", () => {
  for (const kind of ["land", "lake"]) {
    for (const polygon of byKind[kind].coordinates) {
      const ring = polygon[0];
      assert.ok(ring.length >= 4, `${kind}: a ring of ${ring.length} points`);
      assert.deepEqual(ring[0], ring[ring.length - 1], `${kind}: ring closed`);
      for (const [lon, lat] of ring) assert.ok(lon >= -540 && lon <= 540 && lat >= -90 && lat <= 90, `${kind}: ${lon}, ${lat}`);
    }
  }
});

test("coast.json: the great lakes are water, the land around them land, the open sea neither", () => {
  const lakes = [["Lake Superior", -87.5, 47.7], ["Lake Michigan", -87.0, 43.5], ["Lake Victoria", 33.0, -1.0],
    ["Lake Baikal", 108.0, 53.5], ["Great Salt Lake", -112.5, 41.1], ["Lake Ladoga", 31.5, 60.8], ["Caspian Sea", 51.0, 42.0]];
  for (const [name, lon, lat] of lakes) {
    assert.ok(inside(byKind.lake, lon, lat), `${name} is a lake`);
    assert.ok(inside(byKind.land, lon, lat), `${name} lies within land`);
  }
  const land = [["Denver", -104.99, 39.74], ["Seoul", 126.98, 37.57], ["Košice", 21.25, 48.72], ["Chukotka across 180°", 178.0, 66.0],
    ["Chukotka west of -180°", -175.0, 66.0], ["London", -0.13, 51.51], ["Antarctica", 0.0, -80.0], ["Tasmania", 146.5, -42.0]];
  for (const [name, lon, lat] of land) {
    assert.ok(inside(byKind.land, lon, lat), `${name} is land`);
    assert.ok(!inside(byKind.lake, lon, lat), `${name} is not a lake`);
  }
  for (const [name, lon, lat] of [["mid Atlantic", -40.0, 30.0], ["mid Pacific", -150.0, 0.0], ["Southern Ocean", 100.0, -55.0]]) {
    assert.ok(!inside(byKind.land, lon, lat), `${name} is sea`);
  }
});

test("basemap styles: each kind its own style in the light and the dark map, states one style for all", () => {
  const kinds = ["land", "lake", "border"];
  for (const theme of ["light", "dark"]) {
    for (const kind of kinds) assert.equal(basemapStyle(COAST_STYLES, theme, { properties: { kind } }), COAST_STYLES[theme][kind]);
  }
  assert.notEqual(COAST_STYLES.light.land.fillColor, COAST_STYLES.dark.land.fillColor);
  // Lakes are drawn in the map's sea colour (isobar.css --sea) in each style.
  const css = readFileSync(new URL("../../Web/isobar.css", import.meta.url), "utf8");
  const sea = (re) => css.match(re)[1];
  assert.equal(COAST_STYLES.light.lake.fillColor, sea(/:root \{[^}]*--sea: (#[0-9a-f]{6})/));
  assert.equal(COAST_STYLES.dark.lake.fillColor, sea(/body\.theme-dark \{[^}]*--sea: (#[0-9a-f]{6})/));
  assert.equal(COAST_STYLES.light.border.fill, false);
  const states = { light: { color: "#a" }, dark: { color: "#b" } };
  assert.equal(basemapStyle(states, "dark", { properties: { name: "Utah" } }), states.dark);
  assert.equal(basemapStyle(states, "sepia", { properties: {} }), states.light);
});

test("marker collision: a label that would overlap one placed before it is a dot; clusters and the selected first", () => {
  const box = (id, x, y, keep = false) => ({ id, x, y, w: 40, h: 24, keep });
  // a and b overlap (10 px apart), c is clear of both, d touches c's edge with less than the 1 px gap.
  assert.deepEqual([...declutter([box("a", 0, 0), box("b", 10, 0), box("c", 100, 0), box("d", 140.5, 0)])], ["b", "d"]);
  // Exactly 41 px apart (width plus the gap): both drawn.
  assert.deepEqual([...declutter([box("a", 0, 0), box("b", 41, 0)])], []);
  // Vertically: 24 px tall, 25 px apart is clear, 20 px is not.
  assert.deepEqual([...declutter([box("a", 0, 0), box("b", 0, 25), box("c", 0, 45)])], ["c"]);
  // A kept box (a cluster, the selected station) is placed first whatever its order, never a dot.
  assert.deepEqual([...declutter([box("a", 0, 0), box("b", 10, 0, true), box("c", 20, 0, true)])], ["a"]);
  // The same boxes, the same dots; no boxes, none.
  const many = Array.from({ length: 200 }, (_, i) => box(`s${i}`, (i * 37) % 300, (i * 53) % 200));
  assert.deepEqual([...declutter(many)], [...declutter(many)]);
  assert.equal(declutter([]).size, 0);
  // No two drawn boxes overlap.
  const dots = declutter(many);
  const drawn = many.filter((b) => !dots.has(b.id));
  for (const a of drawn) for (const b of drawn) {
    if (a !== b) assert.ok(Math.abs(a.x - b.x) >= 41 || Math.abs(a.y - b.y) >= 25, `${a.id} and ${b.id} overlap`);
  }
  assert.ok(drawn.length > 20 && dots.size > 20, `${drawn.length} drawn, ${dots.size} dots`);
});

test("the legend for each field: the colour scale with its unit, the precipitation fill, the wind arrow and calm; clusters, dots, unknown and stale in all", () => {
  const t = (k) => k;
  const f = legendHTML("temperature", "imperial", t);
  assert.deepEqual([...f.matchAll(/<span class="swatch ann (t-[a-z]+)"><\/span>([^<]+)<\/li>/g)].map((m) => [m[1], m[2]]),
    [["t-frigid", "&lt; 20"], ["t-cold", "20–40"], ["t-cool", "40–55"], ["t-mild", "55–70"], ["t-warm", "70–85"], ["t-hot", "≥ 85"]]);
  assert.match(f, /<div class="legend-unit">temperature, °F<\/div>/);
  const c = legendHTML("temperature", "metric", t);
  assert.deepEqual([...c.matchAll(/<\/span>([^<]+)<\/li>/g)].slice(0, 6).map((m) => m[1]), ["&lt; -7", "-7–4", "4–13", "13–21", "21–29", "≥ 29"]);
  assert.match(c, /temperature, °C/);
  const p = legendHTML("precipitation", "imperial", t);
  assert.deepEqual([...p.matchAll(/style="--p:(\d+)%"><\/span>(\d+)%/g)].map((m) => [m[1], m[2]]), [["0", "0"], ["30", "30"], ["60", "60"], ["100", "100"]]);
  assert.match(p, /legendPrecip/);
  const w = legendHTML("wind", "knots", t);
  assert.match(w, /class="arrow" style="transform:rotate\(90deg\)">↑<\/span><\/span>legendWindArrow/);
  assert.match(w, /<span class="swatch ann wind calm">calm<\/span>legendCalm/);
  for (const html of [f, c, p, w]) {
    for (const key of ["legendCluster", "legendDot", "legendUnknown", "legendStale"]) assert.ok(html.includes(key), key);
    assert.match(html, /<span class="swatch ann stale temp t-mild">46°<\/span>/);
  }
});
