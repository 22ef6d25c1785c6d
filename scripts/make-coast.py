#!/usr/bin/python3
"""Writes Web/coast.json, the web map's land, lakes and national borders: GSHHG 2.3.7 at its
"low" resolution (Global Self-consistent Hierarchical High-resolution Geography, P. Wessel and
W. H. F. Smith, https://www.soest.hawaii.edu/pwessel/gshhg/, LGPL-3.0-or-later) as a GeoJSON
FeatureCollection: land (GSHHG level 1, the shorelines) and lakes (level 2) as polygons, national
borders (border level 1) as lines. The page fills the land over its sea colour, the lakes in the
sea colour over the land, and draws the borders and Web/states.json's dashed states on top.

Run once (the output is committed as data). The source is Debian's gmt-gshhg-low, GMT's binned
netCDF-4 files; GMT itself is not needed, only Debian's python3-h5py:
`apt-get download gmt-gshhg-low && dpkg-deb -x gmt-gshhg-low_*.deb ROOT`,
`apt-get install python3-h5py`, then
`/usr/bin/python3 scripts/make-coast.py ROOT/usr/share/gmt-gshhg`.

GMT's binned layout: the world is cut into square bins (10 degrees at this resolution), numbered
from the north-west corner eastwards; each bin holds segments (the pieces of polygons or lines
clipped to it), each segment a run of points stored as 16-bit fractions of the bin's size from its
south-west corner, with its polygon's GSHHG id, its point count and its level (in the shoreline
file packed in one word: count << 9, level << 6, exit side << 3, entry side). Pieces of one polygon meet at the same point on a bin edge, so
joining them end to end gives back the whole ring (or line). Rings are simplified
(Douglas-Peucker, 0.1 degrees, about 11 km), rounded to 0.01 degrees, and small polygons are left out (land
under 2,000 km2, lakes under 1,500 km2) to keep the file small for phones.
"""
import json
import os
import sys

import h5py
import numpy as np

from basemap_geometry import simplify

TOLERANCE = 0.1
DIGITS = 2
MIN_LAND_KM2 = 2000
MIN_LAKE_KM2 = 1500


def segments(path):
    """Yields (GSHHG id, level, [(lon, lat), ...]) for each segment of a binned file, longitudes
    0-360 as stored. Antarctica is there twice: its ice front at level 1 (flagged, with the islands
    off it) and its grounding line at level 6; the map takes level 1, the coast a ship would see."""
    f = h5py.File(path, "r")
    size = f["Bin_size_in_minutes"][0] / 60.0
    nx = int(f["N_bins_in_360_longitude_range"][0])
    first_segment = f["Id_of_first_segment_in_a_bin"][:]
    count = f["N_segments_in_a_bin"][:]
    if "Embedded_npts_levels_exit_entry_for_a_segment" in f:  # shorelines: one packed word
        info = f["Embedded_npts_levels_exit_entry_for_a_segment"][:].astype(np.int64)
        npts, levels = info >> 9, (info >> 6) & 7
    else:  # borders and rivers: two arrays
        npts = f["N_points_for_a_segment"][:].astype(np.int64)
        levels = f["Hierarchial_level_of_a_segment"][:].astype(np.int64)
    first_point = f["Id_of_first_point_in_a_segment"][:]
    ids = f["Id_of_GSHHS_ID"][:] if "Id_of_GSHHS_ID" in f else None
    dx = f["Relative_longitude_from_SW_corner_of_bin"][:].view(np.uint16).astype(np.float64) / 65535.0 * size
    dy = f["Relative_latitude_from_SW_corner_of_bin"][:].view(np.uint16).astype(np.float64) / 65535.0 * size
    for b in range(len(first_segment)):
        lon0 = (b % nx) * size
        lat0 = 90.0 - (b // nx + 1) * size
        for s in range(first_segment[b], first_segment[b] + count[b]):
            n = int(npts[s])
            level = int(levels[s])
            p = first_point[s]
            points = list(zip((lon0 + dx[p:p + n]).tolist(), (lat0 + dy[p:p + n]).tolist()))
            yield (int(ids[s]) if ids is not None else -1), level, points


def key(point):
    lon, lat = point
    return (round(lon % 360.0, 4), round(lat, 4))


def join(pieces):
    """Joins pieces that share end points into the longest runs (rings close on themselves)."""
    pieces = [list(p) for p in pieces if len(p) >= 2]
    runs = []
    while pieces:
        run = pieces.pop()
        grown = True
        while grown and key(run[0]) != key(run[-1]):
            grown = False
            for i, piece in enumerate(pieces):
                if key(piece[0]) == key(run[-1]):
                    run += piece[1:]
                elif key(piece[-1]) == key(run[-1]):
                    run += piece[-2::-1]
                elif key(piece[-1]) == key(run[0]):
                    run = piece[:-1] + run
                elif key(piece[0]) == key(run[0]):
                    run = piece[:0:-1] + run
                else:
                    continue
                pieces.pop(i)
                grown = True
                break
        runs.append(run)
    return runs


def unwrap(run):
    """Longitudes made continuous (no jump of 360 between neighbours), then shifted so the run's
    first point lies in [-180, 180)."""
    out = [list(run[0])]
    for lon, lat in run[1:]:
        prev = out[-1][0]
        lon += 360.0 * round((prev - lon) / 360.0)
        out.append([lon, lat])
    shift = 360.0 * np.floor((out[0][0] + 180.0) / 360.0)
    return [[lon - shift, lat] for lon, lat in out]


def rounded(points):
    line = []
    for x, y in points:
        p = [round(x, DIGITS), round(y, DIGITS)]
        if not line or line[-1] != p:
            line.append(p)
    return line


def ring(run):
    """A closed GeoJSON ring; a ring around the pole (Antarctica: its longitudes span the whole
    world) is closed along the map's bottom edge instead of across it."""
    points = unwrap(run)
    span = points[-1][0] - points[0][0]
    if abs(span) > 359.0:
        points += [[points[-1][0], -90.0], [points[0][0], -90.0]]
    points = rounded(simplify(points, TOLERANCE))
    if len(points) < 3:
        return None
    if points[0] != points[-1]:
        points.append(points[0])
    return points if len(points) >= 4 else None


def polygons(path, level, minimum, area):
    by_id = {}
    for gid, lev, points in segments(path):
        if lev == level and area.get(gid, 0) >= minimum:
            by_id.setdefault(gid, []).append(points)
    rings, open_runs = [], 0
    for gid in sorted(by_id, key=lambda g: -area[g]):
        for run in join(by_id[gid]):
            if key(run[0]) != key(run[-1]) and abs(unwrap(run)[-1][0] - unwrap(run)[0][0]) <= 359.0:
                open_runs += 1
            r = ring(run)
            if r:
                rings.append([r])
    return rings, open_runs


def borders(path):
    pieces = [points for _, level, points in segments(path) if level == 1]
    lines = []
    for run in join(pieces):
        line = rounded(simplify(unwrap(run), TOLERANCE))
        if len(line) >= 2:
            lines.append(line)
    return lines


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make-coast.py DIR (the folder of binned_GSHHS_l.nc and binned_border_l.nc)")
    base = sys.argv[1]
    shore = os.path.join(base, "binned_GSHHS_l.nc")
    with h5py.File(shore, "r") as f:
        area = dict(enumerate(f["The_km_squared_area_of_polygons"][:].tolist()))
        version = f.attrs["version"].decode()
    land, open_land = polygons(shore, 1, MIN_LAND_KM2, area)
    lakes, open_lakes = polygons(shore, 2, MIN_LAKE_KM2, area)
    if open_land or open_lakes:
        print(f"make-coast: {open_land} land and {open_lakes} lake runs did not close", file=sys.stderr)
    border_lines = borders(os.path.join(base, "binned_border_l.nc"))
    features = [
        {"type": "Feature", "properties": {"kind": "land"}, "geometry": {"type": "MultiPolygon", "coordinates": land}},
        {"type": "Feature", "properties": {"kind": "lake"}, "geometry": {"type": "MultiPolygon", "coordinates": lakes}},
        {"type": "Feature", "properties": {"kind": "border"}, "geometry": {"type": "MultiLineString", "coordinates": border_lines}},
    ]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Web", "coast.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"type": "FeatureCollection",
                   "source": f"GSHHG {version} low resolution (Debian gmt-gshhg-low), P. Wessel and W. H. F. Smith, "
                             "LGPL-3.0-or-later; simplified by scripts/make-coast.py",
                   "features": features}, f, separators=(",", ":"))
    print(f"make-coast: {len(land)} land polygons, {len(lakes)} lakes, {len(border_lines)} border lines -> {out} "
          f"({os.path.getsize(out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
