#!/usr/bin/env bash
# A soak with faults: scripts/soak.sh MINUTES [STATIONS] [BUS_CLIENTS] [WEBSOCKET_CLIENTS]
#
# `isobar up` (broker, fetch and persist under plug, filter and format on the bus, the gateway) on a
# generated feed of STATIONS stations (default 40,000; see below) served by `isobar sample-feed`,
# whose values change every 30 s; BUS_CLIENTS + WEBSOCKET_CLIENTS clients (default 900 + 100,
# scripts/soak-clients.py) pan and idle, one WebSocket client is slow and one disconnects in the
# middle of updates. For MINUTES: every 10 s a random process of the pipeline is killed with
# SIGKILL (the broker, a plug host, a stage, the gateway; `up` restarts it), every 60 s the feed
# fails for 10 s (HTTP 500, not JSON, truncated, dropped connection, in turn), every 10 s the RSS of
# every process is sampled. Then nobody pans or kills, and the check passes when every client's
# set equals brute force within 90 s and the SQLite store passes `PRAGMA integrity_check`.
# Writes .build/soak/RUN/ (up.log, kills.log, rss.csv, clients.json, summary.txt).
# ISOBAR_SOAK_FAULTS=0 keeps the load and leaves out the kills and feed faults (to tell a capacity
# problem from a recovery problem); ISOBAR_SOAK_SKIP_BUILD=1 uses the built .build/debug/isobar;
# ISOBAR_SOAK_BINARY=PATH uses that isobar (a release build: `swift build -c release --product isobar`).
#
# STATIONS: the feed body is ~140 bytes a station; `up --max-body-bytes` is raised to fit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
minutes=${1:?usage: scripts/soak.sh MINUTES [STATIONS] [BUS_CLIENTS] [WEBSOCKET_CLIENTS]}
stations=${2:-40000}
bus=${3:-900}
websocket=${4:-100}
bash scripts/deps.sh python3-zmq python3-websockets python3-numpy
if [ -n "${ISOBAR_SOAK_BINARY:-}" ]; then
  B=$(realpath "$ISOBAR_SOAK_BINARY")
else
  [ -n "${ISOBAR_SOAK_SKIP_BUILD:-}" ] || nice -n 10 swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -2
  B=$PWD/.build/debug/isobar
fi
run=.build/soak/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$run/feed" "$run/data"
echo "soak: $minutes min, $stations stations, $bus bus + $websocket WebSocket clients; in $run" >&2

# The feed: the world's stations, jittered to STATIONS points, with weather values; tomorrow the same
# stations, other values. Seeded: every run gets the same feed.
/usr/bin/python3 - "$stations" "$run/feed" <<'EOF'
import csv, json, random, sys
count, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(16)
with open("Fixtures/world-stations.csv") as f:
    world = [(r["name"], float(r["latitude"]), float(r["longitude"])) for r in csv.DictReader(f)]
def clamp(v, lo, hi): return max(lo, min(hi, v))
records = []
for i in range(count):
    name, lat, lon = world[i % len(world)]
    if i >= len(world):
        lat, lon = clamp(lat + rng.gauss(0, 1.5), -90, 90), lon + rng.gauss(0, 1.5)
        lon = ((lon + 180) % 360) - 180
    records.append({"id": f"S{i:06d}", "name": f"{name[:24]} {i}", "latitude": round(lat, 5), "longitude": round(lon, 5)})
for day in ["today", "tomorrow"]:
    for r in records:
        r.update(temperature=round(rng.uniform(-20, 100), 1), wind_speed=round(rng.uniform(0, 40), 1),
                 wind_direction=rng.randrange(0, 360), chance_of_precipitation=rng.randrange(0, 101))
    with open(f"{out}/{day}.json", "w") as f:
        json.dump(records, f, separators=(",", ":"))
EOF

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
feed_port=$(free_port); gateway_port=$(free_port)
export ISOBAR_PUB=tcp://127.0.0.1:$(free_port) ISOBAR_SUB=tcp://127.0.0.1:$(free_port)
pids=()
cleanup() {
  [ -n "${feed_pid:-}" ] && kill "$feed_pid" 2>/dev/null || true
  [ -n "${up_pid:-}" ] && kill -TERM "$up_pid" 2>/dev/null || true
  [ -n "${clients_pid:-}" ] && kill "$clients_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

start_feed() {  # [FAULT]
  "$B" sample-feed --port "$feed_port" --fixtures "$run/feed" --period 30 --seed 16 ${1:+--fault "$1"} >>"$run/feed.log" 2>&1 &
  feed_pid=$!
}
start_feed
"$B" up --today "http://127.0.0.1:$feed_port/today.json" --tomorrow "http://127.0.0.1:$feed_port/tomorrow.json" \
  --interval 5 --backoff-cap 5 --max-body-bytes $((stations * 200 + 1048576)) --data-dir "$run/data" --gateway "127.0.0.1:$gateway_port" >"$run/up.log" 2>&1 &
up_pid=$!
for _ in $(seq 1 240); do
  curl -fsS "http://127.0.0.1:$gateway_port/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$gateway_port/healthz" >/dev/null || { echo "soak: the pipeline never became healthy (see $run/up.log)" >&2; exit 1; }
echo "soak: pipeline healthy" >&2

/usr/bin/python3 scripts/soak-clients.py --pub "$ISOBAR_PUB" --sub "$ISOBAR_SUB" --ws "127.0.0.1:$gateway_port" \
  --feed "$run/feed/today.json" --bus "$bus" --websocket "$websocket" --seconds $((minutes * 60)) \
  --report "$run/clients.json" 2>"$run/clients.log" &
clients_pid=$!

descendants() {  # every process under `up`, depth first
  local children
  children=$(pgrep -P "$1" || true)
  for child in $children; do echo "$child"; descendants "$child"; done
}
# A process's role: its command line without paths and options ("isobar plug filter").
role() {
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | sed -E 's|^[^ ]*/||; s| --?[a-z-]+ [^ ]*||g' \
    | awk '{ o = ""; for (i = 1; i <= NF; i++) if ($i !~ /\//) o = o (o == "" ? "" : " ") $i; print o }'
}

echo "seconds,pid,role,rss_kb" >"$run/rss.csv"
faults=(500 notjson truncate drop)
kills=0; fault_count=0
end=$((SECONDS + minutes * 60))
tick=0
while [ $SECONDS -lt $end ]; do
  sleep 10
  tick=$((tick + 1))
  for pid in $(descendants "$up_pid"); do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$SECONDS,$pid,$(role "$pid"),$rss" >>"$run/rss.csv"
  done
  [ "${ISOBAR_SOAK_FAULTS:-1}" = 1 ] || continue  # ISOBAR_SOAK_FAULTS=0: the same load, no kills or feed faults
  victims=($(descendants "$up_pid"))
  if [ ${#victims[@]} -gt 0 ]; then
    victim=${victims[$((RANDOM % ${#victims[@]}))]}
    what=$(role "$victim")
    if kill -9 "$victim" 2>/dev/null; then
      kills=$((kills + 1))
      echo "$SECONDS kill -9 $victim $what" >>"$run/kills.log"
    fi
  fi
  if [ $((tick % 6)) -eq 0 ]; then  # every minute: the feed fails until the next tick (10 s)
    fault=${faults[$((fault_count % ${#faults[@]}))]}
    fault_count=$((fault_count + 1))
    kill "$feed_pid" 2>/dev/null || true; wait "$feed_pid" 2>/dev/null || true
    start_feed "$fault"
    echo "$SECONDS feed fault $fault" >>"$run/kills.log"
  elif [ $((tick % 6)) -eq 1 ] && [ "$fault_count" -gt 0 ]; then
    kill "$feed_pid" 2>/dev/null || true; wait "$feed_pid" 2>/dev/null || true
    start_feed
  fi
done
echo "soak: $kills kills, $fault_count feed faults; waiting for the clients' check" >&2
status=0
wait "$clients_pid" || status=$?
clients_pid=
for pid in $(descendants "$up_pid"); do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$SECONDS,$pid,$(role "$pid"),$rss" >>"$run/rss.csv"
done
kill -TERM "$up_pid"; wait "$up_pid" || true; up_pid=
integrity=""
for db in "$run"/data/*.sqlite; do
  [ -e "$db" ] || continue
  result=$(sqlite3 "$db" 'PRAGMA integrity_check;')
  integrity+="$(basename "$db"): $result; "
  [ "$result" = ok ] || status=1
done
{
  echo "minutes=$minutes stations=$stations bus=$bus websocket=$websocket kills=$kills feed_faults=$fault_count"
  echo "killed: $(grep ' kill -9 ' "$run/kills.log" | cut -d' ' -f5- | sort | uniq -c | sort -rn | tr -s ' ' | tr '\n' ';')"
  echo "feed faults: $(grep ' feed fault ' "$run/kills.log" | cut -d' ' -f4 | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  echo "clients: $(tr -d '\n ' <"$run/clients.json" 2>/dev/null)"
  echo "integrity_check: ${integrity:-no store}"
  echo "rss (MB, first/last/max sample per role):"
  awk -F, 'NR > 1 { r=$3; kb=$4; if (!(r in first)) first[r]=kb; last[r]=kb; if (kb>max[r]) max[r]=kb }
           END { for (r in first) printf "  %-24s %7.1f %7.1f %7.1f\n", r, first[r]/1024, last[r]/1024, max[r]/1024 }' "$run/rss.csv" | sort
} | tee "$run/summary.txt" >&2
[ "$status" -eq 0 ] && echo "soak: passed" >&2 || echo "soak: FAILED (see $run)" >&2
exit "$status"
