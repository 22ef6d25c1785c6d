#!/usr/bin/env python3
"""Writes the conformance vectors (conformance/<stage>/<section>/<name>.json) by running the
current binary once on each vector's input:
    python3 scripts/make-conformance.py [ISOBAR_BINARY]
Each vector: `description`, `section` (the PROTOCOL.md section it checks), `stage`, `args` (extra
command-line arguments; `{repo}` is the repository, `{files}` a directory holding `files`),
`input` (NDJSON lines: an object is written compactly, a string as it is), `expected` (the output
lines, as objects) and, when the binary disagrees with PROTOCOL.md, `disputed` (what differs;
`isobar conformance` skips such vectors unless --disputed). Review the output against
PROTOCOL.md before committing it: a vector is a claim about the contract, not just a recording.
"""
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT = REPO / "conformance"
BIN = sys.argv[1] if len(sys.argv) > 1 else str(REPO / ".build/debug/isobar")
FUTURE = 4102444800  # 2100-01-01: a fetchedAt that never makes a station stale while the kit is in use

VECTORS = []


# The filter vectors' snapshots are fetched in 2100 (FUTURE), far beyond the default
# --max-future-skew (PROTOCOL.md, "Implausible snapshots"): they say so with the flag.
SKEW = ["--max-future-skew", "4102444800"]


# The formatter takes a station's time zone, when its feed names none, from the nearest place of
# a gazetteer (PROTOCOL.md, "Local time"): the format vectors name the kit's own, so the answers
# do not depend on which gazetteer is installed.
ZONES = ["--places", "{repo}/conformance/places/gazetteer.txt"]


def vector(stage, section, name, description, input_lines, args=(), disputed=None, files=None):
    VECTORS.append({"stage": stage, "section": section, "name": name, "description": description,
                    "args": (SKEW if stage == "filter" else ZONES if stage == "format" else []) + list(args), "files": files or {}, "input": input_lines, "disputed": disputed})


def st(id_, lat, lon, t=50, ws=5, wd=270, p=10, name=None, **extra):
    s = {"id": id_, "name": name if name is not None else id_, "latitude": lat, "longitude": lon,
         "temperature": t, "windSpeed": ws, "windDirection": wd, "precipitation": p}
    s.update(extra)
    return s


def snap(stations, day="today", sid=None, fetched=FUTURE, count=None, skip=()):
    sid = sid or day + "-" + hashlib.sha256(json.dumps(stations, sort_keys=True).encode()).hexdigest()[:16]
    lines = [{"type": "station", "day": day, "snapshot": sid, "seq": i, **s} for i, s in enumerate(stations) if i not in skip]
    lines.append({"type": "snapshot", "day": day, "snapshot": sid, "count": len(stations) if count is None else count,
                  "source": "feed", "fetchedAt": fetched, "ageSeconds": 0})
    return lines


def vp(client="alice", lat=0, lon=0, dlat=10, dlon=10, **keys):
    return {"type": "viewport", "client": client, "center": {"latitude": lat, "longitude": lon},
            "span": {"latitudeDelta": dlat, "longitudeDelta": dlon}, **keys}


GRID = [st("A", 0, 0, 50, 5, 270, 10, "Alpha"), st("B", 2, 2, 60, 0, None, None, "Bravo"),
        st("C", -4, 4, None, 12, 90, 40, "Charlie"), st("E", 4.5, -4.5, 70, 3, 360, 0, "Echo")]
EDGES = [st("N", 5, 0), st("S", -5, 0), st("W", 0, -5), st("E", 0, 5), st("NE", 5, 5), st("OUT", 5.000001, 0)]

# ---------------------------------------------------------------- filter
F = "filter"
vector(F, "Lines", "not-json", "A line that is not JSON gives one error and is skipped.", ["not json", *snap(GRID), vp()])
vector(F, "Lines", "blank-crlf-bom", "Blank lines are skipped, \\r\\n ends a line, a BOM at a line's start is dropped.",
       ["", *snap(GRID), "\ufeff" + json.dumps(vp(), separators=(",", ":")) + "\r", "   "])
vector(F, "Lines", "duplicate-keys", "Duplicate keys are an error at any depth.",
       [*snap(GRID), '{"type":"viewport","client":"alice","center":{"latitude":0,"latitude":1,"longitude":0},"span":{"latitudeDelta":10,"longitudeDelta":10}}'])
vector(F, "Lines", "strict-json", "NaN, leading zeros and a number out of a double's range are errors; a number as a string is a wrong type.",
       [*snap(GRID), '{"type":"nearest","client":"alice","latitude":NaN,"longitude":0}',
        '{"type":"nearest","client":"alice","latitude":01,"longitude":0}',
        '{"type":"nearest","client":"alice","latitude":1e400,"longitude":0}',
        '{"type":"nearest","client":"alice","latitude":"1","longitude":0}'])
vector(F, "Lines", "empty-type", "An empty type is an error; a JSON value that is not an object is an error.", ['{"type":""}', "[1,2]", "7"])
vector(F, "Lines", "unknown-type-passes", "Unknown message types pass through unchanged; unknown fields are ignored.",
       [{"type": "plugin-note", "client": "alice", "x": [1, 2]}, *snap(GRID), {**vp(), "extra": {"ignored": True}}])
vector(F, "Lines", "coordinates-rejected", "A station at longitude 181 is rejected, not wrapped (the snapshot is then incomplete).",
       snap([st("A", 0, 0), st("Z", 0, 181)]) + [vp()])

vector(F, "Snapshots: framing and sequence numbers", "complete", "A complete snapshot, then a viewport: the full set of what it sees.",
       [*snap(GRID), vp()])
vector(F, "Snapshots: framing and sequence numbers", "missing-seq", "An end marker with a seq missing: error + resync; the client gets the previous (no) snapshot.",
       [*snap(GRID, skip=(1,)), vp()])
vector(F, "Snapshots: framing and sequence numbers", "unseen-snapshot",
       "An end marker for a snapshot none of whose stations were seen: only a resync.",
       [snap(GRID)[-1]])
vector(F, "Snapshots: framing and sequence numbers", "replay-same-id", "The same snapshot again (same id, same fetchedAt): nothing to any client.",
       [*snap(GRID), vp(), *snap(GRID)])
vector(F, "Snapshots: framing and sequence numbers", "refetched-same-id", "The same content fetched later: an empty diff with the new fetchedAt.",
       [*snap(GRID), vp(), *snap(GRID, fetched=FUTURE + 60)])
vector(F, "Snapshots: framing and sequence numbers", "newer-snapshot", "A newer snapshot: a diff with what changed (C gone, A warmer, D new).",
       [*snap(GRID), vp(), *snap([st("A", 0, 0, 55), GRID[1], GRID[3], st("D", 1, 1)], fetched=FUTURE + 60)])
vector(F, "Snapshots: framing and sequence numbers", "older-snapshot-loses", "A complete snapshot with an earlier fetchedAt changes nothing (newest data wins).",
       [*snap(GRID), vp(), *snap([st("A", 0, 0, 99)], fetched=FUTURE - 60)])
vector(F, "Duplicate station ids in a snapshot", "first-kept", "A repeated id: one error per snapshot, the first kept.",
       [*snap([st("A", 0, 0, 50), st("A", 1, 1, 99), st("B", 2, 2)]), vp()])

vector(F, "Client contract: viewport", "edges-inclusive", "Visible bounds include their edges: stations exactly on each edge and a corner are visible, one a hair outside is not.",
       [*snap(EDGES), vp(dlat=10, dlon=10)])
vector(F, "Client contract: viewport", "wrap-180", "A viewport centred at 179°E sees a station at 179°W.",
       [*snap([st("W", 10, -179), st("X", 10, 179), st("Y", 10, 0)]), vp(lat=10, lon=179, dlat=6, dlon=6)])
vector(F, "Client contract: viewport", "whole-world", "A longitudeDelta of 360 or more sees every longitude.",
       [*snap([st("W", 10, -179), st("Y", 10, 0)]), vp(lat=10, lon=0, dlat=4, dlon=400)])
vector(F, "Client contract: viewport", "bad-span", "latitudeDelta 0 or over 180, longitudeDelta 0: each an error to the client.",
       [*snap(GRID), vp(dlat=0), vp(dlat=181), vp(dlon=0)])
vector(F, "Client contract: viewport", "missing-span", "A viewport without span is one error.",
       [*snap(GRID), {"type": "viewport", "client": "alice", "center": {"latitude": 0, "longitude": 0}}])
vector(F, "Client contract: viewport", "pan-diff", "Panning: a diff of what entered and left, version + 1.",
       [*snap(GRID), vp(), vp(lat=3, lon=3, version=1)])
vector(F, "Client contract: viewport", "heartbeat-silent", "The same viewport again with the current version: nothing.",
       [*snap(GRID), vp(), vp(version=1)])
vector(F, "Client contract: viewport", "version-zero", "version 0 (a broken set): a full set at once.",
       [*snap(GRID), vp(), vp(version=0)])
vector(F, "Client contract: viewport", "version-ahead", "A version ahead of the filter's (a restarted filter): adopted, a full set with the next.",
       [*snap(GRID), vp(version=41)])
vector(F, "Client contract: viewport", "no-data-new-client",
       "A client without a version and no snapshot of its day: a resync request at once and an empty full set (snapshot null).",
       [vp()])
vector(F, "Client contract: viewport", "no-data-with-version", "A client reporting a version while there is no data: no answer (no blank map), then the full set once data arrives.",
       [vp(version=5), *snap(GRID)])
vector(F, "Client contract: viewport", "no-data-changes", "No snapshot of the day: each viewport without a version gets an empty full set, a changed viewport with a version the next one; version 0 (new client or not) gets nothing (issue 29 item 14).",
       [vp(), vp(), vp(lat=3, version=1), vp(client="bob", lat=3, version=0), vp(lat=3, version=0)])
vector(F, "Client contract: viewport", "field-toggle-full", "A change of field answers with a full set; a limit change with a diff.",
       [*snap(GRID), vp(), vp(field="wind", version=1), vp(field="wind", limit=3, version=2)])
vector(F, "Client contract: viewport", "presentation-keys", "units, windUnit and locale set by the client appear in visible, only when set.",
       [*snap(GRID), vp(units="metric", windUnit="knots", locale="sk", day="today")])

vector(F, "Client contract: select", "select-and-clear", "select: the selection (with its optional fields); id null: a cleared selection.",
       [*snap([st("A", 0, 0, humidity=81, summary="drizzle", icon="rain")]), vp(), {"type": "select", "client": "alice", "id": "A"},
        {"type": "select", "client": "alice", "id": None}])
vector(F, "Client contract: select", "unknown-id", "An id in no snapshot is an error.",
       [*snap(GRID), vp(), {"type": "select", "client": "alice", "id": "NOPE"}])
vector(F, "Client contract: select", "leaves-view", "A selected station that leaves the view: not-visible.",
       [*snap(GRID), vp(), {"type": "select", "client": "alice", "id": "A"}, vp(lat=40, lon=40, version=1)])
vector(F, "Client contract: select", "before-viewport", "select before any viewport is an error, even with id null.",
       [*snap(GRID), {"type": "select", "client": "alice", "id": None}])

vector(F, "Client contract: select", "null-and-missing-id", "A missing id is null; with nothing selected, select null sends nothing; a known but hidden id gives not-visible; a full answer re-sends the selection (issue 29 item 9).",
       [*snap(GRID + [st("FAR", 40, 40)]), vp(), {"type": "select", "client": "alice", "id": None}, {"type": "select", "client": "alice"},
        {"type": "select", "client": "alice", "id": "FAR"}, {"type": "select", "client": "alice", "id": "A"}, vp(version=0)])
vector(F, "Client contract: select", "selection-presentation-keys", "selection carries the client's presentation keys after ageSeconds, as its viewport set them (issue 29 item 6).",
       [*snap(GRID), vp(field="wind", units="metric", windUnit="knots", locale="sk"), {"type": "select", "client": "alice", "id": "A"}])

vector(F, "Client contract: resync", "client-resync", "resync with a client: its full set again with the next version.",
       [*snap(GRID), vp(), {"type": "resync", "client": "alice", "reason": "version gap"}])
vector(F, "Client contract: resync", "bare-resync-consumed", "A bare resync is for the publishers: the filter writes nothing for it.",
       [*snap(GRID), vp(), {"type": "resync", "reason": "filter started"}])

vector(F, "Client contract: resync", "unknown-client", "resync for a client the filter does not know (no viewport) is an error to it (issue 29 item 9).",
       [*snap(GRID), {"type": "resync", "client": "bob", "reason": "version gap"}])
vector(F, "Client contract: viewport", "client-names", "A client name may contain `/` and any characters up to 256 bytes; 257 bytes is an error (issue 29 item 13).",
       [*snap(GRID), vp(client="team/alice ü"), vp(client="x" * 256, dlat=1, dlon=1), vp(client="y" * 257)])
vector(F, "Client contract: viewport", "integer-bounds", "Integer fields must be whole numbers below 9e15: limit 9e15 is a wrong type, 8999999999999999 out of range, version over 10^15 out of range (issue 29 item 10).",
       [*snap(GRID), vp(limit=9000000000000000), vp(limit=8999999999999999), vp(version=1000000000000001), vp(limit=2.5)])

CROWD = [st(f"S{i:02d}", -20 + (i % 8) * 5.5, -20 + (i // 8) * 5.5, 40 + i, i % 7, (i * 37) % 360, (i * 13) % 101) for i in range(40)]
vector(F, "Clustering, exactly", "limit-clusters", "More stations than limit: clusters on the fixed grid, stations first, then clusters.",
       [*snap(CROWD), vp(dlat=60, dlon=60, limit=9)])
vector(F, "Clustering, exactly", "zoom-splits", "Zooming in splits clusters; the diff removes cluster ids in (L, row, column) order.",
       [*snap(CROWD), vp(dlat=60, dlon=60, limit=9), vp(dlat=30, dlon=30, limit=9, version=1)])
vector(F, "Clustering, exactly", "unknown-never-zero", "A cluster's mean skips unknown values; all calm gives a null direction.",
       [*snap([st("P", 1, 1, None, 0, 90, None), st("Q", 1.1, 1.1, 40, 0, 180, None), st("R", 30, 30)]), vp(lat=15, lon=15, dlat=40, dlon=40, limit=1)])
vector(F, "Clustering, exactly", "cluster-icon", "A station's icon goes with its item; a cluster's is its members' most common (a tie to the "
       "earlier in the vocabulary: rain before snow); a cluster with none has no icon.",
       [*snap([st("I1", 1, 1, icon="snow"), st("I2", 1.1, 1.1, icon="rain"), st("I3", 1.2, 1.2, icon="snow"), st("I4", 1.3, 1.3, icon="rain"),
               st("I5", 1.4, 1.4), st("J", 30, 30), st("K1", -20, -20, icon="fog")]),
        vp(lat=5, lon=5, dlat=60, dlon=60, limit=2, field="conditions"), vp(lat=5, lon=5, dlat=60, dlon=60, limit=10, field="conditions", version=1)])

vector(F, "Gateways: idle clients at no cost", "lease-tally", "A lease is answered by a tally with the filter's count and digest over that gateway's clients.",
       [*snap(GRID), vp(gateway="gw-1", ref=1), {"type": "lease", "gateway": "gw-1", "clients": 1, "digest": "0000000000000000"}])
vector(F, "Gateways: idle clients at no cost", "leave-other-gateway", "A leave naming a gateway is ignored for a client whose latest viewport named another gateway or none: its select still works (issue 29 item 8).",
       [*snap(GRID), vp(), {"type": "leave", "client": "alice", "gateway": "gw-1"}, {"type": "select", "client": "alice", "id": "A"},
        vp(client="bob", gateway="gw-2", ref=1), {"type": "leave", "client": "bob", "gateway": "gw-1"}, {"type": "select", "client": "bob", "id": "A"}])
vector(F, "Gateways: idle clients at no cost", "leave-forgets", "leave forgets the client: a later lease counts 0.",
       [*snap(GRID), vp(gateway="gw-1", ref=1), {"type": "leave", "client": "alice", "gateway": "gw-1"},
        {"type": "lease", "gateway": "gw-1", "clients": 0, "digest": "0000000000000000"}])

KOSICE = [st("LZKZ", 48.66308, 21.24111, 50, 10, 270, 20, "Košice"), st("LZIB", 48.17, 17.21, 52, 4, 90, 0, "Bratislava"),
          st("KSEA", 47.45, -122.31, 45, 3, 180, 80, "Seattle-Tacoma"), st("ORD", 41.98, -87.9, 30, 12, 300, 5, "O'Hare"),
          st("N", 89.9, 0, -20, 2, 0, 0, "North"), st("DL", 10, -179.9, 80, 1, 45, 0, "Dateline")]
vector(F, "Find: nearest", "nearest", "The nearest station: distanceKm R3, bearing R1.",
       [*snap(KOSICE), {"type": "nearest", "client": "alice", "latitude": 48.7, "longitude": 21.25}])
vector(F, "Find: nearest", "dateline-and-pole", "Across the 180° meridian; from the North Pole the bearing is 180.",
       [*snap(KOSICE), {"type": "nearest", "client": "alice", "latitude": 10, "longitude": 179.9},
        {"type": "nearest", "client": "alice", "latitude": 90, "longitude": 0}])
vector(F, "Find: nearest", "no-snapshot", "No snapshot of the day: id null, station null, snapshot null.",
       [*snap(KOSICE), {"type": "nearest", "client": "alice", "latitude": 0, "longitude": 0, "day": "tomorrow"}])
vector(F, "Find: nearest", "bad-latitude", "Latitude out of range: one error.",
       [*snap(KOSICE), {"type": "nearest", "client": "alice", "latitude": 91, "longitude": 0}])
vector(F, "Find: nearest", "presentation-from-viewport", "Presentation keys from the request, else the viewport.",
       [*snap(KOSICE), vp(field="wind", units="metric", windUnit="knots", locale="sk"), {"type": "nearest", "client": "alice", "latitude": 48.7, "longitude": 21.25, "units": "imperial"}])
vector(F, "Find: nearest", "closest-base-fields", "closest carries the station's eight base fields, without its optional ones or stale.",
       [*snap([st("H", 1, 1, humidity=81, summary="drizzle", observedAt=1000)]), {"type": "nearest", "client": "alice", "latitude": 1, "longitude": 1}])
vector(F, "Find: search", "folding-and-ranking", "Folding (Košice → kosice, O'Hare → ohare) and ranking id, prefix, word, substring.",
       [*snap(KOSICE), {"type": "search", "client": "alice", "query": "kosice"}, {"type": "search", "client": "alice", "query": "ohare"},
        {"type": "search", "client": "alice", "query": "ksea"}, {"type": "search", "client": "alice", "query": "ta"},
        {"type": "search", "client": "alice", "query": "a", "limit": 2}])
vector(F, "Find: search", "bad-query", "A query of spaces, or a limit of 0: one error each.",
       [*snap(KOSICE), {"type": "search", "client": "alice", "query": "   "}, {"type": "search", "client": "alice", "query": "x", "limit": 0}])
vector(F, "Find: search", "query-graphemes-and-spaces", "A query's length counts grapheme clusters (100 flags pass, 101 do not); only Unicode whitespace (em space, no-break space) is an error (issue 29 item 11).",
       [*snap(KOSICE), {"type": "search", "client": "alice", "query": "\U0001F1F8\U0001F1F0" * 100}, {"type": "search", "client": "alice", "query": "e\u0301" * 101},
        {"type": "search", "client": "alice", "query": "\u2003\u00a0"}, {"type": "search", "client": "alice", "query": "\u200b"}])
vector(F, "Find: favorite", "add-remove-unchanged", "favorite on/off: pinned with added, unchanged, removed; an unknown id is kept.",
       [*snap(KOSICE), {"type": "favorite", "client": "alice", "id": "LZKZ", "on": True}, {"type": "favorite", "client": "alice", "id": "GONE", "on": True},
        {"type": "favorite", "client": "alice", "id": "GONE", "on": True}, {"type": "favorite", "client": "alice", "id": "GONE", "on": False}])
vector(F, "Find: favorite", "bad-on", "on that is not a boolean: one error.",
       [*snap(KOSICE), {"type": "favorite", "client": "alice", "id": "LZKZ", "on": "yes"}])
vector(F, "Detail", "particulars", "detail: particulars with every field of the station line.",
       [*snap([st("LON", 51.5085, -0.1257, 44.906, 9.171439, 80, None, "London", feelsLike=40.64, humidity=81, pressure=1012,
                   summary="light intensity drizzle", icon="rain", sunrise=1795417380,
                   hourly=[{"time": 1795428000, "temperature": 40.4, "precipitation": 5}])]),
        {"type": "detail", "client": "alice", "id": "LON", "locale": "sk", "units": "metric"}])
vector(F, "Detail", "unknown", "An id not in the day's snapshot, or a day without one: an error to the client.",
       [*snap(KOSICE), {"type": "detail", "client": "alice", "id": "NOPE"}, {"type": "detail", "client": "alice", "id": "LZKZ", "day": "tomorrow"}])
vector(F, "Client contract: annotations", "stale", "A station observed long ago is marked stale (key absent for fresh data).",
       [*snap([st("OLD", 0, 0, observedAt=1000), st("NEW", 1, 1)]), vp()])

# The weather at a point or place (PROTOCOL.md): the filter's side, `spot` -> `ambient` or `particulars`.
WS = "Weather at a point or place: spot"
SEOUL = {"id": 1835848, "name": "Seoul", "admin1": None, "countryCode": "KR", "country": "South Korea", "latitude": 37.566,
         "longitude": 126.9784, "population": 10349312, "timeZone": "Asia/Seoul"}
KOSICE_PLACE = {"id": 724443, "name": "Košice", "admin1": None, "countryCode": "SK", "country": "Slovakia", "latitude": 48.71441,
                "longitude": 21.25802, "population": 225044, "timeZone": "Europe/Bratislava"}


def spot(lat, lon, place=None, distance=None, **keys):
    return {"type": "spot", "client": "alice", "latitude": lat, "longitude": lon, "radiusKm": 50, "place": place,
            "placeDistanceKm": distance, **keys}


vector(F, WS, "in-reach", "The nearest station within radiusKm: ambient with the point, radius, place, distanceKm (R3), bearing (R1) "
       "and the station without its forecast; presentation keys from the spot.",
       [*snap([{**KOSICE[0], "humidity": 70, "hourly": [{"time": 1795428000, "temperature": 40.4}]}, *KOSICE[1:]]),
        spot(48.71441, 21.25802, KOSICE_PLACE, 0, units="metric")])
vector(F, WS, "out-of-reach", "The nearest station farther than radiusKm (LZKZ is 5.841 km from the point): station null, no "
       "distanceKm or bearing; a spot without place is one without a named place.",
       [*snap(KOSICE), {**spot(48.71441, 21.25802, KOSICE_PLACE, 0), "radiusKm": 5.8}, {"type": "spot", "client": "alice", "latitude": 0, "longitude": 0}])
vector(F, WS, "no-snapshot", "No snapshot of the day: ambient with station null and snapshot null.",
       [*snap(KOSICE), spot(48.7, 21.25, day="tomorrow")])
vector(F, WS, "detail", "detail true with a station in reach: particulars (the forecast included) with the point, radius, place and "
       "distances after the presentation keys; without one in reach: ambient.",
       [*snap([{**KOSICE[0], "hourly": [{"time": 1795428000, "temperature": 40.4}]}, *KOSICE[1:]]),
        spot(48.71441, 21.25802, KOSICE_PLACE, 0, detail=True, locale="sk"), spot(37.566, 126.9784, SEOUL, 0, detail=True)])
vector(F, WS, "bad-spot", "A bad spot is one error to the client: a place without its name, placeDistanceKm without a place, radiusKm 0.",
       [*snap(KOSICE), spot(0, 0, {"id": 1}), {"type": "spot", "client": "alice", "latitude": 0, "longitude": 0, "placeDistanceKm": 3},
        {**spot(0, 0), "radiusKm": 0}])

# ---------------------------------------------------------------- format
M = "format"


def visible(items, field=None, client="alice", version=1, full=True, remove=(), **keys):
    m = {"type": "visible", "client": client, "version": version, "full": full, "day": "today", "snapshot": "today-1",
         "source": "feed", "fetchedAt": 1000, "ageSeconds": 0}
    if field:
        m["field"] = field
    m.update(keys)
    m["upsert"] = items
    m["remove"] = list(remove)
    return m


ITEMS = [st("A", 43.40332, -98.82952, 46.4, 6.90468887898, 270, 0, "PLATTE"), st("B", 1, 2, None, None, None, None, ""),
         st("C", -1.5, 2.25, -3.6, 0.4, 11.25, 49.5, "Calm"), st("D", 10, 20, 99.95, 30, 360, 100, "North")]
CLUSTERS = [{"id": "cluster:1:60:72", "cluster": True, "count": 12, "latitude": 30.2, "longitude": -97.8, "temperature": 71.5,
             "windSpeed": 8.1, "windDirection": 190.4, "precipitation": 20},
            {"id": "cluster:1:61:72", "cluster": True, "count": 2, "latitude": 31.2, "longitude": -97.8, "temperature": None,
             "windSpeed": None, "windDirection": None, "precipitation": None},
            {"id": "cluster:-3:1032:2890", "cluster": True, "count": 5, "latitude": 39.0, "longitude": 1.25, "temperature": 32,
             "windSpeed": 0.2, "windDirection": 90, "precipitation": 0}]
for field in ("temperature", "wind", "precipitation"):
    vector(M, "Formatting rules, exactly", f"{field}-en", f"Annotation titles and {field} values, imperial, en (calm, unknown, 360 = north).",
           [visible(ITEMS + CLUSTERS[:2], field)])
    vector(M, "Formatting rules, exactly", f"{field}-metric-sk", f"Annotation titles and {field} values, metric, sk (cluster subtitles 2-4 stanice, 5+ staníc).",
           [visible(ITEMS + CLUSTERS, field, units="metric", locale="sk")])
vector(M, "Formatting rules, exactly", "wind-knots", "Wind in knots: kn, 1.609344 / 1.852.", [visible(ITEMS, "wind", windUnit="knots")])
ICON_ITEMS = [{**ITEMS[0], "icon": "rain"}, ITEMS[1], {**ITEMS[2], "icon": "partly-cloudy-night"}, {**ITEMS[3], "icon": "thunderstorm"}]
ICON_CLUSTERS = [{**CLUSTERS[0], "icon": "snow"}, CLUSTERS[1], {**CLUSTERS[2], "icon": "clear-day"}]
vector(M, "Formatting rules, exactly", "conditions-en", "The conditions field: the icon's word as the title and the icon; no icon, title \"\" (en).",
       [visible(ICON_ITEMS + ICON_CLUSTERS, "conditions")])
vector(M, "Formatting rules, exactly", "conditions-sk", "The conditions field in Slovak (day and night share a word); the other fields leave icon out.",
       [visible(ICON_ITEMS + ICON_CLUSTERS, "conditions", locale="sk"), visible(ICON_ITEMS[:1] + ICON_CLUSTERS[:1], "temperature", version=2)])
vector(M, "Formatting rules, exactly", "diff-and-stale", "A diff keeps version, full false and remove; stale is copied.",
       [visible([{**ITEMS[0], "stale": True}], "temperature", version=7, full=False, remove=["X", "cluster:1:2:3"])])
vector(M, "Formatting rules, exactly", "no-snapshot", "snapshot null: an empty full set with all four presentation keys resolved.",
       [{"type": "visible", "client": "alice", "version": 1, "full": True, "day": "tomorrow", "snapshot": None, "source": None,
         "fetchedAt": None, "ageSeconds": None, "upsert": [], "remove": []}])
FULL = st("LON", 51.5085, -0.1257, 44.906, 9.171439, 80, None, "London", feelsLike=40.64, temperatureLow=42.8, temperatureHigh=46.4,
          humidity=81, pressure=1012, dewPoint=39.2, visibility=6.213712, uvIndex=1.4, windGust=16.105941, cloudCover=90,
          summary="light intensity drizzle", icon="rain", precipType="rain", sunrise=1795417380, sunset=1795448520, observedAt=1795430400)


def selection(station, reason="selected", **keys):
    m = {"type": "selection", "client": "alice", "id": station["id"] if station else "LON", "day": "today", "snapshot": "today-1",
         "source": "feed", "fetchedAt": 1000, "ageSeconds": 0}
    m.update(keys)
    m.update(reason=reason, station=station)
    return m


vector(M, "Client contract: callout", "callout-en", "A callout: every known value with its label and unit, imperial, en.", [selection(ITEMS[0])])
vector(M, "Client contract: callout", "callout-full-metric-sk", "A callout of a station with every optional field, metric, sk.",
       [selection(FULL, units="metric", locale="sk")])
vector(M, "Client contract: callout", "callout-full-imperial", "Every optional field, imperial (inHg, mi), stale.", [selection({**FULL, "stale": True})])
vector(M, "Client contract: callout", "callout-clear", "station null: a clear with the reason.",
       [selection(None, "not-visible"), selection(None, "cleared")])
vector(M, "Find: place", "place", "closest -> place: title, subtitle, coordinate, details.",
       [{"type": "closest", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000, "ageSeconds": 0,
         "point": {"latitude": 48.7, "longitude": 21.25}, "id": "LZKZ", "distanceKm": 4.157, "bearing": 189, "station": KOSICE[0]}])
vector(M, "Find: place", "place-none", "closest with id null: place with id null.",
       [{"type": "closest", "client": "alice", "day": "tomorrow", "snapshot": None, "source": None, "fetchedAt": None, "ageSeconds": None,
         "point": {"latitude": 0, "longitude": 0}, "id": None, "station": None}])
vector(M, "Find: results", "results", "matches -> results: each hit's annotation title; count.",
       [{"type": "matches", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000, "ageSeconds": 0,
         "field": "wind", "units": "metric", "query": "kosice", "hits": [{"match": "prefix", **KOSICE[0]}, {"match": "substring", **KOSICE[1]}]}])
vector(M, "Find: starred", "starred", "pinned -> starred: known and unknown items, per-day title and details.",
       [{"type": "pinned", "client": "alice", "reason": "added", "locale": "sk",
         "items": [{"id": "LZKZ", "today": KOSICE[0], "tomorrow": None}, {"id": "GONE", "today": None, "tomorrow": None},
                   {"id": "T", "today": None, "tomorrow": st("T", 1, 1, 70, 2, 10, 30, "Tomorrow only")}]}])
vector(M, "Detail", "report", "particulars -> report: details, icon, stale, hourly and daily points.",
       [{"type": "particulars", "client": "alice", "id": "LON", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000,
         "ageSeconds": 0, "units": "metric", "locale": "sk",
         "station": {**FULL, "stale": True,
                     "hourly": [{"time": 1795428000, "summary": "Partly Cloudy", "icon": "partly-cloudy-day", "temperature": 40.4,
                                 "precipitation": 5, "windSpeed": 6.9, "windDirection": 270}],
                     "daily": [{"time": 1795392000, "temperatureLow": 31.2, "temperatureHigh": 52.7, "precipitation": 30,
                                "precipType": "snow", "windSpeed": 0, "windDirection": 10}]}}])
vector(M, "Lines", "not-json", "A line that is not JSON: one error, the next line still handled.", ["not json", visible(ITEMS[:1], "temperature")])
vector(M, "Lines", "unknown-type-passes", "Types the formatter does not handle pass through unchanged.",
       [{"type": "tally", "gateway": "g", "clients": 0, "digest": "0000000000000000", "resend": False, "today": None, "tomorrow": None, "shard": "0/1"},
        {"type": "plugin-note", "x": 1}])
vector(M, "Errors", "bad-visible", "A visible with a wrong type: one error addressed to its client.",
       ['{"type":"visible","client":"alice","version":"1"}', '{"type":"selection","client":"alice"}'])

WC = "Weather at a point or place: conditions"


def ambient(station, place=KOSICE_PLACE, **keys):
    m = {"type": "ambient", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000, "ageSeconds": 0,
         "point": {"latitude": 48.71441, "longitude": 21.25802}, "radiusKm": 50, "place": place, "placeDistanceKm": 0 if place else None}
    m.update(keys)
    m["station"] = station
    return m


vector(M, WC, "conditions", "ambient -> conditions: the place's name, the station line (km in metric, mi in imperial), the callout "
       "lines, icon, and current (city, state, country, temperature, humidity, pressure, wind in the client's units).",
       [ambient({**FULL, "latitude": 48.66308, "longitude": 21.24111}, distanceKm=6.4, bearing=189.2, units="metric"),
        ambient({**KOSICE[0]}, distanceKm=6.4, bearing=189.2)])
vector(M, WC, "no-station", "station null: no station within N km, empty details, current with the place and null values; without "
       "a place the title is the point's coordinates.",
       [ambient(None), ambient(None, place=None, locale="sk")])
vector(M, WC, "report-for-a-place", "particulars with a point: the report under the place's name, the station line as subtitle, the "
       "point, radius, place and distances after details.",
       [{"type": "particulars", "client": "alice", "id": "LON", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000,
         "ageSeconds": 0, "point": {"latitude": 51.50853, "longitude": -0.12574}, "radiusKm": 50,
         "place": {"id": 2643743, "name": "London", "admin1": None, "countryCode": "GB", "country": "United Kingdom", "latitude": 51.50853,
                   "longitude": -0.12574, "population": 8961989, "timeZone": "Europe/London"},
         "placeDistanceKm": 0, "distanceKm": 0.002, "bearing": 162.4, "station": FULL}])
vector(M, WC, "bad-ambient", "A station without distanceKm and bearing, or a bearing of 360: one error to the client.",
       [ambient(KOSICE[0]), ambient(KOSICE[0], distanceKm=1, bearing=360)])

# ---------------------------------------------------------------- fetch
H = "fetch"
ONCE = ["--once"]
vector(H, "Fetcher output", "onx", "onX fixtures: today's and tomorrow's stations (the eight fields), end markers, status ok; clamped values warned.",
       [], ONCE + ["--today", "{repo}/Fixtures/today.json", "--tomorrow", "{repo}/Fixtures/tomorrow.json"])
for fmt, file, extra in (("darksky", "darksky.json", []), ("openweather", "openweather-group.json", []),
                         ("openweather", "openweather-imperial.json", ["--openweather-units", "imperial"]), ("airvisual", "airvisual.json", [])):
    vector(H, "Fetcher output", file.removesuffix(".json"), f"{fmt} fixture Fixtures/feeds/{file}: stations with their optional fields, converted and rounded to 6 decimals.",
           [], ONCE + ["--format", fmt, *extra, "--today", "{repo}/Fixtures/feeds/" + file, "--tomorrow", "{repo}/Fixtures/feeds/" + file])
for fmt, file, what in (("metar", "metar.json", "the Aviation Weather Center data API's JSON"),
                        ("metar", "metars.cache.csv", "the Aviation Weather Center cache table"),
                        ("openmeteo", "openmeteo.json", "Open-Meteo forecast answers (iso8601 local times and °C/km/h; unixtime and °F/mp/h)"),
                        ("nws", "nws.json", "api.weather.gov observations (GeoJSON, a unit per value)")):
    vector(H, "Fetcher output", file.removesuffix(".json").replace(".", "-"), f"{fmt} fixture Fixtures/feeds/{file}, {what}: "
           "every field converted (VRB and calm wind, missing groups, 10+ visibility, units per variable), forecasts kept.",
           [], ONCE + ["--format", fmt, "--today", "{repo}/Fixtures/feeds/" + file, "--tomorrow", "{repo}/Fixtures/feeds/" + file])
vector(H, "Fetcher output", "metar-bad-records", "METAR JSON with a record without a position and one with a wind direction that is neither degrees "
       "nor VRB (each rejected alone), and a cache table with a short row; a body of another shape for tomorrow (status failed).",
       [], ONCE + ["--format", "metar", "--today", "{files}/metar.json", "--today", "{files}/cache.csv", "--tomorrow", "{files}/other.json"],
       files={"metar.json": '[{"icaoId":"KAAA","lat":40,"lon":-100,"obsTime":1795679400,"temp":10,"dewp":5,"wdir":"VRB","wspd":4,"visib":"10+","rawOb":"KAAA 260750Z VRB04KT 10SM CLR 10/05 A3001"},'
                             '{"icaoId":"KBBB","lon":-100,"rawOb":"KBBB"},{"icaoId":"KCCC","lat":41,"lon":-101,"wdir":"NNE","rawOb":"KCCC"}]',
              "cache.csv": "raw_text,station_id,observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt\n"
                           "KDDD 260750Z 00000KT,KDDD,2026-11-26T07:50:00Z,42,-102,-1,-3,0,0\nKEEE 260750Z,KEEE,2026-11-26T07:50:00Z,43\n",
              "other.json": '[{"id":"K1","name":"onX station"}]'})
vector(H, "Fetcher output", "several-sources", "Two sources for today: ids prefixed with each source's label, one snapshot.",
       [], ONCE + ["--today", "onx+{repo}/Fixtures/today.json", "--today", "darksky+{repo}/Fixtures/feeds/darksky.json",
                   "--tomorrow", "{repo}/Fixtures/tomorrow.json"])
vector(H, "Fetcher output", "bad-records", "A clamped value (warning), a repeated id and a station at longitude 181 (errors), a missing tomorrow file (status failed).",
       [], ONCE + ["--today", "{files}/odd.json", "--tomorrow", "{files}/missing.json"],
       files={"odd.json": '[{"id":"A1","name":"Clamped","longitude":10,"latitude":45,"temperature":50,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":105},'
                          '{"id":"A1","name":"Again","longitude":11,"latitude":46,"temperature":51,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":5},'
                          '{"id":"B2","name":"Bad","longitude":181,"latitude":46,"temperature":51,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":5}]'})

# ---------------------------------------------------------------- places
# The gazetteer (conformance/places/gazetteer.txt): real GeoNames rows (Springfields, Parises,
# Seoul, São Paulo, Nuremberg, Košice ×2, Stara Zagora, New York City, ...) and made-up rows
# (ids 900000000 up) for one rule each: two places either side of the 180° meridian, two at the
# same distance from a point, two of the same name and population, a place near the pole, a bad
# row and a cut last row.
P = "places"
GAZ = ["--places", "{repo}/conformance/places/gazetteer.txt"]
PG, PR, PF = "Places: geocode", "Places: reverse", "Places: geocode, reverse"


def gc(query=None, client="alice", **keys):
    m = {"type": "geocode", "client": client}
    if query is not None:
        m["query"] = query
    m.update(keys)
    return m


def rv(lat, lon, client="alice", **keys):
    return {"type": "reverse", "client": client, "latitude": lat, "longitude": lon, **keys}


vector(P, PG, "ranking", "Kind (exact, prefix, word) before population, then population, then the smaller id: "
       "`springfield` gives the exact Springfields by population (one through an alternate name), West Springfield (word) last; "
       "`spring` the prefix matches before the word match; two Twintons of equal population by id.",
       [gc("springfield"), gc("spring", limit=3), gc("west spring"), gc("twinton")], GAZ)
vector(P, PG, "limit", "`limit` cuts the ranked list (default 10); 1 keeps the best only.",
       [gc("springfield", limit=1), gc("springfield", limit=2)], GAZ)
vector(P, PG, "qualifiers", "`NAME, QUALIFIER`: a US state first (code or name; `paris, il` is Illinois, not Israel), then a country "
       "(code or name), else the whole query as written (the comma a word break: nothing).",
       [gc("springfield, il"), gc("paris, il"), gc("paris, texas"), gc("paris, fr"), gc("springfield, united kingdom"),
        gc("springfield, nowhere")], GAZ)
vector(P, PG, "country-and-state", "`country` (code in any case or English name) and `state` (code or name, implies the US) filter; "
       "with them the comma in the query is not a qualifier.",
       [gc("paris", country="fr"), gc("paris", country="United States"), gc("springfield", state="MO"),
        gc("springfield", state="massachusetts"), gc("springfield", country="AU"), gc("paris, fr", country="US")], GAZ)
vector(P, PG, "diacritics", "Names and the query folded to ASCII lowercase: `sao paulo` and `SÃO PAULO` give São Paulo, `nurnberg` and "
       "`nürnberg` Nuremberg (an alternate name), `서울` and `сеул` Seoul, `kosice` both Košices by population, `new york` New York City.",
       [gc("sao paulo"), gc("SÃO PAULO"), gc("nurnberg"), gc("nürnberg"), gc("서울"), gc("сеул"), gc("kosice"), gc("new york")], GAZ)
vector(P, PG, "by-id", "A lookup by geonameid: the place as an exact match, the id echoed; an unknown id is an error to the client.",
       [gc(id=1835848), gc(id=900000030), gc(id=12345)], GAZ)
vector(P, PR, "nearest", "The nearest place with its distance and initial bearing, unrounded; radius and point echoed (default radius 100).",
       [rv(42.432356, 25.637389, radiusKm=50), rv(39.8, -89.6)], GAZ)
vector(P, PR, "antimeridian", "Exact across the 180° meridian: from -179.99 the place at 179.95 (6.4 km west) beats the one at -179.9 "
       "(0.09° east); from 179.99 the same place.",
       [rv(-16.5, -179.99), rv(-16.5, 179.99)], GAZ)
vector(P, PR, "pole", "Across the pole: from (89.95, 180) the place at (89.9, 0), 16.7 km away, due north then south: bearing 0.",
       [rv(89.95, 180)], GAZ)
vector(P, PR, "tie", "Two places at the same haversine term (9.5 and 10.5 from latitude 10 on one meridian): the smaller geonameid.",
       [rv(10, 50)], GAZ)
vector(P, PR, "radius", "A nearest place farther than `radiusKm` is no place: place, distanceKm and bearing null (Stara Zagora is 48 km "
       "from (42, 25.64262): within 50, not within 40; nothing within the default 100 km of (-30, -130)).",
       [rv(42, 25.64262, radiusKm=40), rv(42, 25.64262, radiusKm=50), rv(-30, -130)], GAZ)
vector(P, PF, "bad-requests", "Each bad request is one error with the client's name: neither or both of query and id, a blank or "
       "101-character query, limit 0 and 101, an id 0, an unknown country or state, a latitude 91, radiusKm 0 and 20017, a string "
       "latitude; then a line that is not JSON and one without a client (errors without a client).",
       [gc(), gc("paris", id=2988507), gc("   "), gc("x" * 101), gc("paris", limit=0), gc("paris", limit=101), gc(id=0),
        gc("paris", country="Atlantis"), gc("paris", state="ZZ"), rv(91, 0), rv(0, 0, radiusKm=0), rv(0, 0, radiusKm=20017),
        '{"type":"reverse","client":"alice","latitude":"42","longitude":25}', "not json", '{"type":"geocode","query":"paris"}'], GAZ)
vector(P, PF, "bad-rows-skipped", "The gazetteer's bad rows (a latitude of 95; a cut last line of 8 columns) are skipped and the rest loads.",
       [gc("badrow"), gc("cutrow"), gc("eastedge")], GAZ)
vector(P, PF, "no-gazetteer", "A missing gazetteer file: the stage runs on and answers each request with an error to its client.",
       [gc("paris"), rv(0, 0)], ["--places", "{repo}/conformance/places/no-such-file.txt"])
vector(P, PF, "not-a-dump", "A gazetteer whose first data line is not a 19-column row (a CSV) is refused whole: each request an error.",
       [gc("x"), rv(0, 0)], ["--places", "{files}/places.csv"], files={"places.csv": "geonameid,name\n1,x\n"})
vector(P, PG, "query-length", "A query of 100 characters is searched (nothing matches); 101 is an error.",
       [gc("q" * 100), gc("q" * 101)], GAZ)
vector(P, PF, "pass-through", "Lines of other types pass through unchanged.",
       [{"type": "status", "day": "today", "state": "ok", "url": "x"}, gc(id=2988507)], GAZ)

PW = "Weather at a point or place: weather"


def wx(client="alice", **keys):
    return {"type": "weather", "client": client, **keys}


vector(P, PW, "spot", "weather -> spot: a point named by the nearest place within 100 km (its distance unrounded), a place id at the "
       "place's own point (distance 0), the ocean with place null; radiusKm (default 50), detail, day and presentation passed on.",
       [wx(latitude=42.432356, longitude=25.637389), wx(id=1835848, radiusKm=25, detail=True, day="tomorrow", units="metric", locale="sk"),
        wx(latitude=-30, longitude=-130)], GAZ)
vector(P, PW, "bad-weather", "Each bad weather request is one error to the client: neither or both of a coordinate and an id, a "
       "latitude 91, an id 0, an unknown id, radiusKm 0 and 20017, a detail that is not a boolean.",
       [wx(), wx(id=1835848, latitude=0, longitude=0), wx(latitude=91, longitude=0), wx(id=0), wx(id=12345),
        wx(id=1835848, radiusKm=0), wx(id=1835848, radiusKm=20017), wx(id=1835848, detail="yes")], GAZ)
vector(P, PW, "no-gazetteer", "Without a gazetteer a point is passed on with place null (the weather works); a place id is an error.",
       [wx(latitude=0, longitude=0), wx(id=1835848)], ["--places", "{repo}/conformance/places/no-such-file.txt"])


def line(item):
    return item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def dumps(vector):
    """The vector's keys one per line; `input` and `expected` one line each per element (diffable)."""
    parts = []
    for key, value in vector.items():
        if key in ("input", "expected"):
            body = ",\n".join("  " + json.dumps(i, ensure_ascii=False, separators=(",", ":")) for i in value)
            parts.append(f' "{key}": [' + ("\n" + body + "\n ]" if value else "]"))
        else:
            parts.append(f' "{key}": ' + json.dumps(value, ensure_ascii=False))
    return "{\n" + ",\n".join(parts) + "\n}"


# ---------------------------------------------------------------- format: data beside text, local time
def particulars(station, **keys):
    m = {"type": "particulars", "client": "alice", "day": "today", "snapshot": "today-1", "source": "feed", "fetchedAt": 1000,
         "ageSeconds": 0}
    m.update(keys)
    m["station"] = station
    return m


FORECAST = {"hourly": [{"time": 1795428000, "summary": "Snow", "icon": "snow", "temperature": 30.2, "precipitation": 80,
                        "precipType": "snow", "windSpeed": 0.2, "windDirection": 10}],
            "daily": [{"time": 1795359600, "icon": "snow", "temperatureLow": 28.4, "temperatureHigh": 44.6, "precipitation": 30},
                      {"time": 1795446000, "temperatureLow": 20, "temperatureHigh": 35.5, "windSpeed": 12, "windDirection": 200}]}
SEOUL = st("SEL", 37.5665, 126.978, 41, 3.1, 315, 20, "Seoul", precipType="snow", sunrise=1795381200, sunset=1795417800,
           observedAt=1795422600, **FORECAST)
vector(M, "Data beside text", "report-en", "Every line of a report and of its forecast points with key, number in the client's unit, unit; times with zone and local time.",
       [particulars({**FULL, **FORECAST})])
vector(M, "Data beside text", "report-metric-sk", "The same report in metric and Slovak: the same keys, numbers in °C, km/h, hPa, km.",
       [particulars({**FULL, **FORECAST}, units="metric", locale="sk")])
vector(M, "Data beside text", "starred-knots", "A starred day's lines carry the data too (wind in knots).",
       [{"type": "pinned", "client": "alice", "reason": "added", "windUnit": "knots", "items": [{"id": "LON", "today": FULL, "tomorrow": None}]}])
vector(M, "Local time", "zone-from-gazetteer", "A station whose feed names no zone: the nearest gazetteer place's (Seoul), forecast days as local dates, weekday in sk.",
       [particulars(SEOUL, locale="sk", units="metric")])
vector(M, "Local time", "zone-from-feed-dst", "The feed's IANA zone wins over the gazetteer; New York's offset switches at the instant (-05:00 to -04:00).",
       [selection(st("NYC", 40.71, -74.0, 40, 5, 270, 0, "New York", timeZone="America/New_York", sunrise=1772953199,
                     sunset=1772953200))])
vector(M, "Local time", "zone-from-offset", "Only an offset (OpenWeather): named UTC+05:30; an unknown IANA name falls back to the offset.",
       [selection(st("DEL", 28.61, 77.2, 80, 5, 270, 0, "Delhi", utcOffset=19800, sunrise=1795395600)),
        selection(st("XXX", 28.61, 77.2, 80, 5, 270, 0, "Nowhere", timeZone="Mars/Base", utcOffset=19800, sunrise=1795395600))])


def main():
    if OUT.exists():
        for stage in ("filter", "format", "fetch", "places"):  # places: its sections, not its gazetteer
            for section in (OUT / stage).glob("*/"):
                shutil.rmtree(section)
    for v in VECTORS:
        with tempfile.TemporaryDirectory() as files:
            for name, body in v["files"].items():
                pathlib.Path(files, name).write_text(body)
            args = [a.replace("{repo}", str(REPO)).replace("{files}", files) for a in v["args"]]
            stdin = "".join(line(i) + "\n" for i in v["input"])
            run = subprocess.run([BIN, v["stage"], *args], input=stdin.encode(), capture_output=True, timeout=30)
            text = run.stdout.decode().replace(files, "{files}")
        expected = [json.loads(l) for l in text.splitlines() if l.strip()]
        if v["stage"] == "fetch":  # the fetcher's clock: not compared, and kept stable across regenerations
            for message in expected:
                if "fetchedAt" in message:
                    message["fetchedAt"] = 0
        out = {"description": v["description"], "section": v["section"], "stage": v["stage"], "args": v["args"]}
        if v["files"]:
            out["files"] = v["files"]
        if v["disputed"]:
            out["disputed"] = v["disputed"]
        out["input"] = v["input"]
        out["expected"] = expected
        slug = v["section"].lower().replace(":", "").replace(",", "").replace(" ", "-")
        path = OUT / v["stage"] / slug / (v["name"] + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        text = dumps(out)
        path.write_text(text.replace(str(REPO), "{repo}") + "\n")
    print(f"make-conformance: {len(VECTORS)} vectors written", file=sys.stderr)


if __name__ == "__main__":
    main()
