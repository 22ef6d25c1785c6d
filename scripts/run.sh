#!/usr/bin/env bash
# Quick start: installs what is missing, builds, starts the whole pipeline on the built-in sample
# feed (live, drifting data over real HTTP on loopback; no internet needed) and attaches a client
# for the iOS app's initial region, and prints the web map's URL (the gateway, 127.0.0.1:8080). On a
# terminal you get the text map (q quits); otherwise the client's annotations are printed as
# NDJSON. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build -c release --product isobar 2>&1 | grep -vE 'prohibited flag|^warning:' >&2 || true
bin="$(swift build -c release --show-bin-path)/isobar"
[ -x "$bin" ] || { echo "run: build failed" >&2; exit 1; }
mkdir -p data
"$bin" up --sample --data-dir data 2>data/up.log &
up=$!
trap 'kill -INT $up 2>/dev/null; wait $up 2>/dev/null' EXIT INT TERM
# `up` prints "web map: URL" to its log once the gateway accepts connections.
for _ in $(seq 1 100); do grep -q '^web map: ' data/up.log 2>/dev/null && break; sleep 0.2; done
url=$(grep -m1 '^web map: ' data/up.log 2>/dev/null | sed 's/^web map: //')
echo "run: web map at ${url:-http://127.0.0.1:8080/ (not answering yet: see data/up.log)}" >&2
echo "run: pipeline started (logs: data/up.log); attaching client 'demo' to 40.924,-108.0955 span 25x20" >&2
if [ -t 0 ] && [ -t 1 ]; then
  "$bin" attach --client demo --viewport 40.924,-108.0955,25,20
else
  # Not a terminal: keep printing the demo client's live annotations (stdin is not read).
  sleep infinity | "$bin" attach --client demo --viewport 40.924,-108.0955,25,20
fi
