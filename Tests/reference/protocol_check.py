#!/usr/bin/env python3
"""Drives the real filter with the world stations and random viewports, applies its `visible`
messages as PROTOCOL.md says, and compares the held set after every viewport with
cluster_reference.py (written from PROTOCOL.md alone). Exits 1 on the first mismatch.

usage: protocol_check.py ISOBAR_BINARY [--viewports N] [--seed S]
"""
import argparse
import bisect
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_reference as ref  # noqa: E402
import format_reference as fmt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VALUE_KEYS = ("temperature", "windSpeed", "windDirection", "precipitation")
SCALES = {"latitude": 1e6, "longitude": 1e6, "temperature": 1e3, "windSpeed": 1e3, "precipitation": 1e3, "windDirection": 10.0}


def weather(rng):
    def maybe(p_null, value):
        return None if rng.random() < p_null else value()
    t = maybe(0.1, lambda: rng.choice([round(rng.uniform(-40, 110), 1), rng.uniform(-40, 110), 32.0, 0.5, 46.5, -0.5, 41.0]))
    s = maybe(0.1, lambda: rng.choice([0.0, 0.0, 0.4, 0.5, 2.5, rng.uniform(0, 60), round(rng.uniform(0, 40), 2)]))
    d = maybe(0.1, lambda: rng.choice([0.0, 360.0, 180.0, 90.0, 270.0, rng.uniform(0, 360), float(rng.randrange(0, 361)), 11.25 * rng.randrange(0, 33)]))
    p = maybe(0.15, lambda: rng.choice([0.0, 100.0, float(rng.randrange(0, 101)), rng.uniform(0, 100), 40.5]))
    return {"temperature": t, "windSpeed": s, "windDirection": d, "precipitation": p}


def details(rng):
    """Optional station fields (issue 14), each present or not, with ties and edges on purpose."""
    def maybe(value):
        return value() if rng.random() < 0.7 else None
    fields = {
        "feelsLike": maybe(lambda: rng.choice([rng.uniform(-50, 120), 46.5, -0.5])),
        "temperatureLow": maybe(lambda: round(rng.uniform(-40, 90), 2)),
        "temperatureHigh": maybe(lambda: round(rng.uniform(-20, 115), 2)),
        "humidity": maybe(lambda: rng.choice([0.0, 100.0, 40.5, rng.uniform(0, 100)])),
        "pressure": maybe(lambda: rng.choice([1013.25, 1012.0, rng.uniform(870, 1085)])),
        "dewPoint": maybe(lambda: rng.uniform(-40, 80)),
        "visibility": maybe(lambda: rng.choice([0.0, 10.0, 6.213712, rng.uniform(0, 30)])),
        "uvIndex": maybe(lambda: rng.choice([0.0, 2.5, float(rng.randrange(0, 12))])),
        "windGust": maybe(lambda: rng.choice([0.0, 0.5, rng.uniform(0, 120)])),
        "cloudCover": maybe(lambda: rng.choice([0.0, 100.0, 49.5, rng.uniform(0, 100)])),
        "summary": maybe(lambda: rng.choice(["Partly Cloudy", "light intensity drizzle", "Snežen\u00ed", "\"quoted\" \\ back"])),
        "icon": maybe(lambda: rng.choice(["rain", "clear-night"])),
        "sunrise": maybe(lambda: rng.uniform(1.7e9, 1.8e9)),
        "sunset": maybe(lambda: float(rng.randrange(1_700_000_000, 1_800_000_000))),
        "observedAt": maybe(lambda: rng.choice([0.0, 951782400.0, rng.uniform(1.7e9, 1.8e9)])),
    }
    return {k: v for k, v in fields.items() if v is not None}


def stations(rng):
    rows = list(csv.DictReader(open(os.path.join(ROOT, "Fixtures", "world-stations.csv"), encoding="utf-8")))
    out = [{"id": r["id"], "name": r["name"], "latitude": float(r["latitude"]), "longitude": float(r["longitude"])} for r in rows]
    # (Ties on purpose: 46.5 °F, 0.5 mph, directions on every 11.25°, 40.5 %.)
    # Edges the world list lacks: both sides of the antimeridian, the poles, and stations sharing a spot.
    for i, (lat, lon) in enumerate([(10.0, 180.0), (10.0, -180.0), (-20.5, 180.0), (90.0, 0.0), (90.0, 179.5),
                                    (12.5, 45.25), (12.5, 45.25), (12.5, 45.25), (-33.1, 151.2), (-33.1, 151.2)]):
        out.append({"id": f"EDGE{i}", "name": f"edge {i}", "latitude": lat, "longitude": lon})
    # Two dense patches (one astride the antimeridian) for the fine levels, down to 2^-15 degrees.
    for patch, (lat0, lon0) in enumerate([(47.123, 8.456), (0.3, 179.9999)]):
        for i in range(60):
            lat = lat0 + rng.choice([-1, 1]) * 10 ** rng.uniform(-5.5, -0.5)
            lon = lon0 + rng.choice([-1, 1]) * 10 ** rng.uniform(-5.5, -0.5)
            lon = lon - 360 if lon > 180 else lon
            out.append({"id": f"DENSE{patch}-{i}", "name": f"dense {patch}.{i}", "latitude": lat, "longitude": lon})
    for seq, s in enumerate(out):
        s["seq"] = seq
        s.update(weather(rng))
    return out


def viewports(rng, world, n):
    def span(lo, hi):
        return 10 ** rng.uniform(math.log10(lo), math.log10(hi))
    shared = [s for s in world if s["id"] in ("EDGE5", "EDGE8") or s["id"].startswith("DENSE")]  # spots holding several stations
    out = []
    for i in range(n):
        kind = rng.random()
        small = False
        if kind < 0.35:  # on a station, often zoomed in with a small limit: the fine levels
            s = rng.choice(shared) if rng.random() < 0.3 else rng.choice(world)
            lat, lon = s["latitude"] + rng.choice([0, 0, rng.uniform(-0.01, 0.01)]), s["longitude"]
            lat = max(-90.0, min(90.0, lat))
            small = rng.random() < 0.7
        elif kind < 0.5:  # across the antimeridian
            lat, lon = rng.uniform(-80, 80), rng.choice([-1, 1]) * rng.uniform(170, 180)
        elif kind < 0.6:  # near the poles
            lat, lon = rng.choice([-1, 1]) * rng.uniform(80, 90), rng.uniform(-180, 180)
        elif kind < 0.63:
            lat, lon = rng.choice([-90.0, 90.0, 0.0]), rng.choice([-180.0, 180.0, 0.0])
        else:
            lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)
        if small:
            dlat = span(1e-6, 20)
            dlon = dlat * rng.uniform(0.5, 2)
            limit = rng.randint(1, 10)
        else:
            dlat = min(180.0, span(1e-5, 250))
            dlon = rng.choice([360.0, 180.0, 720.0]) if rng.random() < 0.05 else span(1e-5, 800)
            limit = rng.choice([1, 2, 3, 4, 5, 9, 10]) if rng.random() < 0.2 else rng.randint(1, 800)
        out.append({"type": "viewport", "client": "ref", "center": {"latitude": lat, "longitude": lon},
                    "span": {"latitudeDelta": dlat, "longitudeDelta": dlon}, "limit": limit})
    return out


def near_tie(members, key, lon0, ours, theirs):
    """True when the exact mean sits on a rounding tie, where sum order may round either way."""
    scale = SCALES[key]
    if abs(ours - theirs) > 1.5 / scale and not (key == "windDirection" and {ours, theirs} == {0.0, 360.0}):
        return False
    if key == "windDirection":
        x = math.fsum(m["windSpeed"] * math.sin(m["windDirection"] * math.pi / 180) for m in members
                      if m["windSpeed"] is not None and m["windDirection"] is not None)
        y = math.fsum(m["windSpeed"] * math.cos(m["windDirection"] * math.pi / 180) for m in members
                      if m["windSpeed"] is not None and m["windDirection"] is not None)
        exact = math.atan2(x, y) * 180 / math.pi % 360
        if exact < 1e-9 or exact > 360 - 1e-9:
            return True
    elif key == "longitude":
        exact = math.fsum(m["longitude"] - 360 if m["longitude"] - lon0 > 180 else m["longitude"] + 360
                          if lon0 - m["longitude"] > 180 else m["longitude"] for m in members) / len(members)
    else:
        known = [m[key] for m in members if m[key] is not None]
        exact = math.fsum(known) / len(known)
    frac = abs(exact * scale) % 1
    return abs(frac - 0.5) < 1e-6

def check_format(binary, rng, world, views):
    """Every presentation over reference items and stations: `isobar format` against format_reference.py."""
    presentations = [{}]
    for field in ("temperature", "wind", "precipitation"):
        for units in (None, "imperial", "metric"):
            for wind_unit in (None, "mph", "kmh", "knots"):
                for locale in (None, "en", "sk"):
                    p = {"field": field, "units": units, "windUnit": wind_unit, "locale": locale}
                    presentations.append({k: v for k, v in p.items() if v is not None})
    messages, expected = [], []
    for k, v in enumerate(views[:600]):
        p = presentations[k % len(presentations)]
        items = ref.items(world, v)[:60]
        if not items:
            continue
        messages.append({"type": "visible", "client": "f", "version": k + 1, "full": True, "day": "today",
                         "snapshot": "s", "source": "feed", "fetchedAt": 1, "ageSeconds": 0, **p, "upsert": items, "remove": []})
        field, units, wind_unit, locale = fmt.resolve(p)
        expected.append(("annotations", {"field": field, "units": units, "windUnit": wind_unit, "locale": locale},
                         [fmt.annotation(i, field, units, wind_unit, locale) for i in items]))
    for k in range(1500):
        p = presentations[k % len(presentations)]
        s = world[rng.randrange(len(world))]
        station = {key: s[key] for key in ("id", "name", "latitude", "longitude") + VALUE_KEYS}
        if k % 3 == 0:
            station.update(details(rng))
        day = rng.choice(["today", "tomorrow"])
        messages.append({"type": "selection", "client": "f", "id": s["id"], "day": day, "snapshot": "s", "source": "feed",
                         "fetchedAt": 1, "ageSeconds": 0, **p, "reason": "selected", "station": station})
        field, units, wind_unit, locale = fmt.resolve(p)
        expected.append(("callout", {"title": s["name"] or s["id"],
                                     "subtitle": s["id"] + " · " + fmt.WORDS[locale][day]},
                         fmt.callout_details(station, units, wind_unit, locale)))
    # No gazetteer: stations without a zone of their own show their times in UTC (PROTOCOL.md, "Local time").
    run = subprocess.run([binary, "format", "--places", ""], input="".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages).encode(),
                         capture_output=True, timeout=120)
    lines = run.stdout.decode("utf-8").splitlines()
    if run.returncode != 0 or len(lines) != len(messages):
        sys.exit(f"protocol-reference: format exited {run.returncode} with {len(lines)} of {len(messages)} lines: {run.stderr.decode()[-1000:]}")
    annotations = 0
    for message, line, (kind, top, body) in zip(messages, lines, expected):
        got = json.loads(line)
        if got["type"] != kind or any(got.get(key) != value for key, value in top.items()):
            sys.exit(f"protocol-reference: FORMAT MISMATCH: {json.dumps(top, ensure_ascii=False)} vs {line[:300]}")
        mine = body if kind == "callout" else body
        theirs = got["details"] if kind == "callout" else got["upsert"]
        for a, b in zip(mine, theirs):
            annotations += 1
            if a != b or list(a) != list(b) or (isinstance(a.get("wind"), dict) and list(a["wind"]) != list(b["wind"])):
                sys.exit(f"protocol-reference: FORMAT MISMATCH ({kind}, {json.dumps({k: message.get(k) for k in ('field', 'units', 'windUnit', 'locale')})}):\n"
                         f"  reference {json.dumps(a, ensure_ascii=False)}\n  format    {json.dumps(b, ensure_ascii=False)}")
        if len(mine) != len(theirs):
            sys.exit(f"protocol-reference: FORMAT MISMATCH: {len(mine)} vs {len(theirs)} entries in {line[:200]}")
    return f"format: {annotations} annotations and callout lines identical over {len(presentations)} presentations"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--viewports", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    started = time.monotonic()
    rng = random.Random(args.seed)
    world = stations(rng)
    views = viewports(rng, world, args.viewports)
    by_id = {s["id"]: s for s in world}
    with tempfile.TemporaryDirectory() as work:
        feed = os.path.join(work, "in.ndjson")
        with open(feed, "w", encoding="utf-8") as f:
            for s in world:
                f.write(json.dumps({"type": "station", "day": "today", "snapshot": "today-reference", **s}, ensure_ascii=False) + "\n")
            f.write(json.dumps({"type": "snapshot", "day": "today", "snapshot": "today-reference", "count": len(world),
                                "source": "feed", "fetchedAt": 1000, "ageSeconds": 0}) + "\n")
            for n, v in enumerate(views):
                f.write(json.dumps(v) + "\n")
                f.write(json.dumps({"type": "mark", "n": n}) + "\n")  # passed through: ends viewport n's output
        with open(feed, "rb") as stdin:
            run = subprocess.run([args.binary, "filter"], stdin=stdin, capture_output=True, timeout=300)
    if run.returncode != 0:
        sys.exit(f"protocol-reference: filter exited {run.returncode}: {run.stderr.decode()[-2000:]}")
    filter_seconds = time.monotonic() - started
    by_lat = sorted(world, key=lambda s: s["latitude"])
    lats = [s["latitude"] for s in by_lat]
    held, version, pending, n = {}, 0, [], 0
    ties = compared = clusters_seen = flips = 0
    filter_values = {}
    levels = set()

    def fail(why):
        v = views[n]
        print(f"protocol-reference: MISMATCH at viewport {n}: {why}\n  viewport: {json.dumps(v)}", file=sys.stderr)
        sys.exit(1)

    for line in run.stdout.decode("utf-8").splitlines():
        m = json.loads(line)
        if m["type"] == "error":
            fail(f"filter error {m}")
        if m["type"] == "visible":
            pending.append(m)
            continue
        if m["type"] != "mark":
            continue
        assert m["n"] == n
        v = views[n]
        half = v["span"]["latitudeDelta"] / 2 + 1e-9
        band = by_lat[bisect.bisect_left(lats, v["center"]["latitude"] - half):bisect.bisect_right(lats, v["center"]["latitude"] + half)]
        expected = ref.items(sorted(band, key=lambda s: s["seq"]), v)
        order = {item["id"]: k for k, item in enumerate(expected)}
        for msg in pending:
            version += 1
            if msg["version"] != version:
                fail(f"version {msg['version']}, expected {version}")
            ids = [item["id"] for item in msg["upsert"]]
            if [order.get(i, -1) for i in ids] != sorted(order.get(i, -1) for i in ids):
                fail(f"upsert order {ids[:10]}... is not the documented order")
            keyed = [(0, by_id[i]["seq"]) if i in by_id else (1, *map(int, i.split(":")[1:])) for i in msg["remove"]]
            if keyed != sorted(keyed):
                fail(f"remove order {msg['remove'][:10]} is not the documented order")
            if msg["full"]:
                held = {}
            for i in msg["remove"]:
                held.pop(i, None)
            for item in msg["upsert"]:
                held[item["id"]] = item
        pending = []
        want = {item["id"]: item for item in expected}
        if set(held) != set(want):
            fail(f"ids differ: filter only {sorted(set(held) - set(want))[:5]}, reference only {sorted(set(want) - set(held))[:5]} "
                 f"({len(held)} vs {len(want)})")
        for i, item in want.items():
            got = held[i]
            compared += 1
            if item.get("cluster"):
                clusters_seen += 1
                levels.add(int(i.split(":")[1]))
                if got.get("count") != item["count"] or got.get("cluster") is not True:
                    fail(f"{i}: count {got.get('count')} vs {item['count']}")
                lat0, lon0 = v["center"]["latitude"], v["center"]["longitude"]
                L = int(i.split(":")[1]); size = 2.0 ** L
                row, column = map(int, i.split(":")[2:])
                min_lat, max_lat, ranges = ref.region(lat0, lon0, v["span"]["latitudeDelta"], v["span"]["longitudeDelta"])
                members = [s for s in band if math.floor((s["latitude"] + 90) / size) == row
                           and math.floor((s["longitude"] + 180) / size) == column and min_lat <= s["latitude"] <= max_lat
                           and (ranges is None or any(a <= s["longitude"] <= b for a, b in ranges))]
                shifts = frozenset((m["seq"], m["longitude"] - lon0 > 180, lon0 - m["longitude"] > 180) for m in members)
                seen = filter_values.setdefault((i, shifts), got)
                if any(seen.get(key) != got.get(key) for key in ("latitude", "longitude") + VALUE_KEYS):
                    flips += 1  # the filter itself gave the same cluster two values
                for key in ("latitude", "longitude") + VALUE_KEYS:
                    if got.get(key) != item[key]:
                        if got.get(key) is not None and item[key] is not None and near_tie(members, key, lon0, item[key], got[key]):
                            ties += 1
                            if os.environ.get("REFERENCE_SHOW_TIES"):
                                print(f"tie: {i} {key} filter {got[key]!r} reference {item[key]!r} count {len(members)}", file=sys.stderr)
                            continue
                        fail(f"{i} {key}: filter {got.get(key)!r}, reference {item[key]!r}")
            else:
                s = by_id[i]
                for key in ("name", "latitude", "longitude") + VALUE_KEYS:
                    if got.get(key) != s[key]:
                        fail(f"station {i} {key}: filter {got.get(key)!r}, snapshot {s[key]!r}")
        n += 1
    if n != len(views):
        sys.exit(f"protocol-reference: filter answered {n} of {len(views)} viewports")
    formatted = check_format(args.binary, rng, world, views)
    print(f"protocol-reference: ok: {n} viewports, {compared} items compared ({clusters_seen} clusters at levels "
          f"{min(levels)}..{max(levels)}), 0 mismatches, {ties} values on a rounding tie, "
          f"{flips} times the filter sent one cluster (same members, same unwrap) different values; "
          f"{formatted}; {time.monotonic() - started:.1f} s (filter {filter_seconds:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
