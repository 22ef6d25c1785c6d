#!/usr/bin/env python3
"""The WebSocket half of scripts/checks/schema.sh: talks to a running gateway as an app does and
records both directions, for validation against schema/websocket/ (what the app sends) and
schema/messages/ (what it receives):
    python3 scripts/schema/gateway.py HOST:PORT SENT.ndjson RECEIVED.ndjson
Sends a viewport, select, nearest, search, favorite, detail, resync, geocode, reverse and weather (without
`client`, as the gateway's clients do; the places stage answers locations and vicinity, the formatter conditions), then
three bad frames (not JSON, another client's name, an unknown type), each answered with an error
frame; collects every frame until 2 s pass without one.
"""
import asyncio
import json
import sys

import websockets

REQUESTS = [
    {"type": "viewport", "center": {"latitude": 40.924, "longitude": -108.0955}, "span": {"latitudeDelta": 25, "longitudeDelta": 20},
     "field": "wind", "units": "metric", "locale": "sk"},
    {"type": "select", "id": "K1D3"},
    {"type": "nearest", "latitude": 43.4, "longitude": -98.8},
    {"type": "search", "query": "platte", "limit": 5, "locale": "en"},
    {"type": "favorite", "id": "K1D3", "on": True},
    {"type": "detail", "id": "K1D3", "units": "imperial", "windUnit": "knots"},
    {"type": "resync", "reason": "version gap"},
    {"type": "viewport", "center": {"latitude": 39, "longitude": -98}, "span": {"latitudeDelta": 40, "longitudeDelta": 60},
     "field": "precipitation", "limit": 9, "version": 0},
    {"type": "select", "id": None},
    {"type": "geocode", "query": "springfield, il", "limit": 3},
    {"type": "geocode", "id": 1835848},
    {"type": "reverse", "latitude": 42.432356, "longitude": 25.637389, "radiusKm": 50},
    {"type": "reverse", "latitude": -30, "longitude": -130},
    {"type": "weather", "id": 5419384, "radiusKm": 500},
    {"type": "weather", "latitude": 0, "longitude": 0, "units": "metric"},
]
BAD = ["not json", json.dumps({"type": "select", "client": "someone-else", "id": "K1D3"}), json.dumps({"type": "no-such-type"})]


async def main(address, sent_path, received_path):
    received = []
    async with websockets.connect(f"ws://{address}/ws?client=schema-check") as ws:
        async def reader():
            while True:
                received.append(await ws.recv())
        task = asyncio.create_task(reader())
        with open(sent_path, "w") as sent:
            for request in REQUESTS:
                text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
                await ws.send(text)
                sent.write(text + "\n")
                await asyncio.sleep(0.2)
        for frame in BAD:
            await ws.send(frame)
        seen = -1
        while seen != len(received):
            seen = len(received)
            await asyncio.sleep(2)
        task.cancel()
    with open(received_path, "w") as out:
        for frame in received:
            out.write(frame + "\n")
    types = sorted({json.loads(f).get("type") for f in received})
    print(f"schema: the gateway sent {len(received)} frames ({', '.join(types)})", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
