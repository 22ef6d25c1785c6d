#!/usr/bin/python3
"""The gateway check of scripts/compose-test.sh, from the host against the published port.

    /usr/bin/python3 scripts/compose-ws-check.py HOST:PORT EXPECTED.json FRAMES.ndjson

1. GETs the runtime files the gateway serves from the image (/, /web/app.mjs, /web/isobar.css,
   /leaflet/leaflet.js, /leaflet/leaflet.markercluster.js, /countries.geojson): each must be 200.
2. Opens ws://HOST:PORT/ws, sends the initial-region viewport, applies every `annotations` frame by
   version (full: replace; diff: remove, then upsert; a gap: send resync and ignore diffs until the
   next full), heartbeats the viewport with the applied version every 2 s, and passes once the held
   set equals EXPECTED.json (a sorted list of station ids) for 2 s. Fails after 90 s.
Every received frame is written to FRAMES.ndjson. Needs `websockets` (Debian python3-websockets).
"""
import asyncio
import json
import sys
import time
import urllib.request

import websockets

VIEWPORT = {"type": "viewport", "center": {"latitude": 40.924, "longitude": -108.0955},
            "span": {"latitudeDelta": 25, "longitudeDelta": 20}}
TIMEOUT = 90


def log(message):
    print(f"compose-test: {message}", file=sys.stderr, flush=True)


def fail(message):
    log(f"FAIL: {message}")
    sys.exit(1)


def check_files(address):
    for path, needle in [("/", b"leaflet/leaflet.js"), ("/web/app.mjs", b""), ("/web/isobar.css", b""),
                         ("/leaflet/leaflet.js", b"Leaflet"), ("/leaflet/leaflet.markercluster.js", b""),
                         ("/countries.geojson", b"FeatureCollection")]:
        try:
            with urllib.request.urlopen(f"http://{address}{path}", timeout=5) as response:
                body = response.read()
                if response.status != 200 or not body or needle not in body:
                    fail(f"GET {path}: {response.status}, {len(body)} bytes without {needle!r}")
        except Exception as error:  # HTTPError, URLError, timeouts
            fail(f"GET {path}: {error}")
    log("gateway serves the web map's files (/, /web/*, /leaflet/*, /countries.geojson)")


async def check_client(address, expected, out_path):
    shown, version, frames, broken, settled_since = {}, None, 0, False, None
    deadline = time.monotonic() + TIMEOUT
    async with websockets.connect(f"ws://{address}/ws", open_timeout=10, max_size=None) as ws:
        with open(out_path, "w") as out:
            await ws.send(json.dumps(VIEWPORT))
            last_heartbeat = time.monotonic()
            while time.monotonic() < deadline:
                if time.monotonic() - last_heartbeat >= 2:  # the contract's heartbeat: viewport + version
                    await ws.send(json.dumps({**VIEWPORT, "version": 0 if broken else (version or 0)}))
                    last_heartbeat = time.monotonic()
                try:
                    frame = await asyncio.wait_for(ws.recv(), timeout=0.5)
                except asyncio.TimeoutError:
                    frame = None
                if frame is not None:
                    out.write(frame.rstrip("\n") + "\n")
                    message = json.loads(frame)
                    if message.get("type") == "error":
                        fail(f"the gateway answered with an error: {frame[:300]}")
                    if message.get("type") == "annotations":
                        frames += 1
                        v = message["version"]
                        if version is not None and v <= version:
                            fail(f"annotations version {v} after {version}: versions must increase")
                        if message.get("full"):
                            shown, broken = {}, False
                        elif broken or (version is not None and v != version + 1):
                            if not broken:  # a gap: ask for the whole set, ignore diffs until it comes
                                log(f"version gap ({version} -> {v}): sending resync")
                                broken = True
                                await ws.send(json.dumps({"type": "resync", "reason": "version gap"}))
                            version = v
                            continue
                        for station_id in message.get("remove") or []:
                            shown.pop(station_id, None)
                        for annotation in message.get("upsert") or []:
                            if not isinstance(annotation.get("title"), str) or "coordinate" not in annotation:
                                fail(f"an annotation without title or coordinate: {annotation}")
                            shown[annotation["id"]] = annotation
                        version = v
                if not broken and set(shown) == expected:
                    settled_since = settled_since or time.monotonic()
                    if time.monotonic() - settled_since >= 2:  # let late frames in
                        log(f"WebSocket client: {frames} annotations frames (last version {version}), "
                            f"holds exactly the {len(expected)} expected stations")
                        return
                else:
                    settled_since = None
    got = set(shown)
    fail(f"the WebSocket client holds {len(got)} stations after {TIMEOUT} s, expected the {len(expected)} "
         f"of the initial region; missing {sorted(expected - got)[:10]}, unexpected {sorted(got - expected)[:10]}")


def main():
    address, expected_path, out_path = sys.argv[1:4]
    with open(expected_path) as f:
        expected = set(json.load(f))
    check_files(address)
    try:
        asyncio.run(check_client(address, expected, out_path))
    except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError) as error:
        fail(f"WebSocket ws://{address}/ws: {type(error).__name__}: {error}")


if __name__ == "__main__":
    main()
