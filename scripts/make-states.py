#!/usr/bin/python3
"""Writes Web/states.json, the web map's state and province borders: Natural Earth's 1:50m
admin-1 polygons (public domain, https://www.naturalearthdata.com/) as a GeoJSON
FeatureCollection of MultiLineStrings (the rings, drawn as thin lines over the country fills).

Run once (the output is committed as data). The source is Debian's r-cran-rnaturalearthdata
0.1.0 (`states50`, an R `sp` object in the package's lazy-load database); R itself is not needed:
`apt-get download r-cran-rnaturalearthdata && dpkg-deb -x r-cran-rnaturalearthdata_*.deb ROOT`,
`pip install --target DIR rdata==1.1.0` (PyPI, reads R serialization), then
`PYTHONPATH=DIR /usr/bin/python3 scripts/make-states.py ROOT/usr/lib/R/site-library/rnaturalearthdata/data/Rdata`.
The database's index (.rdx) gives each object's offset and length in the .rdb; each object is a
4-byte length, a type byte ('Z': raw LZMA2 at preset 9e) and R's serialization. Rings are
simplified (Douglas-Peucker, 0.06 degrees) and rounded to 0.01 degrees to keep the file small.
"""
import json
import lzma
import os
import sys
import warnings

import rdata

from basemap_geometry import simplify

TOLERANCE = 0.06
DIGITS = 2


def load(base, name):
    index = rdata.conversion.convert(rdata.parser.parse_file(base + ".rdx"))
    offset, length = (int(x) for x in index["variables"][name])
    with open(base + ".rdb", "rb") as f:
        f.seek(offset)
        chunk = f.read(length)
    if chunk[4:5] != b"Z":
        raise SystemExit(f"make-states: {name} is not LZMA-compressed (type {chunk[4:5]!r})")
    data = lzma.decompress(chunk[5:], format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}])
    return rdata.conversion.convert(rdata.parser.parse_data(data, extension=".rds"), default_encoding="utf8")


def main():
    warnings.simplefilter("ignore")  # rdata warns about the .rdx extension
    states = load(sys.argv[1], "states50")
    names = list(states.data["name"])
    countries = list(states.data["admin"])
    features = []
    for polygons, name, country in zip(states.polygons, names, countries):
        lines = []
        for ring in polygons.Polygons:
            points = simplify([(float(x), float(y)) for x, y in ring.coords], TOLERANCE)
            line = []
            for x, y in points:
                p = [round(x, DIGITS), round(y, DIGITS)]
                if not line or line[-1] != p:
                    line.append(p)
            if len(line) >= 2:
                lines.append(line)
        if lines:
            features.append({"type": "Feature", "properties": {"name": str(name), "admin": str(country)},
                             "geometry": {"type": "MultiLineString", "coordinates": lines}})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Web", "states.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"type": "FeatureCollection", "source": "Natural Earth 1:50m admin-1 (r-cran-rnaturalearthdata states50)",
                   "features": features}, f, ensure_ascii=False, separators=(",", ":"))
    print(f"make-states: {len(features)} states -> {out} ({os.path.getsize(out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
