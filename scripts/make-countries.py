#!/usr/bin/python3
"""Converts Natural Earth's low-resolution country outlines to Fixtures/countries.geojson.

Run once (the output is committed as data): `apt-get install -y python3-geopandas`, then
`/usr/bin/python3 scripts/make-countries.py`. The source is the `naturalearth_lowres` shapefile
that Debian's python3-geopandas 0.12.2 ships (Natural Earth 1:110m admin-0 countries, public
domain, https://www.naturalearthdata.com/). geopandas is needed only here, never at run time.

The outlines are simplified (Douglas-Peucker, 0.05 degrees, topology preserved) and their
coordinates rounded to 0.01 degrees (about 1 km, below a pixel at the zooms they are drawn at),
which keeps the file small enough to load with the page.
"""
import json
import os
import sys

import geopandas
from shapely.geometry import mapping

SOURCE = "/usr/lib/python3/dist-packages/geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"
TOLERANCE = 0.05
DIGITS = 2


def rounded(coords):
    if isinstance(coords, (list, tuple)) and coords and isinstance(coords[0], (int, float)):
        return [round(coords[0], DIGITS), round(coords[1], DIGITS)]
    out = [rounded(c) for c in coords]
    # Rounding can make consecutive points equal; drop the repeats (rings keep >= 4 points).
    if out and isinstance(out[0], list) and out[0] and isinstance(out[0][0], float):
        deduped = [out[0]] + [p for i, p in enumerate(out[1:], 1) if p != out[i - 1]]
        if len(deduped) >= 4:
            out = deduped
    return out


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "countries.geojson")
    frame = geopandas.read_file(SOURCE)
    features = []
    for _, row in frame.sort_values("iso_a3").iterrows():
        geometry = row.geometry.simplify(TOLERANCE, preserve_topology=True)
        shape = mapping(geometry)
        features.append({
            "type": "Feature",
            "properties": {"name": row["name"], "iso_a3": row["iso_a3"], "continent": row["continent"]},
            "geometry": {"type": shape["type"], "coordinates": rounded(shape["coordinates"])},
        })
    collection = {
        "type": "FeatureCollection",
        "source": "Natural Earth 1:110m admin-0 countries (public domain, naturalearthdata.com), "
                  "from Debian python3-geopandas 0.12.2 naturalearth_lowres; simplified by scripts/make-countries.py",
        "features": features,
    }
    with open(target, "w", encoding="utf-8") as f:
        json.dump(collection, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"make-countries: {len(features)} countries, {os.path.getsize(target):,} bytes -> {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
