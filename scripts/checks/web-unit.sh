#!/usr/bin/env bash
# The web map's modules without a browser: `node --test` runs Tests/web/*.test.mjs against
# Web/client.mjs (annotations applied by version over recorded and written message streams; the
# connection, resync and reconnect backoff over a real loopback WebSocket), the conformance kit
# (conformance/: every frame the format vectors send a client, every request they make), the
# basemap data (Web/coast.json: closed rings, lakes where they are, size), the marker collision
# rule and the pure view helpers (forecast chart, icons, list rows, About's feeds). Node 20.10+ (its WebSocket client behind
# --experimental-websocket, standard from Node 22); Debian's nodejs is installed when node is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v node >/dev/null || bash scripts/deps.sh nodejs
flags=()
if node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null; then
  flags=(--experimental-websocket)
elif ! node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null; then
  echo "web-unit: node $(node --version) has no WebSocket client (Node 20.10+ needed for Tests/web/client.test.mjs)" >&2
  exit 1
fi
exec node "${flags[@]}" --test Tests/web/
