#!/usr/bin/env bash
# compose.feeds.yaml (several feeds at once) without containers: its fetch command, exactly as the
# override writes it (the `isobar fetch ...` after plug's `--`), run once against a local sample
# feed standing in for the `sample-feed` service. Passes when both days are published with
# stations of every format the override lists, ids prefixed by format.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${ISOBAR_BIN:-.build/debug/isobar}
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
work=$(mktemp -d)
"$B" sample-feed --port "$port" --fixtures Fixtures >"$work/feed.log" 2>&1 &
feed=$!
trap 'kill $feed 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
# The override's fetch arguments, with the compose host and variables resolved for this machine.
mapfile -t args < <(/usr/bin/python3 - "$port" <<'PY'
import sys, yaml
command = yaml.safe_load(open("compose.feeds.yaml"))["services"]["fetch"]["command"]
fetch = command[command.index("--") + 2:]  # after "--", "isobar"
for arg in fetch:
    print(arg.replace("sample-feed:8089", "127.0.0.1:" + sys.argv[1]).replace("${ISOBAR_FETCH_INTERVAL:-5}", "5"))
PY
)
"$B" fetch "${args[@]:1}" --once >"$work/out.ndjson" 2>"$work/fetch.log"
/usr/bin/python3 - "$work/out.ndjson" <<'PY'
import json, sys
ids = {"today": set(), "tomorrow": set()}
ends = []
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m["type"] == "station": ids[m["day"]].add(m["id"].split(":")[0])
    if m["type"] == "snapshot": ends.append(m["day"])
assert sorted(ends) == ["today", "tomorrow"], ends
assert ids["today"] == {"onx", "openweather", "darksky", "airvisual"}, ids["today"]
assert ids["tomorrow"] == {"onx", "darksky"}, ids["tomorrow"]
print("compose-feeds: the override's fetch published today from onx, openweather, darksky, airvisual and tomorrow from onx, darksky", file=sys.stderr)
PY
