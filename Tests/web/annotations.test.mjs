// AnnotationSet (Web/client.mjs) against message streams in the shape PROTOCOL.md's "annotations"
// gives and the gateway relays: full sets, diffs, a version gap, duplicates, a reconnect. Each
// stream ends with the exact set a client must hold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AnnotationSet } from "../../Web/client.mjs";

const a = (id, title, latitude = 40, longitude = -100) => ({ id, coordinate: { latitude, longitude }, title, subtitle: id });
const ids = (set) => [...set.items.keys()].sort();
const titles = (set) => Object.fromEntries([...set.items].map(([id, x]) => [id, x.title]));

/// Applies a stream, returning the kinds `apply` reported.
function play(set, stream) {
  return stream.map((m) => set.apply(m, 1000).kind);
}

test("a full set, then diffs in order: removes then upserts", () => {
  const set = new AnnotationSet();
  const kinds = play(set, [
    { type: "annotations", version: 1, full: true, upsert: [a("K1D3", "46°"), a("KOFK", "41°")], remove: [] },
    { type: "annotations", version: 2, full: false, upsert: [a("K1D3", "47°"), a("KGRI", "39°")], remove: ["KOFK"] },
    { type: "annotations", version: 3, full: false, upsert: [a("KOFK", "40°")], remove: ["KOFK"] },
  ]);
  assert.deepEqual(kinds, ["full", "diff", "diff"]);
  assert.deepEqual(titles(set), { K1D3: "47°", KGRI: "39°", KOFK: "40°" });
  assert.equal(set.version, 3);
  assert.equal(set.awaitingFull, false);
});

test("diffs before the first full set are dropped (the full carries them)", () => {
  const set = new AnnotationSet();
  const kinds = play(set, [
    { type: "annotations", version: 4, full: false, upsert: [a("GHOST", "x")], remove: [] },
    { type: "annotations", version: 5, full: true, upsert: [a("K1D3", "46°")], remove: [] },
  ]);
  assert.deepEqual(kinds, ["waiting", "full"]);
  assert.deepEqual(ids(set), ["K1D3"]);
});

test("a duplicate diff and a repeated full change nothing", () => {
  const set = new AnnotationSet();
  const full = { type: "annotations", version: 1, full: true, upsert: [a("K1D3", "46°"), a("KOFK", "41°")], remove: [] };
  const diff = { type: "annotations", version: 2, full: false, upsert: [a("KGRI", "39°")], remove: ["KOFK"] };
  const kinds = play(set, [full, diff, diff, full, { ...diff, version: 1 }]);
  assert.deepEqual(kinds, ["full", "diff", "duplicate", "duplicate", "duplicate"]);
  assert.deepEqual(titles(set), { K1D3: "46°", KGRI: "39°" });
  assert.equal(set.version, 2);
});

test("a version gap applies nothing, awaits a full set, and the resync's full set repairs it", () => {
  const set = new AnnotationSet();
  const kinds = play(set, [
    { type: "annotations", version: 1, full: true, upsert: [a("K1D3", "46°")], remove: [] },
    { type: "annotations", version: 3, full: false, upsert: [a("GHOST", "x")], remove: [] },
    { type: "annotations", version: 4, full: false, upsert: [a("GHOST2", "y")], remove: ["K1D3"] },
    { type: "annotations", version: 5, full: true, upsert: [a("K1D3", "45°"), a("KOFK", "41°")], remove: [] },
    { type: "annotations", version: 6, full: false, upsert: [], remove: ["KOFK"] },
  ]);
  assert.deepEqual(kinds, ["full", "gap", "waiting", "full", "diff"]);
  assert.deepEqual(titles(set), { K1D3: "45°" });
});

test("a reconnect keeps the items shown until the new connection's full set, whatever its version", () => {
  const set = new AnnotationSet();
  play(set, [
    { type: "annotations", version: 7, full: true, upsert: [a("K1D3", "46°"), a("KOFK", "41°")], remove: [] },
  ]);
  set.reset();
  assert.deepEqual(ids(set), ["K1D3", "KOFK"]);
  const result = set.apply({ type: "annotations", version: 8, full: true, upsert: [a("KOFK", "42°")], remove: [] });
  assert.equal(result.kind, "full");
  assert.deepEqual(result.removed, ["K1D3"]);
  assert.deepEqual(titles(set), { KOFK: "42°" });
});

test("ids are compared byte for byte: NFC and NFD spellings are two stations", () => {
  const set = new AnnotationSet();
  play(set, [
    { type: "annotations", version: 1, full: true, upsert: [a("caf\u00e9", "1°"), a("cafe\u0301", "2°")], remove: [] },
    { type: "annotations", version: 2, full: false, upsert: [], remove: ["cafe\u0301"] },
  ]);
  assert.deepEqual(titles(set), { "caf\u00e9": "1°" });
});

test("data info and the shown field follow the messages; a field change asks for a restyle", () => {
  const set = new AnnotationSet();
  const first = set.apply({ type: "annotations", version: 1, full: true, field: "temperature", units: "imperial",
    snapshot: "today-1", source: "feed", fetchedAt: 990, ageSeconds: 0, upsert: [a("K1D3", "46°")], remove: [] }, 1000);
  assert.equal(first.restyle, false);
  assert.deepEqual(set.data, { source: "feed", snapshot: "today-1", fetchedAt: 990, ageSeconds: 0, receivedAt: 1000 });
  const second = set.apply({ type: "annotations", version: 2, full: true, field: "wind", units: "imperial",
    snapshot: "today-1", source: "store", fetchedAt: 990, ageSeconds: 12, upsert: [], remove: [] }, 1050);
  assert.equal(second.restyle, true);
  assert.equal(set.data.receivedAt, 1000, "same snapshot: arrival time kept");
  assert.equal(set.data.source, "store");
  assert.deepEqual(set.shown, { field: "wind", units: "imperial" });
});

test("malformed messages are refused without changing the set", () => {
  const set = new AnnotationSet();
  play(set, [{ type: "annotations", version: 1, full: true, upsert: [a("K1D3", "46°")], remove: [] }]);
  assert.equal(set.apply({ type: "annotations", full: true, upsert: [] }).kind, "invalid");
  assert.equal(set.apply(null).kind, "invalid");
  const r = set.apply({ type: "annotations", version: 2, full: false, upsert: [{ id: 5 }, { id: "NOCOORD" }, a("KGRI", "1°")], remove: [7] });
  assert.equal(r.kind, "diff");
  assert.deepEqual(ids(set), ["K1D3", "KGRI"]);
});

test("a stream recorded from a real gateway (Tests/web/recorded-stream.ndjson): after every frame the set is the frames' plain meaning", () => {
  // Recorded by Tests/web/record-stream.mjs against `isobar up --sample`: the brief's region, two
  // pans (diffs), a zoom out past limit 40 (clusters), a field and a units toggle (full sets).
  const lines = readFileSync(new URL("./recorded-stream.ndjson", import.meta.url), "utf8").split("\n").filter(Boolean);
  const frames = lines.map((line) => JSON.parse(line)).filter((m) => m.type === "annotations");
  assert.ok(frames.length >= 6 && frames.some((m) => !m.full) && frames.some((m) => m.upsert.some((x) => x.cluster)),
    `${frames.length} annotations frames recorded, with diffs and clusters`);
  const set = new AnnotationSet();
  const twice = new AnnotationSet(); // every frame delivered twice: the same sets
  const model = new Map();
  for (const m of frames) {
    if (m.full) model.clear();
    for (const id of m.remove || []) model.delete(id);
    for (const x of m.upsert) model.set(x.id, x.title);
    assert.equal(set.apply(m).kind, m.full ? "full" : "diff");
    twice.apply(m);
    assert.equal(twice.apply(m).kind, "duplicate");
    assert.deepEqual(titles(set), Object.fromEntries(model), `after version ${m.version}`);
    assert.deepEqual(titles(twice), Object.fromEntries(model));
  }
  // Dropping the second frame is a gap: nothing after it applies until a full set.
  const lossy = new AnnotationSet();
  const kinds = play(lossy, [frames[0], ...frames.slice(2)]);
  assert.equal(kinds[1], "gap");
  assert.deepEqual(kinds.slice(2), frames.slice(3).map((m) => (m.full ? "full" : "waiting")));
});
