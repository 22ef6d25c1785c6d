#!/usr/bin/python3
"""WebSocket map clients for scripts/checks/netns.sh, driven one command per stdin line.

    /usr/bin/python3 scripts/netns-client.py ws://127.0.0.1:8080/ws FIXTURE.json NAME [NAME...]

Opens one connection per NAME (`?client=NAME`) and keeps applying every `annotations` frame it gets
by version (full: replace; diff: remove, then upsert; a gap: `resync`, ignore diffs until the next
full set). Then, for each stdin line (JSON):

    {"client": "alice", "viewport": {center, span}, "within": 2}   send it, wait for the right set
    {"client": "alice", "expect": {center, span}, "within": 2}     wait, sending nothing
    {"client": "alice", "viewport": {...}, "send_only": true}      send it, do not wait
    {"client": "alice", "weather": {id or latitude/longitude, radiusKm}, "title": T, "within": 5}
        send a `weather` request, wait for its `conditions`: ok when the title is T and the station is
        the one a scan of the fixture finds nearest within radiusKm (or none)

and prints one JSON line: {"client", "ok", "seconds", "held", "expected"}. "The right set" is the
brute force of PROTOCOL.md's clustering (Tests/reference/cluster_reference.py) over the fixture's
stations, compared as sets of annotation ids. Needs `websockets` (Debian python3-websockets).
"""
import asyncio
import json
import math
import os
import sys
import time

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "reference"))
import cluster_reference  # noqa: E402  (the project's own reference, written from PROTOCOL.md)


def load_stations(path):
    """The onX fixture as station dicts with `seq` (feed order), as the fetcher publishes them."""
    with open(path) as f:
        records = json.load(f)
    return [{"id": r["id"], "latitude": r["latitude"], "longitude": r["longitude"], "seq": i,
             "temperature": r.get("temperature"), "windSpeed": r.get("wind_speed"),
             "windDirection": r.get("wind_direction"), "precipitation": r.get("chance_of_precipitation")}
            for i, r in enumerate(records)]


class Client:
    def __init__(self, name):
        self.name, self.shown, self.version, self.broken = name, {}, None, False
        self.changed = asyncio.Event()
        self.ws = None
        self.conditions = asyncio.Queue()

    def apply(self, message):
        if message.get("type") == "conditions":
            self.conditions.put_nowait(message)
            return
        if message.get("type") != "annotations":
            return
        version, full = message.get("version"), message.get("full")
        if full:
            self.shown = {a["id"]: a for a in message.get("upsert", [])}
            self.broken = False
        elif self.broken:
            return
        elif self.version is not None and version != self.version + 1:
            self.broken = True  # a gap: ask for the whole set again
            asyncio.ensure_future(self.ws.send(json.dumps({"type": "resync"})))
            return
        else:
            for key in message.get("remove", []):
                self.shown.pop(key, None)
            for a in message.get("upsert", []):
                self.shown[a["id"]] = a
        self.version = version
        self.changed.set()

    async def run(self, url):
        async with websockets.connect(f"{url}?client={self.name}", open_timeout=10, max_size=None) as ws:
            self.ws = ws
            async for text in ws:
                try:
                    self.apply(json.loads(text))
                except (ValueError, KeyError, TypeError):
                    pass


def expected_ids(stations, viewport):
    return sorted(item["id"] for item in cluster_reference.items(stations, viewport))


async def wait_for(client, want, within):
    start = time.monotonic()
    while True:
        held = sorted(client.shown)
        if held == want and not client.broken:
            return True, time.monotonic() - start, held
        remaining = within - (time.monotonic() - start)
        if remaining <= 0:
            return False, time.monotonic() - start, held
        client.changed.clear()
        try:
            await asyncio.wait_for(client.changed.wait(), timeout=min(remaining, 0.05))
        except asyncio.TimeoutError:
            pass


def nearest_within(stations, latitude, longitude, radius):
    """The station a scan finds nearest (haversine on the 6371.0088 km sphere, smaller id on a tie)
    if it is within `radius` km, else None (PROTOCOL.md: Weather at a point or place)."""
    def h(s):
        p1, p2 = math.radians(latitude), math.radians(s["latitude"])
        return min(1, math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(s["longitude"] - longitude) / 2) ** 2)
    best = min(stations, key=lambda s: (h(s), s["id"].encode()))
    distance = 2 * math.asin(math.sqrt(h(best))) * 6371.0088
    return best["id"] if distance <= radius else None


async def weather(client, stations, command):
    start = time.monotonic()
    await client.ws.send(json.dumps({"type": "weather", **command["weather"]}))
    try:
        answer = await asyncio.wait_for(client.conditions.get(), timeout=command.get("within", 5))
    except asyncio.TimeoutError:
        return {"client": client.name, "ok": False, "seconds": round(time.monotonic() - start, 3), "error": "no conditions"}
    point = answer.get("point", {})
    want = nearest_within(stations, point.get("latitude", 0), point.get("longitude", 0), answer.get("radiusKm", 50))
    got = (answer.get("station") or {}).get("id")
    ok = answer.get("title") == command["title"] and got == want
    return {"client": client.name, "ok": ok, "seconds": round(time.monotonic() - start, 3), "title": answer.get("title"),
            "station": got, "expected": want}


async def main():
    url, fixture, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    stations = load_stations(fixture)
    clients = {name: Client(name) for name in names}
    tasks = [asyncio.ensure_future(c.run(url)) for c in clients.values()]
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        command = json.loads(line)
        client = clients[command["client"]]
        for _ in range(200):  # the connection may still be opening
            if client.ws is not None:
                break
            await asyncio.sleep(0.05)
        if "weather" in command:
            print(json.dumps(await weather(client, stations, command)), flush=True)
            continue
        viewport = command.get("viewport") or command.get("expect")
        if "viewport" in command:
            await client.ws.send(json.dumps({"type": "viewport", **command["viewport"]}))
        if command.get("send_only"):
            print(json.dumps({"client": client.name, "ok": True, "sent": True}), flush=True)
            continue
        want = expected_ids(stations, viewport)
        ok, seconds, held = await wait_for(client, want, command.get("within", 2))
        report = {"client": client.name, "ok": ok, "seconds": round(seconds, 3), "held": len(held), "expected": len(want)}
        if not ok:
            report["missing"] = sorted(set(want) - set(held))[:10]
            report["unexpected"] = sorted(set(held) - set(want))[:10]
        print(json.dumps(report), flush=True)
    for task in tasks:
        task.cancel()


asyncio.run(main())
