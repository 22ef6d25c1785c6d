#!/usr/bin/env python3
"""A deliberately broken filter for scripts/checks/conformance.sh: `isobar filter` with one rule
changed. PROTOCOL.md ("Visible") makes a viewport's bounds inclusive; this wrapper shrinks every
viewport's span by a hair before the real filter sees it, so a station exactly on an edge is
left out. The conformance runner must fail it and name the vector that checks the rule.
    python3 Tests/conformance/exclusive_edges_filter.py ISOBAR_BINARY [filter flags...]
"""
import json
import subprocess
import sys

child = subprocess.Popen([sys.argv[1], "filter", *sys.argv[2:]], stdin=subprocess.PIPE)
def strict(pairs):
    """Leaves a line with duplicate keys alone (the real filter must see and reject it)."""
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("duplicate key")
    return dict(pairs)


for raw in sys.stdin.buffer:
    try:
        message = json.loads(raw, object_pairs_hook=strict)
        if isinstance(message, dict) and message.get("type") == "viewport" and isinstance(message.get("span"), dict):
            for key in ("latitudeDelta", "longitudeDelta"):
                if isinstance(message["span"].get(key), (int, float)):
                    message["span"][key] *= 1 - 1e-9
            raw = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    except ValueError:
        pass  # not JSON: the real filter reports it
    child.stdin.write(raw)
child.stdin.close()
sys.exit(child.wait())
