#!/usr/bin/env python3
"""Writes the seed corpora of the stream targets (Fuzz/corpus/filter, format, client): small,
realistic NDJSON streams in the protocol's shapes (PROTOCOL.md). Run again after changing it;
the files are committed."""
import json, os

here = os.path.dirname(os.path.abspath(__file__))

def line(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

STATIONS = [
    ("K1D3", "PLATTE", 43.40332, -98.82952, 46.4, 6.9, 270, 0),
    ("NZCH", "Christchurch", -43.489, 172.532, 58, 12, 45, 30),
    ("DATE", "Dateline East", 0.5, 179.9, 80, 3, 90, 10),
    ("EDGE", "Exactly 180", -10, 180, 79, None, None, None),
    ("WEST", "Dateline West", 1.5, -179.9, 81, 4, 360, 100),
    ("M180", "Minus 180", 20, -180, 60, 0, 0, 0),
    ("NPOL", "North Pole", 90, 0, -20, 25, 180, 5),
    ("NP89", "Near Pole", 89.9, 135, -18, 20, 200, 5),
    ("SPOL", "Amundsen–Scott", -90, 0, -70, 10, 10, 0),
    ("LZKZ", "Košice", 48.66308, 21.24111, 50, 10, 270, 20),
    ("LZIB", "Bratislava \"Ivanka\"", 48.17, 17.21, 52, 8, 300, 40),
    ("KSEA", "Seattle-Tacoma", 47.45, -122.31, 55, 5, 190, 60),
] + [(f"G{i:03d}", f"Grid {i}", 40 + (i % 6) * 0.5, -110 + (i // 6) * 0.7, 40 + i, i % 20, (i * 37) % 361, i % 101) for i in range(30)]

def snapshot(day, sid, fetched, stations, drop_seq=None, extra=None):
    out = []
    for seq, (i, name, lat, lon, t, ws, wd, p) in enumerate(stations):
        if seq == drop_seq:
            continue
        out.append(line({"type": "station", "day": day, "snapshot": sid, "seq": seq, "id": i, "name": name,
                         "latitude": lat, "longitude": lon, "temperature": t, "windSpeed": ws,
                         "windDirection": wd, "precipitation": p}))
    out.append(line({"type": "snapshot", "day": day, "snapshot": sid, "count": len(stations),
                     "source": "feed", "fetchedAt": fetched, "ageSeconds": 0}))
    return out

def viewport(client, lat, lon, dlat, dlon, **more):
    v = {"type": "viewport", "client": client, "center": {"latitude": lat, "longitude": lon},
         "span": {"latitudeDelta": dlat, "longitudeDelta": dlon}}
    v.update(more)
    return line(v)

def write(target, name, lines):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write("\n".join(lines) + "\n")

warm = [(s[0], s[1], s[2], s[3], (s[4] or 0) + 3, s[5], s[6], s[7]) for s in STATIONS[:-3]]
write("filter", "clients-dateline-poles.ndjson",
      [viewport("early", 0, 180, 10, 20, version=3)]
      + snapshot("today", "today-1", 1000, STATIONS)
      + [viewport("alice", 0, 179, 10, 4),
         viewport("bob", 89, 0, 4, 360, field="wind"),
         viewport("carol", 0, 0, 180, 360, limit=5),
         viewport("dave", 44, -107, 6, 8, limit=4, units="metric", locale="sk"),
         viewport("erin", -89, -180, 3, 10, day="tomorrow"),
         line({"type": "select", "client": "alice", "id": "DATE"}),
         line({"type": "select", "client": "dave", "id": "G007"}),
         line({"type": "resync", "client": "bob", "reason": "version gap"}),
         line({"type": "resync", "reason": "filter started"}),
         line({"type": "nearest", "client": "alice", "latitude": 89.99, "longitude": -179.99}),
         line({"type": "search", "client": "bob", "query": "kosice", "limit": 5}),
         line({"type": "favorite", "client": "carol", "id": "LZKZ", "on": True}),
         viewport("alice", 0, -179, 10, 4, version=2),
         viewport("alice", 0, -179, 10, 4, version=1),
         viewport("dave", 44, -107, 6, 8, limit=4, units="metric", locale="sk", version=0),
         viewport("alice", 44, -104, 2, 3),
         viewport("alice", 41, -108, 2, 3)]
      + snapshot("tomorrow", "tomorrow-1", 1001, STATIONS[:20])
      + snapshot("today", "today-2", 1030, warm)
      + [viewport("bob", -89.5, 90, 1, 359.9), line({"type": "select", "client": "bob", "id": None})])

write("filter", "gateway-lease-leave.ndjson",
      snapshot("today", "today-1", 1000, STATIONS)
      + [viewport("web-1", 40.924, -108.0955, 25, 20, gateway="gw-7c1e", ref=1, version=4),
         viewport("web-2", 48, 20, 5, 5, gateway="gw-7c1e", ref=2),
         line({"type": "lease", "gateway": "gw-7c1e", "clients": 2, "digest": "9c3f0e2a11b4d870"}),
         line({"type": "favorite", "client": "web-2", "id": "LZIB", "on": True}),
         line({"type": "leave", "client": "web-1", "gateway": "gw-7c1e"}),
         line({"type": "leave", "client": "web-2", "gateway": "gw-other"}),
         viewport("web-1", 40.924, -108.0955, 25, 20, gateway="gw-9", ref=1, version=7),
         line({"type": "lease", "gateway": "gw-9", "clients": 1, "digest": "0000000000000000"})])

write("filter", "incomplete-and-replay.ndjson",
      [viewport("alice", 45, -105, 20, 30, limit=9)]
      + snapshot("today", "today-1", 1000, STATIONS)
      + snapshot("today", "today-2", 1100, warm, drop_seq=3)
      + snapshot("today", "today-0", 900, STATIONS[:5])
      + snapshot("today", "today-1", 1200, STATIONS)
      + [line({"type": "unknown-type", "client": "alice", "n": 1}), "not json", line({"type": "viewport", "client": "alice"})])

visible = {"type": "visible", "client": "alice", "version": 1, "full": True, "day": "today", "snapshot": "today-1",
           "source": "feed", "fetchedAt": 1000, "ageSeconds": 0, "field": "wind", "units": "metric", "locale": "sk",
           "upsert": [{"id": "K1D3", "name": "PLATTE", "latitude": 43.40332, "longitude": -98.82952, "temperature": 46.4,
                       "windSpeed": 6.90468887898, "windDirection": 270, "precipitation": 0},
                      {"id": "cluster:1:60:72", "cluster": True, "count": 12, "latitude": 30.2, "longitude": -97.8,
                       "temperature": 71.5, "windSpeed": 8.1, "windDirection": 190.4, "precipitation": 20},
                      {"id": "NULLS", "name": "", "latitude": -90, "longitude": 180, "temperature": None, "windSpeed": None,
                       "windDirection": None, "precipitation": None},
                      {"id": "OLD1", "name": "Stale, \"quoted\"", "latitude": 1.5, "longitude": 2, "temperature": -0.5,
                       "windSpeed": 0, "windDirection": 359.9, "precipitation": 100, "stale": True}],
           "remove": ["KOFK"]}
station = visible["upsert"][0]
write("format", "every-input-type.ndjson", [
    line(visible),
    line(dict(visible, version=2, full=False, field="precipitation", units="imperial", locale="en", upsert=[], remove=["K1D3"])),
    line(dict(visible, version=3, field="temperature", units="knots")),
    line({"type": "selection", "client": "alice", "id": "K1D3", "day": "today", "snapshot": "today-1", "source": "feed",
          "fetchedAt": 1000, "ageSeconds": 0, "reason": "selected", "station": station}),
    line({"type": "selection", "client": "alice", "id": "K1D3", "day": "tomorrow", "snapshot": None, "source": None,
          "fetchedAt": None, "ageSeconds": None, "reason": "not-visible", "station": None}),
    line({"type": "closest", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000,
          "ageSeconds": 0, "point": {"latitude": 48.7, "longitude": 21.25}, "id": "LZKZ", "distanceKm": 4.157, "bearing": 189,
          "station": dict(station, id="LZKZ", name="Košice")}),
    line({"type": "matches", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000,
          "ageSeconds": 0, "query": "kosice", "hits": [dict(station, match="prefix", id="LZKZ", name="Košice")]}),
    line({"type": "pinned", "client": "alice", "reason": "added", "items": [{"id": "LZKZ", "today": station, "tomorrow": None},
          {"id": "GONE", "today": None, "tomorrow": None}]}),
    line({"type": "tally", "gateway": "gw-7c1e", "clients": 2, "digest": "9c3f0e2a11b4d870", "resend": False,
          "today": "today-1", "tomorrow": None}),
])

# A client's annotations stream (the `client` target): a full set, diffs (a cluster, a wind value, a
# stale mark, escapes, a removal), a stale (repeated) version, a gap, and a new full set.
def annotation(i, name, lat, lon, title, **extra):
    return dict({"id": i, "coordinate": {"latitude": lat, "longitude": lon}, "title": title, "subtitle": name, "value": 46.4}, **extra)

head = {"type": "annotations", "client": "alice", "version": 1, "full": True, "day": "today", "field": "temperature",
        "units": "imperial", "windUnit": "mph", "locale": "en", "snapshot": "today-1", "source": "feed",
        "fetchedAt": 1000, "ageSeconds": 0}
write("client", "annotations.ndjson", [
    line(dict(head, upsert=[annotation("K1D3", "PLATTE", 43.40332, -98.82952, "46°"),
                            annotation("cluster:1:60:72", "12 stations", 30.2, -97.8, "72°", cluster=True, count=12),
                            annotation("LZIB", "Bratislava \"Ivanka\"", 48.17, 17.21, "52°", stale=True)], remove=[])),
    line(dict(head, version=2, full=False, field="wind", upsert=[
        {"id": "K1D3", "coordinate": {"latitude": 43.40332, "longitude": -98.82952}, "title": "7 mph W →", "subtitle": "PLATTE",
         "wind": {"speed": 6.9, "unit": "mph", "calm": False, "from": "W", "fromDegrees": 270, "to": "E", "arrow": "→", "rotation": 90}}],
        remove=["LZIB"])),
    line(dict(head, version=2, full=False, upsert=[], remove=["K1D3"])),
    line(dict(head, version=3, full=False, day="tomorrow", source="store", upsert=[annotation("LZKZ", "Košice", 48.66308, 21.24111, "-0°")],
              remove=["cluster:1:60:72"])),
    line(dict(head, version=5, full=False, upsert=[], remove=[])),
    line(dict(head, version=6, upsert=[annotation("NPOL", "North Pole", 90, -180, "", count=None, stale=None, value=None)], remove=[])),
])
