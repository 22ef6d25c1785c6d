#!/usr/bin/env bash
# deploy/k8s/ for real with `podman kube play` (podman 4.3; no cluster needed). Builds the image from
# Containerfile.prebuilt around a host-built isobar (default .build/debug/isobar with its Swift runtime
# libraries, as the compose check does), makes fresh CURVE keys with deploy/k8s/secrets.sh (plus one for
# the test client `ci`), converts the manifests with deploy/k8s/podman-play.py (only what kube play 4.3
# lacks: docs/k8s.md), plays them on a network of the test's own, runs every readiness probe until all
# pass and every liveness probe once (the way the kubelet would: exec in the container, HTTP GET to the
# pod's address), then checks:
#   - the gateway pod serves the web map's files, and a WebSocket client on it (check_client of
#     scripts/compose-ws-check.py) holds exactly the 85 stations of the initial region (computed from
#     Fixtures/today.json);
#   - `isobar attach --client ci` and `--client ci-2` (one per filter shard of the StatefulSet's two) in
#     containers on the network, with the allowlisted CURVE key, each hold exactly the same 85; one with a key that is not on the allowlist receives nothing, and the broker
#     logs the refusal;
#   - a WebSocket client's detail of K6V4 comes back with its forecast (forecast.yaml, the filters' --forecasts:
#     outlook -> forecast stage -> the sample feed's Open-Meteo fixture);
#   - persist's claim holds the SQLite file.
# Always removes every pod, secret, volume, the network and the image it made (trap).
#
# Environment:
#   ISOBAR_KUBE_BINARY  a dynamically linked isobar (default .build/debug/isobar)
#   ISOBAR_KUBE_CACHE   cache folder outside the repo (default /var/tmp/isobar-kube): containers.conf
#   ISOBAR_KUBE_KEEP=1  leave everything running (prints how to remove it)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

BASE_IMAGE=localhost/isobar-base:bookworm
VIEWPORT_JSON='{"type":"viewport","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"temperature"}'
# EXPECTED_COUNT, write_expected and state: the initial region's set, shared with the other check.
source "$(dirname "${BASH_SOURCE[0]}")/initial-region.sh"

start=$(date +%s)
step_start=$start
# The first failure is said again as the run's last line: the pods' logs dumped on failure come between.
failure=
log() { echo "kube-test: $*" >&2; case $* in FAIL*) failure=${failure:-$*} ;; esac; }
step() {
  local now; now=$(date +%s)
  log "[$((now - start))s total, +$((now - step_start))s] $*"
  step_start=$now
}

# ---------------------------------------------------------------- tools
step "installing missing tools (podman runc debootstrap jq curl python3-yaml python3-websockets)"
[ -x /opt/swift/usr/bin/swift ] && ! command -v swift >/dev/null && export PATH="/opt/swift/usr/bin:$PATH"
bash scripts/deps.sh podman runc debootstrap debian-archive-keyring jq curl python3 python3-yaml python3-websockets >&2
[ "$(id -u)" -eq 0 ] || { log "FAIL: run as root (podman kube play with a bridge network the host can reach)"; exit 1; }
cache="${ISOBAR_KUBE_CACHE:-/var/tmp/isobar-kube}"
mkdir -p "$cache"
# Podman 4.3 on these VMs (hybrid cgroups, no CAP_SYS_RESOURCE) needs runc and explicit ulimits.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
    >"$cache/containers.conf"
  export CONTAINERS_CONF="$cache/containers.conf"
fi
podman=podman
py=/usr/bin/python3 # Debian's python3-yaml and python3-websockets are installed for it

# ---------------------------------------------------------------- base image (shared with the compose check)
if ! $podman image exists "$BASE_IMAGE"; then
  step "creating base image $BASE_IMAGE (debootstrap --variant=minbase bookworm)"
  mirror=$(grep -rhoE '(URIs:|^deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | grep -v security | head -n 1 | awk '{print $2}' || true)
  rootfs="$cache/rootfs.$$"
  compose_cache="${ISOBAR_COMPOSE_CACHE:-/var/tmp/isobar-compose}"
  mkdir -p "$compose_cache"
  (
    flock 9
    if ! $podman image exists "$BASE_IMAGE"; then
      trap 'rm -rf "$rootfs"' EXIT
      debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
      rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
      tar -C "$rootfs" -c . | $podman import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
    fi
  ) 9>"$compose_cache/base.lock" # the compose check's lock: one debootstrap at a time
fi

# ---------------------------------------------------------------- work area, cleanup
prefix="k$$"
network="isobar-kube-$$"
image="localhost/isobar:kube-$$"
work="$repo/.build-kube/$prefix"
rm -rf "$work"
mkdir -p "$work"
status=1
# kube play builds podman's pause image (the pods' infra containers) when it is missing: remove it again
# if this run made it (not forced: another run's pods may be using it).
pause_existed=$($podman images -q --filter reference=localhost/podman-pause)
pods() { $podman pod ls --format '{{.Name}}' | grep "^$prefix-" || true; }
dump_logs() {
  local c
  for c in $($podman ps -a --format '{{.Names}}' | grep "^$prefix-" | grep -v -- '-infra$' || true); do
    echo "----- logs of $c (last 20 lines)" >&2
    $podman logs --tail 20 "$c" 2>&1 | grep -v 'systemd' | cut -c1-400 >&2 || true
  done
}
cleanup() {
  set +e
  [ "$status" -eq 0 ] || dump_logs
  $podman rm -f -t 0 "$prefix-ci" "$prefix-intruder" >/dev/null 2>&1
  if [ "${ISOBAR_KUBE_KEEP:-}" = 1 ]; then
    log "left running: pods $(pods | tr '\n' ' '); remove with: podman pod rm -f POD..., podman secret rm / podman volume rm $prefix-*, podman network rm $network, podman rmi $image"
  else
    local p v s
    p=$(pods)
    [ -z "$p" ] || $podman pod rm -f -t 5 $p >/dev/null 2>&1
    # kube play keeps a volume per Secret and ConfigMap volume, and the claim's volume, after the pods go.
    for s in $($podman secret ls --format '{{.Name}}' | grep "^$prefix-"); do $podman secret rm "$s" >/dev/null 2>&1; done
    for v in $($podman volume ls --format '{{.Name}}' | grep "^$prefix-"); do $podman volume rm -f "$v" >/dev/null 2>&1; done
    $podman network rm -f "$network" >/dev/null 2>&1
    $podman rmi -f "$image" >/dev/null 2>&1
    if [ -z "$pause_existed" ]; then
      for p in $($podman images -q --filter reference=localhost/podman-pause); do $podman rmi "$p" >/dev/null 2>&1; done
    fi
    left="$(pods)$($podman secret ls --format '{{.Name}}' | grep "^$prefix-")$($podman volume ls --format '{{.Name}}' | grep "^$prefix-")"
    [ -z "$left" ] || log "WARNING: left behind: $left"
  fi
  [ "$status" -eq 0 ] && rm -rf "$work"
  local now; now=$(date +%s)
  if [ "$status" -eq 0 ]; then log "PASS in $((now - start))s"; else echo "kube-test: FAIL after $((now - start))s (work files: $work): ${failure:-see above}" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- image
src="${ISOBAR_KUBE_BINARY:-.build/debug/isobar}"
[ -x "$src" ] || { log "FAIL: $src does not exist: build it first (swift build)"; exit 1; }
step "building $image from Containerfile.prebuilt around $src and its Swift runtime"
ctx="$work/context"
mkdir -p "$ctx/.build-compose/lib"
cp -r Containerfile.prebuilt Fixtures Web "$ctx/"
install -m 0755 "$src" "$ctx/.build-compose/isobar"
mkdir -p "$ctx/.build-compose/places"
[ -f data/places/cities500.txt ] && cp data/places/cities500.txt "$ctx/.build-compose/places/"
ldd_out=$(ldd "$src")
! grep -q 'not found' <<<"$ldd_out" || { grep 'not found' <<<"$ldd_out" >&2; log "FAIL: $src misses libraries on the host"; exit 1; }
core=$(awk '$1 == "libswiftCore.so" && $2 == "=>" {print $3}' <<<"$ldd_out")
if [ -n "$core" ]; then
  toolchain_lib=$(dirname "$(readlink -f "$core")")
  for lib in $(awk '$2 == "=>" && $3 ~ /^\// {print $3}' <<<"$ldd_out"); do
    case "$(readlink -f "$lib")" in "$toolchain_lib"/*) cp -L "$lib" "$ctx/.build-compose/lib/" ;; esac
  done
fi
$podman build -q -f "$ctx/Containerfile.prebuilt" -t "$image" "$ctx" >"$work/build.log" 2>&1 \
  || { tail -n 20 "$work/build.log" >&2; log "FAIL: podman build"; exit 1; }
rm -rf "$ctx"

# ---------------------------------------------------------------- keys, manifests
step "CURVE keys (deploy/k8s/secrets.sh ci) and converting deploy/k8s for kube play (deploy/k8s/podman-play.py)"
ISOBAR="$src" ISOBAR_KEYS_DIR="$work/keys" bash deploy/k8s/secrets.sh ci >"$work/secrets.yaml"
"$src" keygen --out "$work/keys" --name intruder >/dev/null # not on the allowlist
$py deploy/k8s/podman-play.py "$prefix" "$image" "$work/play" deploy/k8s/*.yaml "$work/secrets.yaml"
plan="$work/play/plan.json"
log "kube play ignores (not enforced here): $(jq -r '.ignored | join(", ")' "$plan"); Services become network aliases"

# ---------------------------------------------------------------- play
step "podman kube play on network $network: secrets, claims, then $(jq -r '[.workloads[].name] | join(", ")' "$plan")"
$podman network create "$network" >/dev/null
for s in $(jq -r '.secrets[]' "$plan"); do
  $podman secret create "$s" "$work/play/secret-$s.yaml" >/dev/null
done
$podman kube play --network "$network" "$work/play/claims.yaml" >"$work/play-claims.log" 2>&1 \
  || { cat "$work/play-claims.log" >&2; log "FAIL: kube play of the claims"; exit 1; }
for i in $(seq 0 $(( $(jq '.workloads | length' "$plan") - 1 ))); do
  file=$(jq -r ".workloads[$i].file" "$plan")
  net="$network"
  for alias in $(jq -r ".workloads[$i].aliases[]" "$plan"); do
    [ "$net" = "$network" ] && net="$net:alias=$alias" || net="$net,alias=$alias"
  done
  if ! $podman kube play --network "$net" --configmap "$work/play/configmaps.yaml" "$file" >"$work/play-$i.log" 2>&1; then
    grep -v systemd "$work/play-$i.log" >&2
    log "FAIL: podman kube play $file"
    exit 1
  fi
done

# ---------------------------------------------------------------- probes
pod_ip() { $podman inspect -f "{{(index .NetworkSettings.Networks \"$network\").IPAddress}}" "$($podman pod inspect -f '{{.InfraContainerID}}' "$1")"; }
# probe POD CONTAINER PROBE_JSON: runs one probe as the kubelet would; prints why it failed.
probe() {
  local pod=$1 container=$2 spec=$3 ip port path
  if jq -e '.exec' <<<"$spec" >/dev/null; then
    mapfile -t cmd < <(jq -r '.exec.command[]' <<<"$spec")
    # timeoutSeconds is the command's; podman exec itself needs a few seconds more on a loaded machine
    timeout "$(( $(jq -r '.timeoutSeconds // 1' <<<"$spec") + 10 ))" $podman exec "$container" "${cmd[@]}" 2>&1 | tail -n 1
    return "${PIPESTATUS[0]}"
  fi
  ip=$(pod_ip "$pod")
  if jq -e '.httpGet' <<<"$spec" >/dev/null; then
    port=$(jq -r '.httpGet.port' <<<"$spec") path=$(jq -r '.httpGet.path' <<<"$spec")
    # 200-399 passes, as for the kubelet
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(jq -r '.timeoutSeconds // 1' <<<"$spec")" "http://$ip:$port$path" || true)
    [ "$code" -ge 200 ] 2>/dev/null && [ "$code" -lt 400 ] && return 0
    echo "GET http://$ip:$port$path: $code"
    return 1
  fi
  if jq -e '.tcpSocket' <<<"$spec" >/dev/null; then
    port=$(jq -r '.tcpSocket.port' <<<"$spec")
    timeout 2 bash -c "exec 3<>/dev/tcp/$ip/$port" 2>/dev/null && return 0
    echo "tcp $ip:$port refused"
    return 1
  fi
  echo "unknown probe $spec"
  return 1
}
step "running every readiness probe until all pass (the gateway's /healthz needs data through the whole pipeline)"
deadline=$(( $(date +%s) + 150 ))
while :; do
  pending=()
  while read -r pod container; do
    state=$($podman inspect -f '{{.State.Status}}' "$container" 2>/dev/null || echo missing)
    if [ "$state" != running ]; then pending+=("$container($state)"); continue; fi
    spec=$(jq -c --arg c "$container" '.workloads[].containers[] | select(.container == $c) | .readiness' "$plan")
    [ "$spec" = null ] && continue
    why=$(probe "$pod" "$container" "$spec") || pending+=("$container(${why:-not ready})")
  done < <(jq -r '.workloads[] | .pod as $p | .containers[] | "\($p) \(.container)"' "$plan")
  [ ${#pending[@]} -gt 0 ] || break
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "FAIL: not ready after 150 s: ${pending[*]}"
    exit 1
  fi
  sleep 2
done
log "every pod ready: $(jq -r '[.workloads[].name] | join(", ")' "$plan")"
step "running every liveness probe (as the kubelet: failing means failureThreshold failures in a row)"
while read -r pod container; do
  spec=$(jq -c --arg c "$container" '.workloads[].containers[] | select(.container == $c) | .liveness' "$plan")
  [ "$spec" = null ] && { log "FAIL: $container has no liveness probe"; exit 1; }
  tries=$(jq -r '.failureThreshold // 3' <<<"$spec")
  for try in $(seq 1 "$tries"); do
    why=$(probe "$pod" "$container" "$spec") && break
    [ "$try" -lt "$tries" ] || { log "FAIL: liveness of $container failed $tries times in a row: $why"; exit 1; }
    sleep 2
  done
done < <(jq -r '.workloads[] | .pod as $p | .containers[] | "\($p) \(.container)"' "$plan")
log "every liveness probe passes"

# ---------------------------------------------------------------- clients
write_expected "$work/expected.json"
# attach NAME KEYNAME: `isobar attach` in a container on the network, CURVE keys given as Z85 values.
attach() {
  $podman run --rm -i --name "$prefix-$1" --network "$network" \
    -e ISOBAR_PUB=tcp://broker:5559 -e ISOBAR_SUB=tcp://broker:5560 \
    -e ISOBAR_CURVE_SERVERKEY="$(cat "$work/keys/broker.pub")" -e ISOBAR_CURVE_SECRETKEY="$(cat "$work/keys/$2.key")" \
    --entrypoint /usr/local/bin/isobar "$image" attach --client "$1" --plain --drain 120 \
    >"$work/$1.ndjson" 2>"$work/$1.err" <<<"$VIEWPORT_JSON"
}
gateway_ip=$(pod_ip "$prefix-gateway-pod-0")
step "clients: WebSocket on ws://$gateway_ip:8080/ws; attach 'ci' (allowlisted key) and 'intruder' (key not allowed) on the network"
attach ci ci & ci_pid=$!
# A second client in the other filter shard's partitions (ci: partition 33, shard 1 of 2; ci-2: 34, shard 0).
attach ci-2 ci & ci2_pid=$!
attach intruder intruder & intruder_pid=$!
# The web map's files, with room for a loaded machine (a debug gateway sharing 2 cores with builds and a
# soak, load average 14, once took over 5 s for one file: compose-ws-check.py's own limit). Times logged.
times=()
for f in /:leaflet/leaflet.js /web/app.mjs: /web/isobar.css: /leaflet/leaflet.js:Leaflet \
         /leaflet/leaflet.markercluster.js: /countries.geojson:FeatureCollection; do
  path=${f%%:*} needle=${f#*:}
  t=$(curl -fsS --max-time 30 -o "$work/file" -w '%{time_total}' "http://$gateway_ip:8080$path") \
    || { log "FAIL: GET $path from the gateway pod"; exit 1; }
  times+=("$path ${t}s")
  [ -s "$work/file" ] && grep -qF "$needle" "$work/file" || { log "FAIL: GET $path: empty or without '$needle'"; exit 1; }
done
log "gateway pod serves the web map's files: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g')"
# The WebSocket client of scripts/compose-ws-check.py (its check_client: frames applied by version, a gap
# answered with resync, passes once it holds exactly the expected ids for 2 s, fails after 90 s).
$py - "$gateway_ip:8080" "$work/expected.json" "$work/ws.ndjson" <<'PY' 2>&1 | sed 's/^compose-test: /kube-test: /' >&2 \
  || { log "FAIL: the WebSocket client on the gateway pod (frames: $work/ws.ndjson)"; exit 1; }
import asyncio, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("compose_ws_check", "scripts/compose-ws-check.py")
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
address, expected_path, out_path = sys.argv[1:4]
with open(expected_path) as f:
    expected = set(json.load(f))
try:
    asyncio.run(check.check_client(address, expected, out_path))
except Exception as error:
    check.fail(f"WebSocket ws://{address}/ws: {type(error).__name__}: {error}")
PY
# The forecast stage (forecast.yaml) and the filters' --forecasts: a WebSocket client opens the detail of
# K6V4 (in the initial region); the report must come back with "forecast":{"state":"ok"} and the daily
# points of the sample feed's Open-Meteo fixture, asked for through outlook -> forecast -> filter.
$py - "$gateway_ip:8080" <<'PY' 2>&1 | sed 's/^/kube-test: /' >&2 \
  || { log "FAIL: no forecast in the detail of K6V4 (forecast stage, filter --forecasts)"; exit 1; }
import asyncio, json, sys, time
import websockets
VIEWPORT = {"type": "viewport", "center": {"latitude": 40.924, "longitude": -108.0955},
            "span": {"latitudeDelta": 25, "longitudeDelta": 20}, "day": "today", "field": "temperature"}
async def main(address):
    deadline = time.monotonic() + 90
    async with websockets.connect(f"ws://{address}/ws", open_timeout=10, max_size=None) as ws:
        await ws.send(json.dumps(VIEWPORT))
        states, asked = [], 0
        while time.monotonic() < deadline:
            if time.monotonic() >= asked + 10:  # again every 10 s: the stages may still be joining the bus
                await ws.send(json.dumps({"type": "detail", "id": "K6V4", "day": "today"}))
                asked = time.monotonic()
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=1))
            except asyncio.TimeoutError:
                continue
            if frame.get("type") != "report":
                continue
            state = (frame.get("forecast") or {}).get("state")
            states.append(state)
            if state == "ok":
                days = len(frame.get("daily") or [])
                if days < 1:
                    sys.exit(f"FAIL: report of K6V4 says forecast ok but has no daily points: {json.dumps(frame)[:300]}")
                print(f"detail of K6V4: forecast states {states}, {days} days, {len(frame.get('hourly') or [])} hours")
                return
        sys.exit(f"FAIL: no report of K6V4 with forecast ok within 90 s (states seen: {states})")
asyncio.run(main(sys.argv[1]))
PY
# held_by NAME PID: waits until client NAME holds exactly the expected set, then checks it stays.
held_by() {
  local name=$1 pid=$2 deadline=$(( $(date +%s) + 60 )) got
  while [ "$(state "$work/$name.ndjson")" != "$(cat "$work/expected.json")" ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
      tail -n 5 "$work/$name.err" >&2
      got=$(state "$work/$name.ndjson")
      log "FAIL: client $name holds $(jq length <<<"$got") stations, expected the $EXPECTED_COUNT of the initial region"
      jq -n --argjson got "$got" --slurpfile want "$work/expected.json" '{missing: ($want[0] - $got), unexpected: ($got - $want[0])}' >&2
      exit 1
    fi
    sleep 1
  done
  sleep 2 # late messages
  [ "$(state "$work/$name.ndjson")" = "$(cat "$work/expected.json")" ] || { log "FAIL: client $name's set changed after it held the 85"; exit 1; }
  jq -s -e '[.[] | select(.type == "annotations")] as $a | ([$a[].version] | . == (sort | unique))
            and all($a[].upsert[]?; (.title | type) == "string" and (.coordinate.latitude | type) == "number")' \
    "$work/$name.ndjson" >/dev/null || { log "FAIL: client $name: versions not increasing or an annotation without title/coordinate"; exit 1; }
  log "client $name: $(grep -c '"type":"annotations"' "$work/$name.ndjson") annotations messages, final set = the $EXPECTED_COUNT expected stations"
}
held_by ci "$ci_pid"
held_by ci-2 "$ci2_pid"
# The intruder has been trying as long as ci took; the broker must have refused its key (it logs the
# first refusal of each key), and it must have received nothing in all that time.
intruder_pub=$(cat "$work/keys/intruder.pub")
deadline=$(( $(date +%s) + 30 ))
until $podman logs "$prefix-broker-pod-0-broker" 2>&1 | grep -qF "refused client $intruder_pub"; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    tail -n 5 "$work/intruder.err" >&2
    log "FAIL: the broker did not log refusing the intruder's key $intruder_pub within 30 s"
    exit 1
  fi
  sleep 1
done
$podman rm -f -t 0 "$prefix-ci" "$prefix-ci-2" "$prefix-intruder" >/dev/null 2>&1 || true
wait "$ci_pid" "$ci2_pid" "$intruder_pid" 2>/dev/null || true
if [ -s "$work/intruder.ndjson" ]; then
  log "FAIL: client intruder (key not on the allowlist) received $(wc -l <"$work/intruder.ndjson") lines"
  exit 1
fi
log "client intruder: nothing received; the broker logged 'refused client $intruder_pub'"

# ---------------------------------------------------------------- persist's claim
step "persist's claim holds the SQLite file"
claim=$(jq -r '.workloads[] | select(.name == "persist") | .file' "$plan" | xargs $py -c 'import sys,yaml; d=yaml.safe_load(open(sys.argv[1])); print([v["persistentVolumeClaim"]["claimName"] for v in d["spec"]["template"]["spec"]["volumes"] if "persistentVolumeClaim" in v][0])')
mountpoint=$($podman volume inspect -f '{{.Mountpoint}}' "$claim")
test -s "$mountpoint/isobar.sqlite" || { log "FAIL: $claim has no isobar.sqlite"; exit 1; }
log "claim $claim holds isobar.sqlite ($(stat -c %s "$mountpoint/isobar.sqlite") bytes)"
status=0
