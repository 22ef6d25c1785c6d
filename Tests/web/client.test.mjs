// Client (Web/client.mjs) over a real WebSocket on loopback (Node's WebSocket client, the test's
// own server): connect, a full set and a diff, a version gap answered by `resync` and repaired,
// a dropped connection reconnected with doubling delays, stop(). Timers are Node's, shortened
// (the delays asked for are recorded).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, RECONNECT_MIN_MS, RECONNECT_MAX_MS, nextBackoff } from "../../Web/client.mjs";
import { startServer } from "./ws-server.mjs";

const a = (id, title) => ({ id, coordinate: { latitude: 40, longitude: -100 }, title });

function until(predicate, what) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > 5000) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

function makeClient(port, on = {}) {
  const delays = [];
  const env = {
    WebSocket: globalThis.WebSocket,
    setTimeout: (fn, ms) => {
      delays.push(ms);
      return setTimeout(fn, 10);
    },
    clearTimeout: (t) => clearTimeout(t),
    random: () => 0.5,
    now: () => Date.now(),
    url: () => `ws://127.0.0.1:${port}/ws?client=test`,
  };
  const events = [];
  const client = new Client(env, {
    state: (s) => events.push(s),
    annotations: (r) => events.push(`annotations:${r.kind}`),
    message: (m) => events.push(`message:${m.type}`),
    ...on,
  });
  return { client, delays, events };
}

test("backoff doubles from the minimum to the cap", () => {
  const seen = [];
  let d = RECONNECT_MIN_MS;
  for (let i = 0; i < 7; i++) {
    seen.push(d);
    d = nextBackoff(d);
  }
  assert.deepEqual(seen, [500, 1000, 2000, 4000, 8000, RECONNECT_MAX_MS, RECONNECT_MAX_MS]);
});

test("connects, applies a full set and a diff, answers a gap with resync and takes the repair", async () => {
  const peers = [];
  const server = await startServer((peer) => peers.push(peer));
  const { client, events } = makeClient(server.port);
  try {
    client.connect();
    await until(() => client.connection === "connected" && peers.length === 1, "connected");
    assert.equal(peers[0].url, "/ws?client=test");
    assert.equal(client.send({ type: "viewport", center: { latitude: 1, longitude: 2 }, span: { latitudeDelta: 3, longitudeDelta: 4 } }), true);
    await until(() => peers[0].received.length === 1, "the viewport");
    peers[0].send({ type: "annotations", version: 1, full: true, upsert: [a("K1D3", "46°"), a("KOFK", "41°")], remove: [] });
    peers[0].send({ type: "annotations", version: 2, full: false, upsert: [a("K1D3", "47°")], remove: ["KOFK"] });
    peers[0].send({ type: "status", day: "today", state: "ok" });
    await until(() => events.includes("message:status"), "the status");
    assert.deepEqual([...client.set.items.keys()], ["K1D3"]);
    // A diff from the future: nothing applied, one resync sent.
    peers[0].send({ type: "annotations", version: 9, full: false, upsert: [a("GHOST", "x")], remove: [] });
    await until(() => peers[0].received.some((m) => m.type === "resync"), "the resync");
    assert.deepEqual(peers[0].received.at(-1), { type: "resync", reason: "version gap" });
    assert.equal(client.awaitingFull, true);
    assert.equal(client.set.items.has("GHOST"), false);
    peers[0].send({ type: "annotations", version: 10, full: true, upsert: [a("KGRI", "39°")], remove: [] });
    await until(() => !client.awaitingFull, "the repairing full set");
    assert.deepEqual([...client.set.items.keys()], ["KGRI"]);
    assert.deepEqual(events.filter((e) => e.startsWith("annotations:")),
      ["annotations:full", "annotations:diff", "annotations:gap", "annotations:full"]);
  } finally {
    client.stop();
    await server.close();
  }
});

test("an unanswered resync is repeated with doubling delays", async () => {
  const peers = [];
  const server = await startServer((peer) => peers.push(peer));
  const { client, delays } = makeClient(server.port);
  try {
    client.connect();
    await until(() => client.connection === "connected", "connected");
    peers[0].send({ type: "annotations", version: 1, full: true, upsert: [], remove: [] });
    peers[0].send({ type: "annotations", version: 3, full: false, upsert: [], remove: [] });
    await until(() => peers[0].received.filter((m) => m.type === "resync").length >= 4, "four resyncs");
    assert.deepEqual(delays.slice(0, 4), [2000, 4000, 8000, 16000]);
  } finally {
    client.stop();
    await server.close();
  }
});

test("a dropped connection reconnects with doubling delays; the items stay shown until the new full set", async () => {
  const peers = [];
  const server = await startServer((peer) => peers.push(peer));
  const { client, delays, events } = makeClient(server.port);
  try {
    client.connect();
    await until(() => client.connection === "connected", "connected");
    peers[0].send({ type: "annotations", version: 4, full: true, upsert: [a("K1D3", "46°")], remove: [] });
    await until(() => client.set.version === 4, "the full set");
    peers[0].drop();
    await until(() => peers.length === 2 && client.connection === "connected", "reconnected");
    assert.equal(client.opens, 2);
    assert.deepEqual(delays, [RECONNECT_MIN_MS]);
    assert.equal(client.set.version, 0);
    assert.equal(client.awaitingFull, true);
    assert.deepEqual([...client.set.items.keys()], ["K1D3"], "still shown while the new full set comes");
    // Dropped again after a successful open: the delay starts over at the minimum.
    peers[1].drop();
    await until(() => peers.length === 3 && client.connection === "connected", "reconnected again");
    assert.deepEqual(delays, [500, 500]);
    assert.deepEqual(events.filter((e) => !e.startsWith("annotations")),
      ["connecting", "connected", "reconnecting", "connecting", "connected", "reconnecting", "connecting", "connected"]);
  } finally {
    client.stop();
    await server.close();
  }
});

test("with no server the delays double up to the cap; stop() ends the attempts", async () => {
  const server = await startServer(() => {});
  const port = server.port;
  await server.close(); // nothing listens there now
  const { client, delays } = makeClient(port);
  client.connect();
  await until(() => delays.length >= 7, "seven attempts");
  client.stop();
  assert.deepEqual(delays.slice(0, 7), [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(client.connection, "stopped");
  const count = delays.length;
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(delays.length, count, "no attempt after stop()");
});
