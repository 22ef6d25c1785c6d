#!/usr/bin/env python3
"""A places stage with one rule broken, for scripts/checks/conformance.sh: Isobar's own places stage
with the radius rule dropped (PROTOCOL.md, "Places": a nearest place farther than `radiusKm` is no
place). Each valid reverse request is passed on with the largest radius (20016 km) and its answer
given back the radius asked for, so the nearest place comes back however far it is.
    python3 Tests/conformance/no_radius_places.py ISOBAR_BINARY [places flags...]
The conformance kit must fail this program on the radius vector, and on no other.
"""
import json
import subprocess
import sys

asked = []
lines = []
for text in sys.stdin.read().splitlines():
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    if isinstance(message, dict) and message.get("type") == "reverse":
        radius = message.get("radiusKm", 100)
        if isinstance(radius, (int, float)) and not isinstance(radius, bool) and 0 < radius <= 20016:
            asked.append(radius)
            message["radiusKm"] = 20016
            text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    lines.append(text)
run = subprocess.run([sys.argv[1], "places", *sys.argv[2:]], input="".join(l + "\n" for l in lines).encode(), capture_output=True)
for text in run.stdout.decode().splitlines():
    message = json.loads(text)
    if message.get("type") == "vicinity" and message.get("radiusKm") == 20016 and asked:
        message["radiusKm"] = asked.pop(0)
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    print(text)
sys.exit(run.returncode)
