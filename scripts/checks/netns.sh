#!/usr/bin/env bash
# Isobar over several hosts: network namespaces joined by veth pairs on a bridge, all bus traffic
# over TCP with CURVE. ISOBAR_SKIP_NETNS=1 skips it; it needs root (or CAP_NET_ADMIN + CAP_SYS_ADMIN).
#
#   broker   10.231.7.1   isobar broker --allow-remote --curve-secret … --curve-allow (feeds, stages, gateway keys)
#   feeds    10.231.7.2   the sample feed (its own loopback), fetch and persist, each under plug
#   stages   10.231.7.3   two filter shards (0/2, 1/2), format and places (Fixtures/places-sample.txt), each under plug
#   gateway  10.231.7.4   isobar gateway on its loopback, and the WebSocket clients (scripts/netns-client.py)
#   stranger 10.231.7.5   a plug subscribed to everything with a key the broker does not allow
#
# Checks, each against the brute force of PROTOCOL.md's clustering (Tests/reference): the initial
# region's 85; random pans within 2 s each, for three clients (alice in shard 1's partitions, bob and
# carol in shard 0's); each shard's input held only its own clients' viewports; the stranger receives nothing and the
# broker logs its refusal; the stages host's link down for 5 s: every client right within 2 s of the
# link's return; the broker killed and restarted (a pan sent while it is down): every client right
# again without sending anything more. Every namespace and process is removed on exit, even on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${ISOBAR_SKIP_NETNS:-}" = 1 ]; then echo "netns check: SKIPPED (ISOBAR_SKIP_NETNS=1)" >&2; exit 0; fi
if [ "$(id -u)" != 0 ]; then echo "netns check: needs root for ip netns; run as root or set ISOBAR_SKIP_NETNS=1" >&2; exit 1; fi
start=$(date +%s)
bin="${ISOBAR_BINARY:-$PWD/.build/debug/isobar}"
[ -x "$bin" ] || { echo "netns check: no isobar binary at $bin (swift build first)" >&2; exit 1; }
bash scripts/deps.sh iproute2 python3-websockets >/dev/null # the clients (scripts/netns-client.py) speak WebSocket
tag="isb$$"
work=$(mktemp -d)
pids=()
hosts=(broker feeds stages gateway stranger)

log() { echo "netns check: $*" >&2; }
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  # Whatever still runs inside a namespace (a stage under a killed plug) goes with it.
  for h in "${hosts[@]}"; do ip netns pids "$tag-$h" 2>/dev/null | xargs -r kill -9 2>/dev/null || true; done
  wait 2>/dev/null || true
  for h in "${hosts[@]}" switch; do ip netns del "$tag-$h" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then
    for f in "$work"/*.log; do [ -e "$f" ] && { echo "--- $f (last 15 lines)" >&2; tail -15 "$f" >&2; }; done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT INT TERM

# The switch: a namespace holding a bridge; each host a namespace with one veth end on it.
ip netns add "$tag-switch"
ip -n "$tag-switch" link add br0 type bridge
ip -n "$tag-switch" link set br0 up
for i in "${!hosts[@]}"; do
  h=${hosts[$i]}; n=$((i + 1))
  ip netns add "$tag-$h"
  ip link add "$tag-h$n" type veth peer name "$tag-s$n"
  ip link set "$tag-h$n" netns "$tag-$h"
  ip link set "$tag-s$n" netns "$tag-switch"
  ip -n "$tag-switch" link set "$tag-s$n" master br0
  ip -n "$tag-switch" link set "$tag-s$n" up
  ip -n "$tag-$h" addr add "10.231.7.$n/24" dev "$tag-h$n"
  ip -n "$tag-$h" link set "$tag-h$n" up
  ip -n "$tag-$h" link set lo up
done
on() { local h=$1; shift; ip netns exec "$tag-$h" "$@"; }

# Keys: the broker's, one per allowed host, and a stranger's kept out of the allowlist.
mkdir -p "$work/keys" "$work/allowed"
for k in broker feeds stages gateway stranger; do "$bin" keygen --out "$work/keys" --name "$k" >/dev/null; done
for k in feeds stages gateway; do cp "$work/keys/$k.pub" "$work/allowed/"; done
bus=(ISOBAR_PUB=tcp://10.231.7.1:5559 ISOBAR_SUB=tcp://10.231.7.1:5560 ISOBAR_CURVE_SERVERKEY="$work/keys/broker.pub")
as() { echo "ISOBAR_CURVE_SECRETKEY=$work/keys/$1.key"; }

# Started as simple commands (`ip netns exec` execs, then env execs), so $! is the process itself.
start_broker() {
  ip netns exec "$tag-broker" env "${bus[@]}" "$bin" broker --allow-remote --curve-secret "$work/keys/broker.key" --curve-allow "$work/allowed" \
    >>"$work/broker.log" 2>&1 &
  broker_pid=$!; pids+=("$broker_pid"); disown "$broker_pid"
}
start_broker
on feeds "$bin" sample-feed --port 18089 --fixtures Fixtures --period 3600 >"$work/sample.log" 2>&1 & pids+=($!)
on feeds env "${bus[@]}" "$(as feeds)" "$bin" plug --name persist --sub station --sub snapshot --sub resync -- \
  "$bin" persist --data-dir "$work/data" >"$work/persist.log" 2>&1 & pids+=($!)
on stages env "${bus[@]}" "$(as stages)" "$bin" plug --name format --sub visible --sub selection --sub closest --sub matches --sub pinned --sub particulars --sub ambient -- \
  "$bin" format >"$work/format.log" 2>&1 & pids+=($!)
on stages env "${bus[@]}" "$(as stages)" "$bin" plug --name places --sub geocode/ --sub reverse/ --sub weather/ -- \
  "$bin" places --places Fixtures/places-sample.txt >"$work/places.log" 2>&1 & pids+=($!)
# Two filter shards; each stage's input is also written to a file (tee), to check what it heard.
for k in 0 1; do
  on stages env "${bus[@]}" "$(as stages)" "$bin" plug --name "filter-$k" --shard "$k/2" --sub station --sub snapshot --sub viewport/ --sub select/ --sub resync --sub lease --sub leave/ --sub nearest/ --sub search/ --sub favorite/ --sub detail/ --sub spot/ --sub forecast -- \
    sh -c "tee -a '$work/filter-$k.in' | '$bin' filter --request-resync --shard $k/2" >"$work/filter-$k.log" 2>&1 & pids+=($!)
done
sleep 0.5
on feeds env "${bus[@]}" "$(as feeds)" "$bin" plug --name fetch --sub resync -- \
  "$bin" fetch --today http://127.0.0.1:18089/today.json --tomorrow http://127.0.0.1:18089/tomorrow.json --interval 5 \
  >"$work/fetch.log" 2>&1 & pids+=($!)
on gateway env "${bus[@]}" "$(as gateway)" "$bin" gateway --listen 127.0.0.1:18080 --lease-interval 0.5 >"$work/gateway.log" 2>&1 & pids+=($!)
on stranger env "${bus[@]}" "$(as stranger)" "$bin" plug --name stranger --sub "" -- tee "$work/stranger.ndjson" \
  >"$work/stranger.log" 2>&1 & pids+=($!)
disown -a
for _ in $(seq 100); do grep -q "listening on" "$work/gateway.log" 2>/dev/null && break; sleep 0.1; done
log "hosts up: broker, feeds, stages, gateway, stranger ($(( $(date +%s) - start )) s)"

# Three map clients on the gateway host, driven through a coprocess.
coproc CLIENTS { on gateway /usr/bin/python3 scripts/netns-client.py ws://127.0.0.1:18080/ws Fixtures/today.json alice bob carol 2>"$work/clients.log"; }
pids+=("$CLIENTS_PID"); disown "$CLIENTS_PID" 2>/dev/null || true
failures=0
# ask CLIENT KIND REGION WITHIN LABEL: KIND is viewport (send and wait) or expect (wait only).
ask() {
  local client=$1 kind=$2 region=$3 within=$4 label=$5 reply
  echo "{\"client\":\"$client\",\"$kind\":$region,\"within\":$within}" >&"${CLIENTS[1]}"
  read -r reply <&"${CLIENTS[0]}" || { log "FAIL: the clients process ended ($label)"; exit 1; }
  if [[ "$reply" == *'"ok": true'* ]]; then
    echo "$reply" >>"$work/results.ndjson"
  else
    log "FAIL: $label: $reply"; failures=$((failures + 1))
  fi
}
send_only() { echo "{\"client\":\"$1\",\"viewport\":$2,\"send_only\":true}" >&"${CLIENTS[1]}"; read -r _ <&"${CLIENTS[0]}"; }
region() { printf '{"center":{"latitude":%s,"longitude":%s},"span":{"latitudeDelta":%s,"longitudeDelta":%s}}' "$@"; }
random_region() {
  /usr/bin/python3 -c "import random; r=random.Random('$1'); print('{\"center\":{\"latitude\":%.4f,\"longitude\":%.4f},\"span\":{\"latitudeDelta\":%.3f,\"longitudeDelta\":%.3f}}' % (r.uniform(25,55), r.uniform(-125,-75), r.uniform(1,30), r.uniform(1,40)))"
}
# slowest N: the longest wait among the last N answers.
slowest() { tail -"$1" "$work/results.ndjson" | /usr/bin/python3 -c "import json,sys; print(max(json.loads(l)['seconds'] for l in sys.stdin))"; }
declare -A last
initial=$(region 40.924 -108.0955 25 20)
for c in alice bob carol; do ask "$c" viewport "$initial" 30 "$c: the initial region"; last[$c]=$initial; done
held=$(tail -1 "$work/results.ndjson" 2>/dev/null || true)
[[ "$held" == *'"held": 85'* ]] || { log "FAIL: the initial region does not hold the 85: $held"; failures=$((failures + 1)); }
log "initial region: 85 of 181 for alice, bob and carol"
for round in $(seq 5); do
  for c in alice bob carol; do
    r=$(random_region "$round$c$$"); ask "$c" viewport "$r" 2 "$c: pan $round"; last[$c]=$r
  done
done
log "15 random pans: each client's set right within 2 s ($(grep -c '"ok": true' "$work/results.ndjson") answers)"

# The weather at a place and at a point (PROTOCOL.md, "Weather at a point or place"): the gateway
# host's request crosses places and the client's filter shard (alice in shard 1, bob in shard 0) to
# the formatter; the station named is the one a scan of the feed finds nearest within the radius.
weather() {
  local client=$1 request=$2 title=$3 reply
  echo "{\"client\":\"$client\",\"weather\":$request,\"title\":\"$title\",\"within\":5}" >&"${CLIENTS[1]}"
  read -r reply <&"${CLIENTS[0]}" || { log "FAIL: the clients process ended (weather)"; exit 1; }
  if [[ "$reply" == *'"ok": true'* ]]; then log "weather for $client: $reply"; else log "FAIL: weather for $client: $reply"; failures=$((failures + 1)); fi
}
weather alice '{"id":5419384,"radiusKm":300}' Denver
weather bob '{"latitude":39.8,"longitude":-89.6,"radiusKm":500}' Springfield

# The stages host's link down for 5 s, then back: every client right within 2 s of its return,
# each with a new pan sent while the link was down.
# ISOBAR_NETNS_CUTS=N repeats the cut N times (a heal-time distribution; RELIABILITY.md).
for cut in $(seq "${ISOBAR_NETNS_CUTS:-1}"); do
  ip -n "$tag-stages" link set "$tag-h3" down
  sleep 1
  for c in alice bob carol; do r=$(random_region "cut$cut$c$$"); send_only "$c" "$r"; last[$c]=$r; done
  sleep 4
  ip -n "$tag-stages" link set "$tag-h3" up
  for c in alice bob carol; do ask "$c" expect "${last[$c]}" "${ISOBAR_NETNS_HEAL:-2}" "$c: 2 s after the stages host's link returned"; done
  log "link of the stages host down 5 s: every client right $(slowest 3) s after its return"
done

# The broker host restarts (kill -9, then a new broker): a pan sent while it is down still lands.
kill -9 "$broker_pid"; while kill -0 "$broker_pid" 2>/dev/null; do sleep 0.05; done
for c in alice bob carol; do r=$(random_region "broker$c$$"); send_only "$c" "$r"; last[$c]=$r; done
sleep 1
start_broker
for c in alice bob carol; do ask "$c" expect "${last[$c]}" 5 "$c: after the broker's restart, without sending again"; done
for c in alice bob carol; do r=$(random_region "after$c$$"); ask "$c" viewport "$r" 2 "$c: a pan after the broker's restart"; done
log "broker killed and restarted: no client lost (the pans sent while it was down landed; slowest $(slowest 6) s)"

# The stranger: refused by the broker, and nothing reached it.
if grep -qF "refused client $(cat "$work/keys/stranger.pub")" "$work/broker.log"; then log "the broker refused the stranger's key"
else log "FAIL: no refusal of the stranger's key in the broker's log"; failures=$((failures + 1)); fi
if [ -s "$work/stranger.ndjson" ]; then log "FAIL: the stranger received $(wc -l <"$work/stranger.ndjson") lines"; failures=$((failures + 1))
else log "the stranger (a wrong key) received nothing"; fi

# Each shard heard the viewports of its own clients and of no other (PROTOCOL.md, Filter shards).
if /usr/bin/python3 - "$work" <<'PY'
import json, sys
def partition(name):
    h = 0xcbf29ce484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h % 64
ok = True
for k in (0, 1):
    heard = set()
    for line in open(f"{sys.argv[1]}/filter-{k}.in"):
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("type") == "viewport":
            heard.add(message["client"])
    mine = {c for c in ("alice", "bob", "carol") if partition(c) % 2 == k}
    print(f"netns check: shard {k}/2 heard viewports of {sorted(heard)}, owns {sorted(mine)}", file=sys.stderr)
    ok = ok and heard == mine
sys.exit(0 if ok else 1)
PY
then log "each filter shard heard only its own clients' viewports"
else log "FAIL: a filter shard heard viewports of clients it does not own"; failures=$((failures + 1)); fi

slowest=$(/usr/bin/python3 -c "import json,sys; print(max(json.loads(l)['seconds'] for l in open(sys.argv[1])))" "$work/results.ndjson")
[ "$failures" -eq 0 ] || { log "FAILED ($failures checks)"; exit 1; }
log "passed in $(( $(date +%s) - start )) s ($(wc -l <"$work/results.ndjson") exact sets, slowest answer ${slowest} s)"
