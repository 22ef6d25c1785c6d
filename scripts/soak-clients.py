#!/usr/bin/python3
"""The clients of scripts/soak.sh: bus clients and WebSocket clients that pan and idle while the
pipeline's processes are killed, then a check that every client converges to brute force.

    /usr/bin/python3 scripts/soak-clients.py --pub TCP --sub TCP --ws HOST:PORT --feed today.json \
        --bus N --websocket M --seconds S --report FILE

Every client applies `annotations` in order (full: replace; diff: remove, then upsert); on a
version gap it asks for a full set by heartbeating its viewport with version 0, as the contract
says (PROTOCOL.md, "Heartbeat"); otherwise it heartbeats with the version it applied, every second.
A third of the clients never pan after their first viewport (idle); the others pan every 2-20 s,
often across the 180° meridian or near a pole. One WebSocket client is slow (stops reading for
20 s every minute) and one disconnects right after sending a pan, every 15 s, and comes back under
the same name. After S seconds nobody pans any more and each client's set is compared with a brute
force over the feed's stations (the sample feed drifts values, never positions), once a second,
for up to 90 s: the report holds how long all of them took to agree and every client still wrong.
Needs python3-zmq, python3-websockets and python3-numpy (Debian).
"""
import argparse
import asyncio
import json
import random
import sys
import time

import numpy as np
import websockets
import zmq
import zmq.asyncio

LIMIT = 500  # the viewport's default limit: over it the filter clusters


def log(message):
    print(f"soak-clients: {message}", file=sys.stderr, flush=True)


class Held:
    """What one client shows, built from its annotations messages."""

    def __init__(self, name):
        self.name = name
        self.items = {}
        self.version = None
        self.broken = False
        self.viewport = None
        self.gaps = 0
        self.frames = 0

    def apply(self, message):
        """Applies one annotations message; returns True when the client must ask for a full set."""
        self.frames += 1
        v = message.get("version")
        if message.get("full"):
            self.items = {}
            self.add(message.get("upsert", []))
            self.version, self.broken = v, False
            return False
        if self.broken or self.version is None or v != self.version + 1:
            if not self.broken:
                self.gaps += 1
            self.broken = True
            return True
        for ident in message.get("remove", []):
            self.items.pop(ident, None)
        self.add(message.get("upsert", []))
        self.version = v
        return False

    def add(self, upsert):
        for item in upsert:
            self.items[item["id"]] = item.get("count", 1) if item.get("cluster") else 1

    def heartbeat_version(self):
        return 0 if self.broken or self.version is None else self.version


def random_viewport(rng):
    kind = rng.random()
    if kind < 0.15:  # across the 180° meridian
        lat, lon = rng.uniform(-60, 60), rng.choice([180, -180, 179.5, -179.5, 178])
        dlat, dlon = rng.uniform(1, 20), rng.uniform(1, 30)
    elif kind < 0.25:  # at a pole
        lat, lon = rng.choice([90, -90, 89.5, -89.5, 85]), rng.uniform(-180, 180)
        dlat, dlon = rng.uniform(1, 20), rng.uniform(10, 360)
    elif kind < 0.28:  # the world
        lat, lon, dlat, dlon = 0, 0, 180, 360
    else:
        lat, lon = rng.uniform(-60, 70), rng.uniform(-180, 180)
        dlat, dlon = rng.uniform(0.2, 30), rng.uniform(0.2, 40)
    return {"center": {"latitude": round(lat, 4), "longitude": round(lon, 4)},
            "span": {"latitudeDelta": round(dlat, 4), "longitudeDelta": round(dlon, 4)}}


class Reference:
    """Brute force over every station: PROTOCOL.md, "Clustering, exactly", step 1."""

    def __init__(self, path):
        with open(path) as f:
            records = json.load(f)
        self.ids = np.array([r["id"] for r in records])
        self.lat = np.array([r["latitude"] for r in records], dtype=float)
        self.lon = np.array([r["longitude"] for r in records], dtype=float)

    def visible(self, viewport):
        lat0, lon0 = viewport["center"]["latitude"], viewport["center"]["longitude"]
        dlat, dlon = viewport["span"]["latitudeDelta"], viewport["span"]["longitudeDelta"]
        min_lat, max_lat = max(-90, lat0 - dlat / 2), min(90, lat0 + dlat / 2)
        low, high = lon0 - dlon / 2, lon0 + dlon / 2
        if dlon >= 360:
            ranges = [(-180, 180)]
        elif low < -180:
            ranges = [(-180, 180)] if high >= low + 360 else [(low + 360, 180), (-180, high)]
        elif high > 180:
            ranges = [(-180, 180)] if high - 360 >= low else [(low, 180), (-180, high - 360)]
        else:
            ranges = [(low, high)]
        lon_ok = np.zeros(len(self.lon), dtype=bool)
        for a, b in ranges:
            lon_ok |= (self.lon >= a) & (self.lon <= b)
        mask = (self.lat >= min_lat) & (self.lat <= max_lat) & lon_ok
        return set(self.ids[mask].tolist())

    def mismatch(self, held):
        """None when the client's set is right for its viewport, else what is wrong."""
        if held.broken or held.version is None:
            return "no complete set"
        expected = self.visible(held.viewport)
        if len(expected) <= LIMIT:
            shown = set(held.items)
            if shown != expected:
                return f"{len(shown - expected)} shown not visible, {len(expected - shown)} visible not shown"
            return None
        total = 0
        for ident, count in held.items.items():
            if ident.startswith("cluster:"):
                total += count
            elif ident not in expected:
                return f"shows {ident}, not visible"
            else:
                total += 1
        return None if total == len(expected) else f"items stand for {total} stations, {len(expected)} visible"


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.reference = Reference(args.feed)
        self.panning = True
        self.clients = {}
        self.counters = {"pans": 0, "ws_connects": 0, "ws_drops": 0, "deliberate_disconnects": 0, "slow_pauses": 0}

    def message(self, held, version=None):
        body = {"type": "viewport", **held.viewport}
        body["version"] = held.heartbeat_version() if version is None else version
        return body

    # Bus clients: one PUB and one SUB socket for all of them (the broker sees N clients by name).
    async def bus(self, context):
        pub = context.socket(zmq.PUB)
        pub.setsockopt(zmq.LINGER, 0)
        pub.connect(self.args.pub)
        sub = context.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"annotations/soak-b")
        sub.connect(self.args.sub)
        names = [f"soak-b{i:04d}" for i in range(self.args.bus)]
        for name in names:
            held = self.clients[name] = Held(name)
            held.viewport = random_viewport(self.rng)
            held.idle = self.rng.random() < 1 / 3
            held.next_pan = time.monotonic() + self.rng.uniform(2, 20)

        async def send(held):
            await pub.send_multipart([f"viewport/{held.name}".encode(), json.dumps({**self.message(held), "client": held.name}).encode()])

        async def receive():
            while True:
                topic, payload = await sub.recv_multipart()
                for line in payload.split(b"\n"):
                    if not line.strip():
                        continue
                    message = json.loads(line)
                    held = self.clients.get(message.get("client"))
                    if held is not None and message.get("type") == "annotations" and held.apply(message):
                        await send(held)

        async def drive():
            while True:
                now = time.monotonic()
                for name in names:
                    held = self.clients[name]
                    if self.panning and not held.idle and now >= held.next_pan:
                        held.viewport = random_viewport(self.rng)
                        held.next_pan = now + self.rng.uniform(2, 20)
                        self.counters["pans"] += 1
                    await send(held)  # a pan, or the heartbeat with the applied version
                await asyncio.sleep(1)

        await asyncio.gather(receive(), drive())

    async def websocket_client(self, index, behaviour):
        name = f"soak-w{index:04d}"
        held = self.clients[name] = Held(name)
        held.viewport = random_viewport(self.rng)
        idle = behaviour == "plain" and self.rng.random() < 1 / 3
        next_pan = time.monotonic() + self.rng.uniform(2, 20)
        next_pause = time.monotonic() + 60
        next_drop = time.monotonic() + 15
        while True:
            try:
                async with websockets.connect(f"ws://{self.args.ws}/ws?client={name}", open_timeout=5,
                                              max_size=None, ping_interval=None) as ws:
                    self.counters["ws_connects"] += 1
                    held.version, held.broken = None, False  # a new connection starts from a full set
                    await ws.send(json.dumps(self.message(held)))
                    last_beat = time.monotonic()
                    while True:
                        now = time.monotonic()
                        if behaviour == "slow" and self.panning and now >= next_pause:
                            self.counters["slow_pauses"] += 1
                            await asyncio.sleep(20)  # reads nothing: frames queue up at the gateway
                            next_pause = time.monotonic() + 60
                        if self.panning and not idle and now >= next_pan:
                            held.viewport = random_viewport(self.rng)
                            next_pan = now + self.rng.uniform(2, 20)
                            self.counters["pans"] += 1
                            await ws.send(json.dumps(self.message(held)))
                            if behaviour == "disconnect" and now >= next_drop:
                                self.counters["deliberate_disconnects"] += 1
                                next_drop = now + 15
                                break  # closes while the answer to the pan is on its way
                        if now - last_beat >= 1:
                            await ws.send(json.dumps(self.message(held)))
                            last_beat = now
                        try:
                            frame = await asyncio.wait_for(ws.recv(), timeout=0.5)
                        except asyncio.TimeoutError:
                            continue
                        message = json.loads(frame)
                        if message.get("type") == "annotations" and held.apply(message):
                            await ws.send(json.dumps(self.message(held)))
            except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
                self.counters["ws_drops"] += 1
            await asyncio.sleep(0.5 + self.rng.random())

    async def check(self):
        """After the panning: once a second, who is wrong; done when nobody is, or after 90 s."""
        start = time.monotonic()
        wrong = {}
        while time.monotonic() - start < 90:
            await asyncio.sleep(1)
            wrong = {name: problem for name, held in self.clients.items()
                     if (problem := self.reference.mismatch(held)) is not None}
            if not wrong:
                return time.monotonic() - start, {}
        return None, wrong

    async def run(self):
        context = zmq.asyncio.Context()
        tasks = [asyncio.create_task(self.bus(context))]
        behaviours = ["slow", "disconnect"] + ["plain"] * max(0, self.args.websocket - 2)
        for index, behaviour in enumerate(behaviours[:self.args.websocket]):
            tasks.append(asyncio.create_task(self.websocket_client(index, behaviour)))
        await asyncio.sleep(self.args.seconds)
        self.panning = False
        log(f"panning stopped after {self.args.seconds} s; checking every client against brute force")
        converged, wrong = await self.check()
        report = {"clients": len(self.clients), "bus": self.args.bus, "websocket": self.args.websocket,
                  "converged_seconds": converged, "wrong": len(wrong),
                  "wrong_bus": sum(1 for name in wrong if name.startswith("soak-b")),
                  "wrong_websocket": sum(1 for name in wrong if name.startswith("soak-w")),
                  "wrong_without_a_set": sum(1 for problem in wrong.values() if problem == "no complete set"),
                  "wrong_examples": dict(list(sorted(wrong.items()))[:20]),
                  "gaps": sum(h.gaps for h in self.clients.values()),
                  "frames": sum(h.frames for h in self.clients.values()), **self.counters}
        with open(self.args.report, "w") as f:
            json.dump(report, f, indent=1)
        for task in tasks:
            task.cancel()
        context.destroy(linger=0)
        return 0 if not wrong else 1


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--pub", "--sub", "--ws", "--feed", "--report"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--bus", type=int, default=900)
    parser.add_argument("--websocket", type=int, default=100)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    sys.exit(asyncio.run(Soak(args).run()))


if __name__ == "__main__":
    main()
