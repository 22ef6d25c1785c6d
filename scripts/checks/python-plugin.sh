#!/usr/bin/env bash
# The Python formatter (examples/format.py) replaces `isobar format`: first in a pipe, compared
# title by title with the built-in one for every field; then on the bus under `isobar plug`, where
# a client attached through the broker must receive the 85 stations of the initial region.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${ISOBAR_BINARY:-.build/debug/isobar}"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin" fetch --once --today Fixtures/today.json --tomorrow Fixtures/tomorrow.json >"$work/feed.ndjson" 2>/dev/null
titles() { jq -c 'select(.type=="annotations") | .upsert[] | [.id, .title]' | sort; }
for field in temperature wind precipitation; do
  "$bin" filter --viewport 40.924,-108.0955,25,20 --field "$field" <"$work/feed.ndjson" >"$work/visible.ndjson"
  "$bin" format <"$work/visible.ndjson" | titles >"$work/swift.txt"
  python3 examples/format.py <"$work/visible.ndjson" | titles >"$work/python.txt"
  [ "$(wc -l <"$work/swift.txt")" -eq 85 ] || { echo "python-plugin: expected 85 annotations for $field" >&2; exit 1; }
  diff "$work/swift.txt" "$work/python.txt" >&2 || { echo "python-plugin: $field titles differ" >&2; exit 1; }
done
echo 'not json' | python3 examples/format.py | jq -e 'select(.type=="error")' >/dev/null

# On the bus: broker, filter, the Python formatter under plug, the fixture feed, a client.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export ISOBAR_PUB="tcp://127.0.0.1:$port" ISOBAR_SUB="tcp://127.0.0.1:$((port+1))"
"$bin" broker 2>"$work/broker.log" & pids+=($!)
"$bin" plug --name filter --sub station --sub snapshot --sub viewport/ --sub select/ --sub resync --sub lease --sub leave/ --sub nearest/ --sub search/ --sub favorite/ --sub detail/ --sub spot/ --sub forecast -- "$bin" filter --request-resync 2>"$work/filter.log" & pids+=($!)
"$bin" plug --name pyformat --sub visible --sub selection -- python3 examples/format.py 2>"$work/pyformat.log" & pids+=($!)
# The feed is republished every second, as a fetcher answers resync requests.
"$bin" plug --name feed -- sh -c "while true; do cat '$work/feed.ndjson'; sleep 1; done" 2>"$work/feed.log" & pids+=($!)
sleep 1 | "$bin" attach --client py --viewport 40.924,-108.0955,25,20 --drain 4 >"$work/client.ndjson" 2>"$work/attach.log" || true
count=$(jq -s '[.[] | select(.type=="annotations")] | reduce .[] as $m ({}; (if $m.full then {} else . end) as $s | ($s | delpaths([$m.remove[] | [.]])) + ([$m.upsert[] | {key: .id, value: .title}] | from_entries)) | length' "$work/client.ndjson")
[ "$count" -eq 85 ] || { echo "python-plugin: client on the bus holds $count annotations, expected 85" >&2; cat "$work"/*.log >&2; exit 1; }
echo "python-plugin: ok (pipe: 3 fields x 85 titles identical; bus: 85 annotations via the Python formatter)" >&2
