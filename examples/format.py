#!/usr/bin/env python3
"""A replacement for `isobar format`, in Python: visible -> annotations, selection -> callout.

Run it on the bus instead of the built-in formatter:
    isobar plug --name pyformat --sub visible --sub selection -- python3 examples/format.py
It follows PROTOCOL.md: one JSON object per line, unknown types pass through, a bad line gives one
error message, output is flushed after every message. Titles: temperature ("46°", °F or °C),
wind ("7 mph W →"), precipitation ("40%"); "" when unknown; beside each title the numbers
(`value`, or `wind` with speed, unit, calm and direction). English only; callouts are partial.
It passes the conformance vectors of what it implements (scripts/checks/conformance.sh):
    isobar conformance format --only 'formatting-rules-exactly/*-en' -- python3 examples/format.py
"""
import json
import math
import sys

POINTS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"]
ARROWS = ["↑", "↗", "→", "↘", "↓", "↙", "←", "↖"]
WIND_UNITS = {"mph": (1, "mph"), "kmh": (1.609344, "km/h"), "knots": (1.609344 / 1.852, "kn")}


def rounded(value):
    """Round half away from zero, as the built-in formatter does (Python's round() is half-to-even)."""
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)


def title(item, field, units, wind_unit):
    if field == "temperature":
        t = item.get("temperature")
        if t is None:
            return ""
        return f"{rounded((t - 32) * 5 / 9 if units == 'metric' else t)}°"
    if field == "precipitation":
        p = item.get("precipitation")
        return "" if p is None else f"{rounded(p)}%"
    speed = item.get("windSpeed")
    if speed is None:
        return ""
    factor, label = WIND_UNITS[wind_unit]
    shown = rounded(speed * factor)
    if shown == 0:
        return "calm"
    text = f"{shown} {label}"
    direction = item.get("windDirection")
    if direction is not None:
        text += f" {POINTS[rounded((direction % 360) / 22.5) % 16]} {ARROWS[rounded(((direction + 180) % 360) / 45) % 8]}"
    return text


def norm(degrees):
    """A direction in [0, 360): C fmod, plus 360 when negative (360 becomes 0)."""
    value = math.fmod(degrees, 360)
    return value + 360 if value < 0 else value


def tenths(value):
    return rounded(value * 10) / 10


def data(item, field, units, wind_unit):
    """The annotation's numbers beside its title: `value` (temperature, precipitation) or `wind`."""
    if field == "temperature":
        t = item.get("temperature")
        return {"value": None if t is None else tenths((t - 32) * 5 / 9 if units == "metric" else t)}
    if field == "precipitation":
        return {"value": item.get("precipitation")}
    speed = item.get("windSpeed")
    if speed is None:
        return {}
    factor, label = WIND_UNITS[wind_unit]
    wind = {"speed": tenths(speed * factor), "unit": label, "calm": rounded(speed * factor) == 0}
    direction = item.get("windDirection")
    if direction is not None and not wind["calm"]:
        rotation = norm(direction + 180)
        wind.update({"from": POINTS[rounded(norm(direction) / 22.5) % 16], "fromDegrees": norm(direction),
                     "to": POINTS[rounded(rotation / 22.5) % 16], "arrow": ARROWS[rounded(rotation / 45) % 8],
                     "rotation": rotation})
    return {"wind": wind}


def annotations(message):
    field = message.get("field", "temperature")
    units = message.get("units", "imperial")
    wind_unit = message.get("windUnit", "kmh" if units == "metric" else "mph")
    upsert = []
    for item in message["upsert"]:
        annotation = {
            "id": item["id"],
            "coordinate": {"latitude": item["latitude"], "longitude": item["longitude"]},
            "title": title(item, field, units, wind_unit),
            "subtitle": item.get("name", ""),
        }
        if item.get("cluster"):
            annotation.update(cluster=True, count=item["count"], subtitle=f"{item['count']} stations")
        annotation.update(data(item, field, units, wind_unit))
        if item.get("stale") is True:
            annotation["stale"] = True
        upsert.append(annotation)
    out = {k: message.get(k) for k in ("client", "version", "full", "day", "snapshot", "source", "fetchedAt", "ageSeconds")}
    out.update(type="annotations", field=field, units=units, windUnit=wind_unit, locale="en",
               upsert=upsert, remove=message.get("remove", []))
    return out


def callout(message):
    station = message.get("station")
    out = {"type": "callout", "client": message["client"], "id": message["id"], "day": message.get("day", "today"),
           "reason": message.get("reason", ""), "clear": station is None}
    if station is not None:
        details = []
        if station.get("temperature") is not None:
            details.append({"label": "Temperature", "value": f"{station['temperature']:.1f} °F"})
        if station.get("precipitation") is not None:
            details.append({"label": "Chance of precipitation", "value": f"{rounded(station['precipitation'])} %"})
        out.update(title=station.get("name") or station["id"], subtitle=station["id"],
                   coordinate={"latitude": station["latitude"], "longitude": station["longitude"]}, details=details)
    return out


def main():
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        message = None
        try:
            message = json.loads(line)
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise ValueError("not a JSON object with a string type")
            if message["type"] == "visible":
                out = annotations(message)
            elif message["type"] == "selection":
                out = callout(message)
            else:
                sys.stdout.write(line.decode("utf-8") + "\n")
                sys.stdout.flush()
                continue
            sys.stdout.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
        except Exception as error:  # one error per bad line, then carry on
            excerpt = line[:80].decode("utf-8", "replace")
            error_line = {"type": "error", "stage": "pyformat", "message": str(error), "excerpt": excerpt}
            if isinstance(message, dict) and isinstance(message.get("client"), str) and message["client"]:
                error_line["client"] = message["client"]
            # PROTOCOL.md, "Errors": not-json for a line json.loads refused, else the general code.
            error_line["code"] = "not-json" if not isinstance(message, dict) else "invalid"
            sys.stdout.write(json.dumps(error_line, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
