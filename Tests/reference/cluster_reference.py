"""What the filter shows for one viewport, written from PROTOCOL.md ("Clustering, exactly") alone.

A station is a dict with the keys of a `station` message plus `seq`. `items(stations, viewport)`
returns the `visible` items in the documented `upsert` order: station dicts shown as themselves,
then cluster dicts. `scripts/checks/protocol-reference.sh` compares it with the real filter.
"""
import math


def R(v, scale):
    """Rk: round(v * 10^k) / 10^k, ties away from zero; -0 becomes 0."""
    x = v * scale
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return t / scale + 0.0


def region(lat0, lon0, dlat, dlon):
    """(minLat, maxLat, longitude intervals or None for every longitude)."""
    min_lat, max_lat = max(-90.0, lat0 - dlat / 2), min(90.0, lat0 + dlat / 2)
    low, high = lon0 - dlon / 2, lon0 + dlon / 2
    if dlon >= 360:
        ranges = None
    elif low < -180:
        ranges = None if high >= low + 360 else [(low + 360, 180.0), (-180.0, high)]
    elif high > 180:
        ranges = None if high - 360 >= low else [(low, 180.0), (-180.0, high - 360)]
    else:
        ranges = [(low, high)]
    return min_lat, max_lat, ranges


def level(min_lat, max_lat, ranges, dlon, limit):
    per_side = max(1, math.floor(math.sqrt(limit)) - 1)
    extent = max(max_lat - min_lat, 360.0 if ranges is None else dlon)
    cell = max(extent / per_side, 1e-6)
    return min(9, max(-15, math.ceil(math.log2(cell))))


def walk_key(s):
    return (min(179, math.floor(s["latitude"] + 90)), min(359, math.floor(s["longitude"] + 180)), s["seq"])


def mean(members, key):
    known = [m[key] for m in members if m[key] is not None]
    return R(sum(known) / len(known), 1e3) if known else None


def cluster(level_, row, column, members, lon0):
    count = len(members)
    lons = []
    for m in members:
        lon = m["longitude"]
        lons.append(lon - 360 if lon - lon0 > 180 else lon + 360 if lon0 - lon > 180 else lon)
    m_lon = sum(lons) / count
    m_lon = m_lon - 360 if m_lon > 180 else m_lon + 360 if m_lon < -180 else m_lon
    x = y = 0.0
    winds = 0
    for m in members:
        if m["windSpeed"] is not None and m["windDirection"] is not None:
            r = m["windDirection"] * math.pi / 180
            x += m["windSpeed"] * math.sin(r)
            y += m["windSpeed"] * math.cos(r)
            winds += 1
    direction = None
    if winds and not (x == 0 and y == 0):
        deg = math.atan2(x, y) * 180 / math.pi
        if deg < 0:
            deg += 360
        direction = R(deg, 10.0)
    return {"id": f"cluster:{level_}:{row}:{column}", "cluster": True, "count": count,
            "latitude": R(sum(m["latitude"] for m in members) / count, 1e6), "longitude": R(m_lon, 1e6),
            "temperature": mean(members, "temperature"), "windSpeed": mean(members, "windSpeed"),
            "windDirection": direction, "precipitation": mean(members, "precipitation")}


def items(stations, viewport):
    lat0, lon0 = viewport["center"]["latitude"], viewport["center"]["longitude"]
    dlat, dlon = viewport["span"]["latitudeDelta"], viewport["span"]["longitudeDelta"]
    min_lat, max_lat, ranges = region(lat0, lon0, dlat, dlon)
    visible = [s for s in stations if min_lat <= s["latitude"] <= max_lat
               and (ranges is None or any(a <= s["longitude"] <= b for a, b in ranges))]
    visible.sort(key=walk_key)
    limit = viewport.get("limit", 500)
    if len(visible) <= limit:
        return visible
    L = level(min_lat, max_lat, ranges, dlon, limit)
    size = 2.0 ** L
    cells = {}  # insertion order = order the first member is met
    for s in visible:
        cells.setdefault((math.floor((s["latitude"] + 90) / size), math.floor((s["longitude"] + 180) / size)), []).append(s)
    singles = [members[0] for members in cells.values() if len(members) == 1]
    clusters = [cluster(L, row, column, members, lon0) for (row, column), members in cells.items() if len(members) > 1]
    return singles + clusters
