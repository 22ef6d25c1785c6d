#!/usr/bin/env python3
"""Writes schema/: one JSON Schema (draft 2020-12) per message type (schema/messages/<type>.json),
the shared definitions (schema/defs.json), the index (schema/isobar.json, a oneOf on `type`) and
the WebSocket variants of the client's messages (schema/websocket/<type>.json: no `client`, as an
app sends them through the gateway). Written from PROTOCOL.md; `scripts/checks/schema.sh` checks
them against every line the stages write. Run it after editing this file:
    python3 scripts/make-schema.py
Strict on purpose: `additionalProperties: false` wherever PROTOCOL.md lists the fields, so a
renamed or added field fails the check until the schema (and the document) say it. (Readers
still ignore unknown fields, as PROTOCOL.md says: the schemas describe what a writer writes.)
"""
import copy
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "schema"
BASE = "https://isobar.invalid/schema/"
D = "defs.json#/$defs/"


def ref(name):
    return {"$ref": D + name}


def nullable(s):
    return {"anyOf": [s, {"type": "null"}]}


NUM = {"type": "number"}
INT0 = {"type": "integer", "minimum": 0}
STR = {"type": "string"}
NESTR = {"type": "string", "minLength": 1}

DEFS = {
    "client": {"type": "string", "minLength": 1, "description": "a client's name: non-empty, at most 256 bytes (PROTOCOL.md: viewport)"},
    "latitude": {"type": "number", "minimum": -90, "maximum": 90},
    "longitude": {"type": "number", "minimum": -180, "maximum": 180},
    "coordinate": {"type": "object", "additionalProperties": False, "required": ["latitude", "longitude"],
                   "properties": {"latitude": ref("latitude"), "longitude": ref("longitude")}},
    "day": {"enum": ["today", "tomorrow"]},
    "field": {"enum": ["temperature", "wind", "precipitation", "conditions"]},
    "units": {"enum": ["imperial", "metric"]},
    "windUnit": {"enum": ["mph", "kmh", "knots"]},
    "locale": {"enum": ["en", "sk"]},
    "source": {"enum": ["feed", "store"]},
    "snapshotId": {"type": "string", "minLength": 1},
    "digest": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
    "icon": {"enum": ["clear-day", "clear-night", "partly-cloudy-day", "partly-cloudy-night", "cloudy", "rain", "sleet",
                      "snow", "wind", "fog", "thunderstorm", "hail"]},
    "precipType": {"enum": ["rain", "snow", "sleet"]},
    "temperature": nullable(NUM),
    "windSpeed": nullable({"type": "number", "minimum": 0}),
    "windDirection": nullable({"type": "number", "minimum": 0, "maximum": 360}),
    "precipitation": nullable({"type": "number", "minimum": 0, "maximum": 100}),
    # A labelled line and its data (PROTOCOL.md: Data beside text; Local time).
    "detailItem": {"type": "object", "additionalProperties": False, "required": ["label", "value", "key"],
                   "properties": {"label": STR, "value": STR,
                                  "key": {"enum": ["temperature", "windSpeed", "precipitation", "feelsLike", "temperatureLow",
                                                   "temperatureHigh", "humidity", "pressure", "dewPoint", "visibility", "uvIndex",
                                                   "windGust", "cloudCover", "summary", "sunrise", "sunset", "observedAt",
                                                   "coordinates"]},
                                  "number": NUM, "unit": {"enum": ["°F", "°C", "mph", "km/h", "kn", "%", "hPa", "inHg", "mi", "km", ""]},
                                  "calm": {"type": "boolean"}, "direction": {"type": "number", "minimum": 0, "exclusiveMaximum": 360},
                                  "precipType": ref("precipType"), "time": NUM, "zone": ref("zone"),
                                  "local": ref("localTime"), "latitude": ref("latitude"),
                                  "longitude": ref("longitude")},
                   "dependentRequired": {"number": ["unit"], "unit": ["number"], "time": ["zone"], "latitude": ["longitude"]}},
    "zone": {"type": "string", "pattern": "^(UTC|UTC[+-][0-9]{2}:[0-9]{2}|[A-Za-z0-9/_+-]{1,64})$",
             "description": "an IANA zone, UTC+HH:MM / UTC-HH:MM, or UTC (PROTOCOL.md: Local time)"},
    "localTime": {"type": "string", "pattern": "^-?[0-9]{1,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}$"},
    "details": {"type": "array", "items": ref("detailItem")},
    "forecastPoint": {
        "type": "object", "additionalProperties": False, "required": ["time"],
        "description": "a station line's hourly/daily point (PROTOCOL.md: station, optional fields)",
        "properties": {"time": NUM, "summary": STR, "icon": ref("icon"), "temperature": NUM,
                       "temperatureLow": NUM, "temperatureHigh": NUM,
                       "precipitation": {"type": "number", "minimum": 0, "maximum": 100},
                       "precipType": ref("precipType"), "windSpeed": {"type": "number", "minimum": 0},
                       "windDirection": {"type": "number", "minimum": 0, "maximum": 360}}},
    "forecastState": {
        "type": "object", "additionalProperties": False, "required": ["state"],
        "description": "what a detail says of its forecast on demand (PROTOCOL.md: Forecast on demand)",
        "properties": {"state": {"enum": ["pending", "ok", "failed"]}, "reason": STR, "fetchedAt": NUM, "expiresAt": NUM}},
    "reportPoint": {
        "type": "object", "additionalProperties": False, "required": ["time", "label", "details"],
        "description": "a report's hourly/daily point (PROTOCOL.md: Detail)",
        "properties": {"time": NUM, "label": STR, "zone": ref("zone"), "local": ref("localTime"),
                       "date": {"type": "string", "pattern": "^-?[0-9]{1,6}-[0-9]{2}-[0-9]{2}$"},
                       "weekday": {"enum": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "pondelok",
                                            "utorok", "streda", "štvrtok", "piatok", "sobota", "nedeľa"]},
                       "summary": STR, "icon": ref("icon"), "details": ref("details")}},
}

# The eight fields of every station (PROTOCOL.md: station), then the optional ones in order.
BASE_STATION = {
    "id": NESTR, "name": STR, "latitude": ref("latitude"), "longitude": ref("longitude"),
    "temperature": ref("temperature"), "windSpeed": ref("windSpeed"),
    "windDirection": ref("windDirection"), "precipitation": ref("precipitation"),
}
OPTIONAL_STATION = {
    "feelsLike": NUM, "temperatureLow": NUM, "temperatureHigh": NUM,
    "humidity": {"type": "number", "minimum": 0, "maximum": 100}, "pressure": {"type": "number", "minimum": 0},
    "dewPoint": NUM, "visibility": {"type": "number", "minimum": 0}, "uvIndex": {"type": "number", "minimum": 0},
    "windGust": {"type": "number", "minimum": 0}, "cloudCover": {"type": "number", "minimum": 0, "maximum": 100},
    "summary": STR, "icon": ref("icon"), "precipType": ref("precipType"), "sunrise": NUM, "sunset": NUM,
    "observedAt": NUM, "timeZone": {"type": "string", "pattern": "^[A-Za-z0-9/_+-]{1,64}$"},
    "utcOffset": {"type": "integer", "minimum": -64800, "maximum": 64800},
    "hourly": {"type": "array", "items": ref("forecastPoint")},
    "daily": {"type": "array", "items": ref("forecastPoint")},
}
STALE = {"const": True}


def obj(props, required, **extra):
    s = {"type": "object", "additionalProperties": False, "required": required, "properties": props}
    s.update(extra)
    return s


DEFS["stationItem"] = obj({**BASE_STATION, "icon": ref("icon"), "stale": STALE}, list(BASE_STATION),
                          description="a station as `visible` sends it: the eight fields, its `icon` where known, `stale` when stale")
DEFS["stationFull"] = obj({**BASE_STATION, **OPTIONAL_STATION, "stale": STALE}, list(BASE_STATION),
                          description="a station with its optional fields (selection, particulars)")
DEFS["clusterItem"] = obj({"id": {"type": "string", "pattern": "^cluster:-?[0-9]+:[0-9]+:[0-9]+$"}, "cluster": {"const": True},
                           "count": {"type": "integer", "minimum": 2}, "latitude": ref("latitude"), "longitude": ref("longitude"),
                           "temperature": ref("temperature"), "windSpeed": ref("windSpeed"),
                           "windDirection": ref("windDirection"), "precipitation": ref("precipitation"), "icon": ref("icon")},
                          ["id", "cluster", "count", "latitude", "longitude", "temperature", "windSpeed", "windDirection", "precipitation"],
                          description="PROTOCOL.md: Clustering, exactly, step 4")
WIND = obj({"speed": NUM, "unit": {"enum": ["mph", "km/h", "kn"]}, "calm": {"type": "boolean"},
            "from": STR, "fromDegrees": {"type": "number", "minimum": 0, "exclusiveMaximum": 360}, "to": STR,
            "arrow": {"enum": list("↑↗→↘↓↙←↖")}, "rotation": {"type": "number", "minimum": 0, "exclusiveMaximum": 360}},
           ["speed", "unit", "calm"],
           dependentRequired={"from": ["fromDegrees", "to", "arrow", "rotation"]})
DEFS["wind"] = WIND
DEFS["annotation"] = obj({"id": NESTR, "coordinate": ref("coordinate"), "title": STR, "subtitle": STR,
                          "cluster": {"const": True}, "count": {"type": "integer", "minimum": 2},
                          "value": nullable(NUM), "wind": ref("wind"), "icon": ref("icon"), "stale": STALE},
                         ["id", "coordinate", "title", "subtitle"],
                         dependentRequired={"cluster": ["count"], "count": ["cluster"]},
                         description="PROTOCOL.md: Formatting rules, exactly (Annotation)")
DEFS["searchHit"] = obj({"match": {"enum": ["id", "prefix", "word", "substring"]}, **BASE_STATION}, ["match", *BASE_STATION])
DEFS["resultHit"] = obj({"id": NESTR, "name": STR, "coordinate": ref("coordinate"), "title": STR,
                         "match": {"enum": ["id", "prefix", "word", "substring"]}},
                        ["id", "name", "coordinate", "title", "match"])
# A gazetteer place (PROTOCOL.md: Places, locations): GeoNames' fields, in the order written.
PLACE = {"id": {"type": "integer", "minimum": 1, "maximum": 2147483647}, "name": NESTR, "admin1": nullable(STR),
         "countryCode": {"type": "string", "pattern": "^([A-Z]{2})?$"}, "country": nullable(STR),
         "latitude": ref("latitude"), "longitude": ref("longitude"), "population": INT0, "timeZone": nullable(STR)}
DEFS["gazetteerPlace"] = obj(PLACE, list(PLACE), description="a populated place from the gazetteer (PROTOCOL.md: Places)")
# Favorites (PROTOCOL.md: Find, favorite): one list of stations, places and dropped pins.
PIN = {"name": NESTR, "latitude": ref("latitude"), "longitude": ref("longitude")}
DEFS["pin"] = obj(PIN, list(PIN), description="a dropped pin: its coordinate and the name shown for it")
DEFS["pinRemoval"] = obj(PIN, ["latitude", "longitude"], description="a pin named by its coordinate (a removal)")
DEFS["placeRemoval"] = obj(PLACE, ["id"], description="a place named by its id (a removal)")
ONE_OF_ENTRY = [{"required": ["id"], "not": {"anyOf": [{"required": ["place"]}, {"required": ["pin"]}]}},
                {"required": ["place"], "not": {"anyOf": [{"required": ["id"]}, {"required": ["pin"]}]}},
                {"required": ["pin"], "not": {"anyOf": [{"required": ["id"]}, {"required": ["place"]}]}}]
DEFS["favoriteEntry"] = obj({"id": NESTR, "place": ref("gazetteerPlace"), "pin": ref("pin")}, [], oneOf=ONE_OF_ENTRY,
                            description="one favorite: a station id, a place or a pin")
DEFS["bookmarkEntry"] = obj({"id": NESTR, "place": {"anyOf": [ref("gazetteerPlace"), {"type": "integer", "minimum": 1, "maximum": 2147483647}]},
                             "pin": ref("pin")}, [], oneOf=ONE_OF_ENTRY,
                            description="one favorite for the places stage: a place may be a bare geonameid")
STATION_DAY = nullable(ref("stationFull"))
REACH_DAY = nullable(obj({"distanceKm": {"type": "number", "minimum": 0}, "bearing": {"type": "number", "minimum": 0, "exclusiveMaximum": 360},
                          "station": ref("stationFull")}, ["distanceKm", "bearing", "station"]))
DEFS["pinnedItem"] = {"oneOf": [
    obj({"id": NESTR, "today": STATION_DAY, "tomorrow": STATION_DAY}, ["id", "today", "tomorrow"]),
    obj({"place": ref("gazetteerPlace"), "today": REACH_DAY, "tomorrow": REACH_DAY}, ["place", "today", "tomorrow"]),
    obj({"pin": ref("pin"), "today": REACH_DAY, "tomorrow": REACH_DAY}, ["pin", "today", "tomorrow"])]}
GLANCE = {"icon": ref("icon"), "temperature": nullable(NUM), "humidity": nullable({"type": "number", "minimum": 0, "maximum": 100})}
DEFS["starredDay"] = obj({"title": STR, "details": ref("details"), **GLANCE}, ["title", "details", "temperature", "humidity"])
DEFS["starredReachDay"] = obj({"title": STR, "subtitle": STR,
                               "station": obj({"id": NESTR, "name": STR, "coordinate": ref("coordinate")}, ["id", "name", "coordinate"]),
                               "distanceKm": {"type": "number", "minimum": 0}, "bearing": {"type": "number", "minimum": 0, "exclusiveMaximum": 360},
                               "details": ref("details"), **GLANCE},
                              ["title", "subtitle", "station", "distanceKm", "bearing", "details", "temperature", "humidity"])
DEFS["starredItem"] = {"oneOf": [
    obj({"id": NESTR, "known": {"type": "boolean"}, "name": nullable(STR), "coordinate": nullable(ref("coordinate")),
         "today": nullable(ref("starredDay")), "tomorrow": nullable(ref("starredDay"))},
        ["id", "known", "name", "coordinate", "today", "tomorrow"]),
    obj({"place": ref("gazetteerPlace"), "known": {"const": True}, "name": STR, "coordinate": ref("coordinate"),
         "today": nullable(ref("starredReachDay")), "tomorrow": nullable(ref("starredReachDay"))},
        ["place", "known", "name", "coordinate", "today", "tomorrow"]),
    obj({"pin": ref("pin"), "known": {"const": True}, "name": STR, "coordinate": ref("coordinate"),
         "today": nullable(ref("starredReachDay")), "tomorrow": nullable(ref("starredReachDay"))},
        ["pin", "known", "name", "coordinate", "today", "tomorrow"])]}
DEFS["locationHit"] = obj({"match": {"enum": ["exact", "prefix", "word"]}, **PLACE}, ["match", *PLACE],
                          description="a geocode result: how it matched, then the place")

PRESENTATION = {"field": ref("field"), "units": ref("units"), "windUnit": ref("windUnit"), "locale": ref("locale")}
# Snapshot info as the filter and formatter write it: all null when there is no snapshot of the day.
SNAPINFO = {"snapshot": nullable(ref("snapshotId")), "source": nullable(ref("source")),
            "fetchedAt": nullable(NUM), "ageSeconds": nullable({"type": "number", "minimum": 0})}
SNAPINFO_SET = {"snapshot": ref("snapshotId"), "source": ref("source"), "fetchedAt": NUM,
                "ageSeconds": {"type": "number", "minimum": 0}}


def message(type_, title, section, props, required, doc, direction, **extra):
    s = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + "messages/" + type_ + ".json",
         "title": title, "description": doc + " (PROTOCOL.md: " + section + ")",
         "x-isobar-direction": direction, "type": "object", "additionalProperties": False,
         "required": ["type", *required], "properties": {"type": {"const": type_}, **props}}
    s.update(extra)
    return s


def rewrite_refs(node):
    """Refs inside a message file point at ../defs.json."""
    if isinstance(node, dict):
        return {k: ("../" + v if k == "$ref" and v.startswith("defs.json") else rewrite_refs(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [rewrite_refs(v) for v in node]
    return node


VIEWPORT_PROPS = {"client": ref("client"), "center": ref("coordinate"),
                  "span": obj({"latitudeDelta": {"type": "number", "exclusiveMinimum": 0, "maximum": 180},
                               "longitudeDelta": {"type": "number", "exclusiveMinimum": 0}},
                              ["latitudeDelta", "longitudeDelta"]),
                  "day": ref("day"), **PRESENTATION,
                  "limit": {"type": "integer", "minimum": 1, "maximum": 1000000},
                  "version": INT0, "gateway": NESTR, "ref": {"type": "integer", "minimum": 1}}
FIND_KEYS = {"day": ref("day"), **PRESENTATION}
# Where a `weather` answer is (PROTOCOL.md: Weather at a point or place): the point, the station
# radius, the named place and its distance; the station's distance and bearing when one is in reach.
RADIUS = {"type": "number", "exclusiveMinimum": 0, "maximum": 20016}
ANCHOR = {"point": ref("coordinate"), "radiusKm": RADIUS, "place": nullable(ref("gazetteerPlace")),
          "placeDistanceKm": nullable({"type": "number", "minimum": 0}),
          "distanceKm": {"type": "number", "minimum": 0}, "bearing": {"type": "number", "minimum": 0, "exclusiveMaximum": 360}}
ANCHORED = {"if": {"required": ["point"]}, "then": {"required": ["radiusKm", "place", "placeDistanceKm", "distanceKm", "bearing"]},
            "else": {"not": {"anyOf": [{"required": [k]} for k in ANCHOR if k != "point"]}}}

MESSAGES = [
    message("station", "station", "Snapshots: station",
            {"day": ref("day"), "snapshot": ref("snapshotId"), "seq": INT0, **BASE_STATION, **OPTIONAL_STATION},
            ["day", "snapshot", "seq", *BASE_STATION], "One station of a snapshot", "fetch, persist -> filter, persist"),
    message("snapshot", "snapshot (end marker)", "Snapshots: snapshot",
            {"day": ref("day"), **SNAPINFO_SET, "count": INT0},
            ["day", "snapshot", "count", "source", "fetchedAt", "ageSeconds"], "The end marker of a snapshot", "fetch, persist -> filter, persist"),
    message("status", "status", "Fetcher output: status",
            {"day": ref("day"), "state": {"enum": ["ok", "unchanged", "failed", "held"]}, "url": STR,
             "formats": {"type": "array", "items": {"enum": ["onx", "openweather", "darksky", "airvisual", "metar", "openmeteo", "nws"]}},
             "reason": STR,
             "attempt": INT0, "retryIn": {"type": "number", "minimum": 0}},
            ["day", "state", "url"], "A fetch round's outcome for one day, or the filter's held-back snapshot (`held`)",
            "fetch, filter -> clients, gateway",
            allOf=[{"if": {"properties": {"state": {"const": "failed"}}}, "then": {"required": ["reason", "attempt", "retryIn"]}},
                   {"if": {"properties": {"state": {"const": "held"}}},
                    "then": {"required": ["reason"], "properties": {"url": {"const": ""}}}}]),
    message("warning", "warning", "Fetcher output: warning",
            {"stage": NESTR, "id": STR, "message": STR}, ["stage", "message"], "A data-quality note", "fetch -> logs"),
    message("error", "error", "Errors",
            {"stage": NESTR, "message": STR, "excerpt": STR, "client": ref("client"),
             "code": {"enum": ["not-json", "line-too-long", "field-missing", "field-type", "out-of-range", "invalid"]}},
            ["stage", "message", "excerpt", "code"], "A bad line, skipped; with `client` when the line named a usable one",
            "any stage -> logs, the client named"),
    message("viewport", "viewport", "Client contract: viewport", VIEWPORT_PROPS, ["client", "center", "span"],
            "What a client looks at", "client, gateway -> filter"),
    message("select", "select", "Client contract: select", {"client": ref("client"), "id": nullable(NESTR)}, ["client"],
            "Select a station (its callout), or clear with null", "client, gateway -> filter"),
    message("resync", "resync", "Client contract: resync", {"client": ref("client"), "reason": STR}, [],
            "With client: resend that client's full set. Without: publishers replay, clients resend viewports",
            "filter, clients -> fetch, persist, filter, clients"),
    message("annotations", "annotations", "Client contract: annotations",
            {"client": ref("client"), "version": {"type": "integer", "minimum": 1}, "full": {"type": "boolean"},
             "day": ref("day"), **PRESENTATION, **SNAPINFO,
             "upsert": {"type": "array", "items": ref("annotation")}, "remove": {"type": "array", "items": NESTR}},
            ["client", "version", "full", "day", "field", "units", "windUnit", "locale", "snapshot", "source", "fetchedAt",
             "ageSeconds", "upsert", "remove"], "A client's map annotations: a full set or a diff", "format -> client"),
    message("callout", "callout", "Client contract: callout",
            {"client": ref("client"), "id": NESTR, "day": ref("day"),
             "reason": {"enum": ["selected", "updated", "not-visible", "cleared"]}, "clear": {"type": "boolean"},
             "title": STR, "subtitle": STR, "coordinate": ref("coordinate"), "details": ref("details"),
             "icon": ref("icon"), "stale": STALE, **SNAPINFO_SET},
            ["client", "id", "day", "reason", "clear"], "The selected station's callout, or its clear", "format -> client",
            **{"if": {"properties": {"clear": {"const": False}}},
               "then": {"required": ["title", "subtitle", "coordinate", "details", "snapshot", "source", "fetchedAt", "ageSeconds"]}}),
    message("lease", "lease", "Gateways: lease",
            {"gateway": NESTR, "clients": INT0, "digest": ref("digest"),
             "partitions": {"type": "array", "items": obj({"partition": {"type": "integer", "minimum": 0, "maximum": 63},
                                                           "clients": {"type": "integer", "minimum": 1}, "digest": ref("digest")},
                                                          ["partition", "clients", "digest"])}},
            ["gateway", "clients", "digest"], "A gateway's clients, counted and digested", "gateway -> filter"),
    message("tally", "tally", "Gateways: tally",
            {"gateway": NESTR, "clients": INT0, "digest": ref("digest"), "resend": {"type": "boolean"},
             "today": nullable(ref("snapshotId")), "tomorrow": nullable(ref("snapshotId")),
             "shard": {"type": "string", "pattern": "^[0-9]+/[0-9]+$"},
             "acceptance": obj({"refusedFuture": INT0, "heldShrunk": INT0, "heldEmpty": INT0, "confirmed": INT0,
                                "holds": {"type": "array", "maxItems": 2,
                                          "items": obj({"day": ref("day"), "snapshot": ref("snapshotId"), "count": INT0, "of": INT0},
                                                       ["day", "snapshot", "count", "of"])}},
                               ["refusedFuture", "heldShrunk", "heldEmpty", "confirmed", "holds"])},
            ["gateway", "clients", "digest", "resend", "today", "tomorrow", "shard"], "The filter's answer to a lease", "filter -> gateway"),
    message("leave", "leave", "Gateways: leave", {"client": ref("client"), "gateway": NESTR}, ["client"],
            "A gateway client's connection closed", "gateway -> filter"),
    message("nearest", "nearest", "Find: nearest",
            {"client": ref("client"), "latitude": ref("latitude"), "longitude": ref("longitude"), **FIND_KEYS},
            ["client", "latitude", "longitude"], "The station nearest a point", "client, gateway -> filter"),
    message("closest", "closest", "Find: closest",
            {"client": ref("client"), "day": ref("day"), **SNAPINFO, **PRESENTATION, "point": ref("coordinate"),
             "id": nullable(NESTR), "distanceKm": {"type": "number", "minimum": 0},
             "bearing": {"type": "number", "minimum": 0, "exclusiveMaximum": 360}, "station": nullable(ref("stationItem"))},
            ["client", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "point", "id", "station"],
            "The filter's nearest station", "filter -> format",
            **{"if": {"properties": {"id": {"type": "string"}}}, "then": {"required": ["distanceKm", "bearing"]}}),
    message("place", "place", "Find: place",
            {"client": ref("client"), "day": ref("day"), "point": ref("coordinate"), "id": nullable(NESTR),
             "distanceKm": {"type": "number", "minimum": 0}, "bearing": {"type": "number", "minimum": 0, "exclusiveMaximum": 360},
             "title": STR, "subtitle": STR, "coordinate": ref("coordinate"), "details": ref("details"), "stale": STALE, **SNAPINFO},
            ["client", "day", "point", "id", "snapshot", "source", "fetchedAt", "ageSeconds"],
            "The nearest station, worded", "format -> client",
            **{"if": {"properties": {"id": {"type": "string"}}},
               "then": {"required": ["distanceKm", "bearing", "title", "subtitle", "coordinate", "details"]}}),
    message("search", "search", "Find: search",
            {"client": ref("client"), "query": {"type": "string", "pattern": "\\S"}, "limit": {"type": "integer", "minimum": 1, "maximum": 100},
             **FIND_KEYS},
            ["client", "query"], "Stations by name or id", "client, gateway -> filter"),
    message("matches", "matches", "Find: matches",
            {"client": ref("client"), "day": ref("day"), **SNAPINFO, **PRESENTATION, "query": STR,
             "hits": {"type": "array", "items": ref("searchHit")}},
            ["client", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "query", "hits"], "The filter's search hits", "filter -> format"),
    message("results", "results", "Find: results",
            {"client": ref("client"), "day": ref("day"), "query": STR, **PRESENTATION, **SNAPINFO,
             "hits": {"type": "array", "items": ref("resultHit")}, "count": INT0},
            ["client", "day", "query", "field", "units", "windUnit", "locale", "snapshot", "source", "fetchedAt", "ageSeconds", "hits", "count"],
            "Search hits, worded", "format -> client"),
    message("favorite", "favorite", "Find: favorite",
            {"client": ref("client"), "id": NESTR, "place": {"anyOf": [ref("gazetteerPlace"), ref("placeRemoval")]},
             "pin": {"anyOf": [ref("pin"), ref("pinRemoval")]}, "on": {"type": "boolean"},
             "items": {"type": "array", "maxItems": 200, "items": ref("favoriteEntry")}}, ["client"],
            "Add or remove a favorite (a station, place or pin), or set the whole list", "client, gateway, places -> filter",
            oneOf=[{"required": ["on"], "not": {"required": ["items"]}, "oneOf": ONE_OF_ENTRY},
                   {"required": ["items"], "not": {"anyOf": [{"required": ["on"]}, {"required": ["id"]}, {"required": ["place"]}, {"required": ["pin"]}]}}]),
    message("bookmark", "bookmark", "Find: bookmark",
            {"client": ref("client"), "id": NESTR, "place": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 2147483647}, ref("gazetteerPlace"), ref("placeRemoval")]},
             "pin": {"anyOf": [ref("pin"), ref("pinRemoval")]}, "on": {"type": "boolean"},
             "items": {"type": "array", "maxItems": 200, "items": ref("bookmarkEntry")}}, ["client"],
            "A favorite by place id, or a whole list holding place ids, for the places stage to resolve", "client, gateway -> places",
            oneOf=[{"required": ["on"], "not": {"required": ["items"]}, "oneOf": ONE_OF_ENTRY},
                   {"required": ["items"], "not": {"anyOf": [{"required": ["on"]}, {"required": ["id"]}, {"required": ["place"]}, {"required": ["pin"]}]}}]),
    message("pinned", "pinned", "Find: pinned",
            {"client": ref("client"), "reason": {"enum": ["joined", "added", "removed", "unchanged", "replaced", "updated", "resync"]},
             **PRESENTATION, "radiusKm": RADIUS, "items": {"type": "array", "items": ref("pinnedItem")}},
            ["client", "reason", "radiusKm", "items"], "A client's favorites with both days' stations", "filter -> format"),
    message("starred", "starred", "Find: starred",
            {"client": ref("client"), "reason": {"enum": ["joined", "added", "removed", "unchanged", "replaced", "updated", "resync"]},
             **PRESENTATION, "radiusKm": RADIUS, "items": {"type": "array", "items": ref("starredItem")}, "count": INT0},
            ["client", "reason", "field", "units", "windUnit", "locale", "items", "count"], "A client's favorites, worded", "format -> client"),
    message("detail", "detail", "Detail",
            {"client": ref("client"), "id": NESTR, **FIND_KEYS}, ["client", "id"], "Everything about one station", "client, gateway -> filter"),
    message("particulars", "particulars", "Detail",
            {"client": ref("client"), "id": NESTR, "day": ref("day"), **SNAPINFO_SET, **PRESENTATION, **ANCHOR,
             "station": ref("stationFull"), "forecast": ref("forecastState")},
            ["client", "id", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "station"],
            "One station with every field; with the point and place when it answers a `weather` detail", "filter -> format",
            **ANCHORED),
    message("report", "report", "Detail",
            {"client": ref("client"), "id": NESTR, "day": ref("day"), "units": ref("units"), "windUnit": ref("windUnit"),
             "locale": ref("locale"), "title": STR, "subtitle": STR, "coordinate": ref("coordinate"), "details": ref("details"),
             "zone": ref("zone"), "icon": ref("icon"), "stale": STALE, "hourly": {"type": "array", "items": ref("reportPoint")},
             "daily": {"type": "array", "items": ref("reportPoint")}, "forecast": ref("forecastState"), **ANCHOR, **SNAPINFO_SET},
            ["client", "id", "day", "units", "windUnit", "locale", "title", "subtitle", "coordinate", "details", "hourly", "daily",
             "snapshot", "source", "fetchedAt", "ageSeconds"],
            "One station's detail screen, worded; under the place's name when it answers a `weather` detail", "format -> client",
            **ANCHORED),
    message("outlook", "outlook", "Forecast on demand",
            {"latitude": ref("latitude"), "longitude": ref("longitude")}, ["latitude", "longitude"],
            "A forecast is wanted for one 0.1° cell", "filter -> forecast"),
    message("forecast", "forecast", "Forecast on demand",
            {"latitude": ref("latitude"), "longitude": ref("longitude"), "state": {"enum": ["ok", "failed"]}, "reason": STR,
             "fetchedAt": NUM, "expiresAt": NUM, "timeZone": OPTIONAL_STATION["timeZone"],
             "hourly": OPTIONAL_STATION["hourly"], "daily": OPTIONAL_STATION["daily"]},
            ["latitude", "longitude", "state", "fetchedAt", "expiresAt"],
            "One cell's hourly and daily forecast, or why there is none", "forecast -> filter"),
    message("visible", "visible", "Between filter and format: visible",
            {"client": ref("client"), "version": {"type": "integer", "minimum": 1}, "full": {"type": "boolean"}, "day": ref("day"),
             **SNAPINFO, **PRESENTATION,
             "upsert": {"type": "array", "items": {"anyOf": [ref("stationItem"), ref("clusterItem")]}},
             "remove": {"type": "array", "items": NESTR}},
            ["client", "version", "full", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "upsert", "remove"],
            "A client's visible stations, raw: a full set or a diff", "filter -> format"),
    message("selection", "selection", "Between filter and format: selection",
            {"client": ref("client"), "id": NESTR, "day": ref("day"), **SNAPINFO_SET, **PRESENTATION,
             "reason": {"enum": ["selected", "updated", "not-visible", "cleared"]}, "station": nullable(ref("stationFull"))},
            ["client", "id", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "reason", "station"],
            "The selected station, raw", "filter -> format"),
    message("geocode", "geocode", "Places: geocode",
            {"client": ref("client"), "query": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "\\S"},
             "id": {"type": "integer", "minimum": 1}, "limit": {"type": "integer", "minimum": 1, "maximum": 100},
             "country": NESTR, "state": NESTR},
            ["client"], "Places by name (with qualifiers) or by geonameid", "client, gateway -> places",
            oneOf=[{"required": ["query"], "not": {"required": ["id"]}}, {"required": ["id"], "not": {"required": ["query"]}}]),
    message("locations", "locations", "Places: locations",
            {"client": ref("client"), "query": STR, "id": {"type": "integer", "minimum": 1},
             "results": {"type": "array", "maxItems": 100, "items": ref("locationHit")}},
            ["client", "results"], "A geocode's places, best first", "places -> client",
            oneOf=[{"required": ["query"], "not": {"required": ["id"]}}, {"required": ["id"], "not": {"required": ["query"]}}]),
    message("reverse", "reverse", "Places: reverse",
            {"client": ref("client"), "latitude": ref("latitude"), "longitude": ref("longitude"),
             "radiusKm": {"type": "number", "exclusiveMinimum": 0, "maximum": 20016}},
            ["client", "latitude", "longitude"], "The populated place nearest a point", "client, gateway -> places"),
    message("vicinity", "vicinity", "Places: vicinity",
            {"client": ref("client"), "latitude": ref("latitude"), "longitude": ref("longitude"),
             "radiusKm": {"type": "number", "exclusiveMinimum": 0, "maximum": 20016},
             "place": nullable(ref("gazetteerPlace")), "distanceKm": nullable({"type": "number", "minimum": 0}),
             "bearing": nullable({"type": "number", "minimum": 0, "exclusiveMaximum": 360})},
            ["client", "latitude", "longitude", "radiusKm", "place", "distanceKm", "bearing"],
            "The nearest place within the radius, or nulls", "places -> client",
            oneOf=[{"properties": {"place": {"type": "object"}, "distanceKm": {"type": "number"}, "bearing": {"type": "number"}}},
                   {"properties": {"place": {"type": "null"}, "distanceKm": {"type": "null"}, "bearing": {"type": "null"}}}]),
    message("weather", "weather", "Weather at a point or place: weather",
            {"client": ref("client"), "latitude": ref("latitude"), "longitude": ref("longitude"),
             "id": {"type": "integer", "minimum": 1}, "radiusKm": RADIUS, "detail": {"type": "boolean"}, **FIND_KEYS},
            ["client"], "The weather at a point or a place (by geonameid)", "client, gateway -> places",
            oneOf=[{"required": ["latitude", "longitude"], "not": {"required": ["id"]}},
                   {"required": ["id"], "not": {"anyOf": [{"required": ["latitude"]}, {"required": ["longitude"]}]}}]),
    message("spot", "spot", "Weather at a point or place: spot",
            {"client": ref("client"), "latitude": ref("latitude"), "longitude": ref("longitude"), "radiusKm": RADIUS,
             "place": nullable(ref("gazetteerPlace")), "placeDistanceKm": nullable({"type": "number", "minimum": 0}),
             "detail": {"type": "boolean"}, **FIND_KEYS},
            ["client", "latitude", "longitude"], "A weather request with its place resolved", "places -> filter"),
    message("ambient", "ambient", "Weather at a point or place: ambient",
            {"client": ref("client"), "day": ref("day"), **SNAPINFO, **PRESENTATION, **ANCHOR, "station": nullable(ref("stationFull"))},
            ["client", "day", "snapshot", "source", "fetchedAt", "ageSeconds", "point", "radiusKm", "place", "placeDistanceKm", "station"],
            "The nearest station within the radius of a point, or none", "filter -> format",
            **{"if": {"properties": {"station": {"type": "object"}}}, "then": {"required": ["distanceKm", "bearing"]},
               "else": {"not": {"anyOf": [{"required": ["distanceKm"]}, {"required": ["bearing"]}]}}}),
    message("conditions", "conditions", "Weather at a point or place: conditions",
            {"client": ref("client"), "day": ref("day"), **PRESENTATION, **ANCHOR, "title": STR, "subtitle": STR,
             "station": nullable(obj({"id": NESTR, "name": STR, "coordinate": ref("coordinate")}, ["id", "name", "coordinate"])),
             "details": ref("details"), "icon": ref("icon"),
             "current": obj({"city": nullable(STR), "state": nullable(STR), "country": nullable(STR),
                             "countryCode": nullable({"type": "string", "pattern": "^([A-Z]{2})?$"}),
                             "temperature": nullable(NUM), "humidity": nullable({"type": "number", "minimum": 0, "maximum": 100}),
                             "pressure": nullable({"type": "number", "minimum": 0}), "windSpeed": nullable({"type": "number", "minimum": 0}),
                             "windDirection": nullable({"type": "number", "minimum": 0, "maximum": 360})},
                            ["city", "state", "country", "countryCode", "temperature", "humidity", "pressure", "windSpeed", "windDirection"]),
             **SNAPINFO},
            ["client", "day", "field", "units", "windUnit", "locale", "point", "radiusKm", "place", "placeDistanceKm", "title", "subtitle",
             "station", "details", "current", "snapshot", "source", "fetchedAt", "ageSeconds"],
            "The weather at a point or place, worded (AirVisual's nearest_city in `current`)", "format -> client",
            **{"if": {"properties": {"station": {"type": "object"}}}, "then": {"required": ["distanceKm", "bearing"]},
               "else": {"not": {"anyOf": [{"required": ["distanceKm"]}, {"required": ["bearing"]}, {"required": ["icon"]}]}}}),
]

# What an app sends over the gateway's WebSocket (PROTOCOL.md: Gateway, Framing): the client
# contract without `client` (the gateway fills it in) and without the gateway's own `gateway`/`ref`.
WEBSOCKET_SENDS = ["viewport", "select", "resync", "nearest", "search", "favorite", "detail", "geocode", "reverse", "weather", "bookmark"]
# What the gateway relays to an app, unchanged.
WEBSOCKET_RECEIVES = ["annotations", "callout", "place", "results", "starred", "report", "locations", "vicinity", "conditions", "status", "error"]


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def main():
    write(ROOT / "defs.json", {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + "defs.json",
                               "title": "Isobar: shared definitions", "$defs": DEFS})
    types = []
    for m in MESSAGES:
        types.append(m["properties"]["type"]["const"])
        write(ROOT / "messages" / (types[-1] + ".json"), rewrite_refs(m))
        if types[-1] in WEBSOCKET_SENDS:
            w = copy.deepcopy(rewrite_refs(m))
            w["$id"] = BASE + "websocket/" + types[-1] + ".json"
            w["title"] += " (WebSocket, app -> gateway)"
            w["description"] += "; sent over the gateway's WebSocket without `client` (the gateway fills it in)"
            for k in ("client", "gateway", "ref"):
                w["properties"].pop(k, None)
            w["required"] = [r for r in w["required"] if r != "client"]
            write(ROOT / "websocket" / (types[-1] + ".json"), w)
    write(ROOT / "isobar.json", {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + "isobar.json",
        "title": "Any Isobar message", "description": "One NDJSON line on the bus, a pipe or the WebSocket (PROTOCOL.md); dispatch on `type`",
        "type": "object", "required": ["type"], "properties": {"type": {"enum": types}},
        "discriminator": {"propertyName": "type"},
        "oneOf": [{"$ref": "messages/" + t + ".json"} for t in types]})


if __name__ == "__main__":
    main()
