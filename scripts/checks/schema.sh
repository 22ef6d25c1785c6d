#!/usr/bin/env bash
# Every line the stages write, checked against its JSON Schema (schema/, draft 2020-12, PyPI
# jsonschema): fetch on every feed format's fixtures (several sources, a clamped value, a
# duplicate id, a rejected record, a failing source), filter | format on each feed with viewports,
# selections, nearest/search/favorite/detail requests in several fields, units and locales, a
# lease, a leave, an incomplete snapshot and bad lines (errors); the well-formed requests too; a
# shrunk snapshot the filter holds back (status "held"); places on the conformance gazetteer with
# good and bad geocode/reverse requests, and without a gazetteer.
# Prints the lines validated per type; fails on any invalid line or any type without a schema
# (naming the file to add). Also: the whole pipeline (isobar up --sample) with every bus message
# recorded by a tap plug, an app on the gateway's WebSocket (both directions; what it sends against
# schema/websocket/; geocode and reverse included), and the conformance vectors' expected lines. Then checks schema/asyncapi.yaml.
set -euo pipefail
cd "$(dirname "$0")/../.."
export ISOBAR_BINARY="${ISOBAR_BINARY:-.build/debug/isobar}"
[ -x "$ISOBAR_BINARY" ] || swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -3
source scripts/schema/python.sh
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
scripts/schema/corpus.sh "$work"

# The whole pipeline on the sample feed (isobar up --sample, gateway included), every bus message
# recorded by a tap (a plug subscribed to every topic, printing nothing), and an app on the
# gateway's WebSocket (scripts/schema/gateway.py): requests, answers, bad frames.
read -r pub sub feed gateway < <("$python" -c 'import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
export ISOBAR_PUB="tcp://127.0.0.1:$pub" ISOBAR_SUB="tcp://127.0.0.1:$sub"
"$ISOBAR_BINARY" up --sample --sample-port "$feed" --gateway "127.0.0.1:$gateway" --places conformance/places/gazetteer.txt --data-dir "$work/data" >"$work/up.log" 2>&1 & pids+=($!)
for _ in $(seq 1 300); do curl -fsS -o /dev/null "http://127.0.0.1:$gateway/healthz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "http://127.0.0.1:$gateway/healthz" || { cat "$work/up.log" >&2; echo "schema: the gateway is not healthy" >&2; exit 1; }
"$ISOBAR_BINARY" plug --name tap --sub '' -- sh -c "cat >'$work/bus.ndjson'" 2>"$work/tap.log" & pids+=($!)
sleep 0.5
"$python" scripts/schema/gateway.py "127.0.0.1:$gateway" "$work/ws-sent.json" "$work/ws-received.ndjson"
for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=()

# The conformance vectors' expected lines are what the stages write too (but for the lines an
# unknown-type vector passes through, which are no Isobar type, and the disputed vectors, which
# record what the binary does where it breaks PROTOCOL.md).
"$python" -c 'import json, pathlib
for path in sorted(pathlib.Path("conformance").glob("*/*/*.json")):
    vector = json.loads(path.read_text())
    if path.stem == "unknown-type-passes" or vector.get("disputed"):
        continue
    for line in vector["expected"]:
        print(json.dumps(line, ensure_ascii=False))' >"$work/vectors.ndjson"
"$python" scripts/schema/validate.py "$work"/*.ndjson
"$python" scripts/schema/validate.py --websocket "$work/ws-sent.json"
"$python" scripts/schema/check-asyncapi.py
echo "schema: ok" >&2
