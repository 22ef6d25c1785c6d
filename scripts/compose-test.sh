#!/usr/bin/env bash
# End-to-end test of compose.yaml with real containers (podman + podman-compose; no Docker engine
# needed): installs what is missing, makes the local base image once (debootstrap + podman import),
# puts the binary for the image in .build-compose/ (by default it builds the static release binary that
# ships; ISOBAR_COMPOSE_BINARY=debug takes the .build/debug/isobar scripts/test.sh built, with the Swift
# runtime libraries ldd says it needs from the toolchain), validates compose.yaml against the compose
# spec, brings the stack up from Containerfile.prebuilt under a unique project name, checks that the
# image resolves every shared library, waits for the healthchecks, attaches a client inside the compose
# network (and one from the host through the 127.0.0.1-published broker ports; 'ci' and 'ci-host' are
# served by different filter shards), checks that each ends up holding exactly the 85 stations of the
# initial region, waits for the gateway's /healthz, fetches
# the web map's files and runs a WebSocket client on the published gateway port that must end up
# holding the same 85 (scripts/compose-ws-check.py), and always brings the stack down with its volume.
#
# Environment:
#   ISOBAR_COMPOSE_BINARY  static (default: swift build -c release --static-swift-stdlib, 10-17 min from
#                          scratch on 2 cores), debug (.build/debug/isobar as built; no build here), or
#                          the path of any dynamically linked isobar binary
#   ISOBAR_COMPOSE_CACHE   cache folder outside the repo (default /var/tmp/isobar-compose):
#                          python venv, containers.conf, debootstrap scratch
#   ISOBAR_DEBIAN_MIRROR   mirror for debootstrap (default: the host's first deb.debian.org-like URI)
#   ISOBAR_COMPOSE_KEEP=1  leave the stack running after the test (for debugging; prints how to stop it)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

PODMAN_COMPOSE_VERSION=1.5.0
CHECK_JSONSCHEMA_VERSION=0.33.3
BASE_IMAGE=localhost/isobar-base:bookworm
TEST_IMAGE=localhost/isobar:compose-test
VIEWPORT=40.924,-108.0955,25,20
# EXPECTED_COUNT, write_expected and state: the initial region's set, shared with the other check.
source "$(dirname "${BASH_SOURCE[0]}")/initial-region.sh"

cache="${ISOBAR_COMPOSE_CACHE:-/var/tmp/isobar-compose}"
mkdir -p "$cache" .build-compose
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -E" # -E: podman-compose reads the ISOBAR_* variables below

start=$(date +%s)
step_start=$start
# The first failure is said again as the run's last line: the containers' logs dumped on failure come between.
failure=
log() { echo "compose-test: $*" >&2; case $* in FAIL*) failure=${failure:-$*} ;; esac; }
step() { # step NAME: prints how long the previous step took
  local now; now=$(date +%s)
  log "[$((now - start))s total, +$((now - step_start))s] $*"
  step_start=$now
}

# ---------------------------------------------------------------- tools
step "installing missing tools (apt: podman runc debootstrap jq python3-websockets; pip: podman-compose $PODMAN_COMPOSE_VERSION, check-jsonschema $CHECK_JSONSCHEMA_VERSION)"
[ -x /opt/swift/usr/bin/swift ] && ! command -v swift >/dev/null && export PATH="/opt/swift/usr/bin:$PATH"
bash scripts/deps.sh podman runc debootstrap debian-archive-keyring jq python3 python3-websockets >&2

venv="$cache/venv"
pc="$venv/bin/podman-compose"
cj="$venv/bin/check-jsonschema"
installed_versions() {
  "$venv/bin/python" - <<'EOF' 2>/dev/null
from importlib.metadata import version
print(version("podman-compose"), version("check-jsonschema"))
EOF
}
if [ "$(installed_versions || true)" != "$PODMAN_COMPOSE_VERSION $CHECK_JSONSCHEMA_VERSION" ]; then
  py=python3
  if ! "$py" -m venv --help >/dev/null 2>&1; then
    bash scripts/deps.sh python3-venv >&2
    py=/usr/bin/python3
  fi
  rm -rf "$venv"
  "$py" -m venv "$venv" || { bash scripts/deps.sh python3-venv >&2; /usr/bin/python3 -m venv "$venv"; }
  "$venv/bin/pip" install -q "podman-compose==$PODMAN_COMPOSE_VERSION" "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" >&2
fi

# Podman 4.3 on these VMs (hybrid cgroups, no CAP_SYS_RESOURCE) needs runc and explicit ulimits.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  cat >"$cache/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$cache/containers.conf"
fi
podman="$sudo podman"

# ---------------------------------------------------------------- base image (once per machine)
if $podman image exists "$BASE_IMAGE"; then
  step "base image $BASE_IMAGE exists"
else
  step "creating base image $BASE_IMAGE (debootstrap --variant=minbase bookworm)"
  mirror="${ISOBAR_DEBIAN_MIRROR:-}"
  if [ -z "$mirror" ]; then
    mirror=$(grep -rhoE '(URIs:|^deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
      | grep -v security | head -n 1 | awk '{print $2}' || true)
    mirror="${mirror:-http://deb.debian.org/debian}"
  fi
  (
    flock 9
    if ! $podman image exists "$BASE_IMAGE"; then
      rootfs="$cache/rootfs.$$"
      trap '$sudo rm -rf "$rootfs"' EXIT
      $sudo debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
      # Package lists and downloaded .debs would only bloat every image built on it.
      $sudo rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
      $sudo tar -C "$rootfs" -c . | $podman import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
    fi
  ) 9>"$cache/base.lock"
fi

# ---------------------------------------------------------------- binary (+ its Swift runtime)
# .build-compose/isobar is what the image runs; .build-compose/lib/ holds the Swift runtime libraries it
# links from the toolchain (none for a static binary). Containerfile.prebuilt copies both.
binary_mode="${ISOBAR_COMPOSE_BINARY:-static}"
rm -rf .build-compose/lib
mkdir -p .build-compose/lib
case "$binary_mode" in
static)
  # Its own scratch path: --static-swift-stdlib compiles every module against another resource dir,
  # so sharing .build with `swift build -c release` (scripts/run.sh) would rebuild everything each time.
  scratch=.build-compose/swiftpm
  step "building the static release binary (swift build -c release --static-swift-stdlib --scratch-path $scratch)"
  if ! swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product isobar >.build-compose/swift-build.log 2>&1; then
    grep -vE 'prohibited flag' .build-compose/swift-build.log | tail -n 30 >&2
    log "FAIL: swift build failed (full log: .build-compose/swift-build.log)"
    exit 1
  fi
  src="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/isobar"
  ;;
*)
  # debug: the binary scripts/test.sh (`swift build --build-tests`) has just built; or a path to any
  # dynamically linked isobar. No second build.
  if [ "$binary_mode" = debug ]; then src=.build/debug/isobar; else src=$binary_mode; fi
  step "using the prebuilt binary $src (ISOBAR_COMPOSE_BINARY=$binary_mode) and its Swift runtime"
  [ -x "$src" ] || { log "FAIL: $src does not exist: build it first (swift build), or use ISOBAR_COMPOSE_BINARY=static"; exit 1; }
  # (isobar-bench is another product: its sources do not make isobar stale)
  newer=$(find Sources Package.swift -path Sources/isobar-bench -prune -o -newer "$src" -type f -print 2>/dev/null \
            | head -n 3 | tr '\n' ' ' || true) # || true: find may die of SIGPIPE under pipefail
  [ -z "$newer" ] || log "WARNING: $src is older than $newer(run swift build first to test the current sources)"
  # Exactly the libraries ldd resolves inside the Swift toolchain; everything else (glibc, libstdc++,
  # libzmq, libsqlite3 and theirs) comes from apt in the image.
  # The toolchain's runtime folder is where libswiftCore.so resolves (/opt/swift/usr/lib/swift/linux here).
  ldd_out=$(ldd "$src")
  if grep -q 'not found' <<<"$ldd_out"; then
    grep 'not found' <<<"$ldd_out" >&2
    log "FAIL: $src needs libraries the host does not have (above)"
    exit 1
  fi
  core=$(awk '$1 == "libswiftCore.so" && $2 == "=>" {print $3}' <<<"$ldd_out")
  if [ -n "$core" ]; then
    toolchain_lib=$(dirname "$(readlink -f "$core")")
  else
    log "WARNING: $src does not link libswiftCore.so dynamically (a static binary?): no libraries to add"
    toolchain_lib=/nonexistent
  fi
  libs=$(awk '$2 == "=>" && $3 ~ /^\// {print $3}' <<<"$ldd_out" | while read -r lib; do
           case "$(readlink -f "$lib")" in "$toolchain_lib"/*) echo "$lib" ;; esac
         done)
  for lib in $libs; do cp -L "$lib" .build-compose/lib/; done
  log "copied $(wc -w <<<"$libs") Swift runtime libraries from $toolchain_lib ($(du -sh .build-compose/lib | cut -f1))"
  ;;
esac
install -m 0755 "$src" .build-compose/isobar
# The places stage's gazetteer for the image (Containerfile.prebuilt); without it the stage runs empty.
rm -rf .build-compose/places && mkdir -p .build-compose/places
[ -f data/places/cities500.txt ] && cp data/places/cities500.txt .build-compose/places/

# ---------------------------------------------------------------- static validation
step "validating compose.yaml against the compose specification"
"$cj" --builtin-schema vendor.compose-spec compose.yaml >&2

# ---------------------------------------------------------------- up
project="isobar-ci-$$-$(date +%s)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# The stack under test uses compose.yaml's defaults (sample feed, imperial, en), whatever the caller set.
unset ISOBAR_TODAY_URL ISOBAR_TOMORROW_URL ISOBAR_FETCH_INTERVAL ISOBAR_SAMPLE_PERIOD ISOBAR_UNITS ISOBAR_LOCALE
export ISOBAR_DOCKERFILE=Containerfile.prebuilt
export ISOBAR_IMAGE="$TEST_IMAGE"
export ISOBAR_HOST_PUB_PORT ISOBAR_HOST_SUB_PORT ISOBAR_HOST_SAMPLE_PORT ISOBAR_GATEWAY_PORT
ISOBAR_GATEWAY_PORT=$(free_port)
ISOBAR_HOST_PUB_PORT=$(free_port)
ISOBAR_HOST_SUB_PORT=$(free_port)
ISOBAR_HOST_SAMPLE_PORT=$(free_port)
compose() { $sudo env CONTAINERS_CONF="$CONTAINERS_CONF" "$pc" -p "$project" -f compose.yaml "$@"; }
work="$repo/.build-compose/$project"
mkdir -p "$work"
old_image=$($podman image inspect -f '{{.Id}}' "$TEST_IMAGE" 2>/dev/null || true)

cids() { # cids [SERVICE]: container ids of this project (of one service)
  local filter=(--filter "label=io.podman.compose.project=$project")
  [ $# -eq 0 ] || filter+=(--filter "label=com.docker.compose.service=$1")
  $podman ps -a -q "${filter[@]}"
}
dump_logs() {
  local c
  for c in $(cids); do
    echo "----- logs of $($podman inspect -f '{{.Name}}' "$c") (last 25 lines)" >&2
    $podman logs --tail 25 "$c" 2>&1 | grep -v 'unable to get systemd connection' | cut -c1-400 >&2 || true
  done
}
status=1
cleanup() {
  set +e
  [ "$status" -eq 0 ] || dump_logs
  $podman rm -f -t 0 "$project-attach" >/dev/null 2>&1
  if [ "${ISOBAR_COMPOSE_KEEP:-}" = 1 ]; then
    log "stack left running; stop it with: $pc -p $project down -v"
  else
    compose down -v -t 5 >"$work/down.log" 2>&1 || { log "down failed:"; tail -n 20 "$work/down.log" >&2; }
    [ -z "$(cids)" ] || log "WARNING: containers of $project are still there"
  fi
  # The previous test image is superseded by this run's build: drop it unless something uses it.
  new_image=$($podman image inspect -f '{{.Id}}' "$TEST_IMAGE" 2>/dev/null)
  [ -z "$old_image" ] || [ "$old_image" = "$new_image" ] || $podman rmi "$old_image" >/dev/null 2>&1
  [ "$status" -eq 0 ] && rm -rf "$work"
  local now; now=$(date +%s)
  if [ "$status" -eq 0 ]; then log "PASS in $((now - start))s"; else echo "compose-test: FAIL after $((now - start))s (work files: $work): ${failure:-see above}" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "podman-compose up -d --build (project $project, $ISOBAR_DOCKERFILE)"
if ! timeout 600 $sudo env CONTAINERS_CONF="$CONTAINERS_CONF" "$pc" -p "$project" -f compose.yaml up -d --build \
    >"$work/up.log" 2>&1; then
  grep -vE 'unable to get systemd connection|level=error msg="Removing timer' "$work/up.log" | tail -n 40 >&2
  log "FAIL: podman-compose up failed (log: $work/up.log)"
  exit 1
fi

# ---------------------------------------------------------------- image
step "checking the image's dynamic linking (ldd /usr/local/bin/isobar inside a container)"
if ! image_ldd=$($podman run --rm --entrypoint ldd "$TEST_IMAGE" /usr/local/bin/isobar 2>&1) \
    || grep -q 'not found' <<<"$image_ldd"; then
  grep 'not found' <<<"$image_ldd" >&2 || tail -n 5 <<<"$image_ldd" >&2
  log "FAIL: the image cannot load isobar: shared libraries missing (above); a debug binary's belong in .build-compose/lib"
  exit 1
fi
log "every shared library found ($(grep -c '=>' <<<"$image_ldd") resolved, $(grep -c /usr/local/lib/isobar/ <<<"$image_ldd" || true) from /usr/local/lib/isobar)"

# ---------------------------------------------------------------- health
step "waiting for every service to run and for the broker and sample-feed healthchecks"
services=(broker sample-feed persist format filter filter-1 fetch gateway)
# No systemd here, so podman does not schedule healthchecks: run them ourselves until they pass.
deadline=$(( $(date +%s) + 90 ))
while :; do
  pending=()
  for s in "${services[@]}"; do
    c=$(cids "$s")
    if [ -z "$c" ] || [ "$($podman inspect -f '{{.State.Running}}' "$c")" != true ]; then
      pending+=("$s(not running)")
    elif [ "$s" = broker ] || [ "$s" = sample-feed ]; then
      $podman healthcheck run "$c" >/dev/null 2>&1 || pending+=("$s(unhealthy)")
    fi
  done
  [ ${#pending[@]} -gt 0 ] || break
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "FAIL: not ready after 90 s: ${pending[*]}"
    exit 1
  fi
  sleep 1
done
network=$($podman inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$(cids broker)" | awk '{print $1}')

# ---------------------------------------------------------------- clients
# The stations the initial region must show: brute force over the fixture (coordinates do not drift).
write_expected "$work/expected.json"
# check_client NAME FILE: the final set equals the expected one, titles are strings and versions increase.
check_client() {
  local name=$1 file=$2 got
  got=$(state "$file")
  if [ "$got" != "$(cat "$work/expected.json")" ]; then
    log "FAIL: client $name holds $(jq length <<<"$got") stations, expected the $EXPECTED_COUNT of the initial region"
    jq -n --argjson got "$got" --slurpfile want "$work/expected.json" \
      '{missing: ($want[0] - $got), unexpected: ($got - $want[0])}' >&2
    return 1
  fi
  jq -s -e '[.[] | select(.type == "annotations")] as $a
            | ([$a[].version] | . == (sort | unique))
              and all($a[].upsert[]?; (.title | type) == "string" and (.coordinate.latitude | type) == "number")' \
    "$file" >/dev/null || { log "FAIL: client $name: versions not increasing or an annotation without title/coordinate"; return 1; }
  log "client $name: $(grep -c '"type":"annotations"' "$file") annotations messages, final set = the $EXPECTED_COUNT expected stations"
}
# wait_for NAME FILE PID: until the client's set is the expected one (or 90 s, or the client exits).
wait_for() {
  local name=$1 file=$2 pid=$3 deadline=$(( $(date +%s) + 90 ))
  while [ "$(state "$file")" != "$(cat "$work/expected.json")" ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
      log "client $name: gave up waiting ($(state "$file" | jq length) stations so far); its stderr:"
      tail -n 20 "$work/$name.err" >&2 || true
      return 0 # check_client reports the failure
    fi
    sleep 1
  done
  sleep 2 # let any late message in, so check_client sees a settled state
}

step "attaching client 'ci' inside the compose network ($network), viewport $VIEWPORT"
$podman run --rm -i --name "$project-attach" --network "$network" \
  -e ISOBAR_PUB=tcp://broker:5559 -e ISOBAR_SUB=tcp://broker:5560 \
  --entrypoint isobar "$TEST_IMAGE" attach --client ci --plain --drain 120 \
  >"$work/ci.ndjson" 2>"$work/ci.err" <<'EOF' &
{"type":"viewport","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"temperature"}
EOF
attach_pid=$!
wait_for ci "$work/ci.ndjson" "$attach_pid"
$podman rm -f -t 0 "$project-attach" >/dev/null 2>&1 || true
wait "$attach_pid" 2>/dev/null || true
check_client ci "$work/ci.ndjson"

step "attaching client 'ci-host' from the host through 127.0.0.1:$ISOBAR_HOST_PUB_PORT/$ISOBAR_HOST_SUB_PORT"
ISOBAR_PUB="tcp://127.0.0.1:$ISOBAR_HOST_PUB_PORT" ISOBAR_SUB="tcp://127.0.0.1:$ISOBAR_HOST_SUB_PORT" \
  .build-compose/isobar attach --client ci-host --viewport "$VIEWPORT" --plain --drain 120 \
  </dev/null >"$work/ci-host.ndjson" 2>"$work/ci-host.err" &
host_pid=$!
wait_for ci-host "$work/ci-host.ndjson" "$host_pid"
kill "$host_pid" 2>/dev/null || true
wait "$host_pid" 2>/dev/null || true
check_client ci-host "$work/ci-host.ndjson"

step "checking persist stored a snapshot in the named volume"
volume=$($podman inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/isobar"}}{{.Name}}{{end}}{{end}}' "$(cids persist)")
[ -n "$volume" ] || { log "FAIL: persist has no volume on /var/lib/isobar"; exit 1; }
mountpoint=$($podman volume inspect -f '{{.Mountpoint}}' "$volume")
$sudo test -s "$mountpoint/isobar.sqlite" || { log "FAIL: $mountpoint/isobar.sqlite (volume $volume) is missing or empty"; exit 1; }
log "volume $volume holds isobar.sqlite ($($sudo stat -c %s "$mountpoint/isobar.sqlite") bytes)"

# ---------------------------------------------------------------- gateway
step "waiting for the gateway healthcheck (GET /healthz: 200 once the pipeline has data)"
deadline=$(( $(date +%s) + 90 ))
until $podman healthcheck run "$(cids gateway)" >/dev/null 2>&1; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "FAIL: gateway not healthy after 90 s; GET /healthz from the host:"
    curl -sS -i --max-time 3 "http://127.0.0.1:$ISOBAR_GATEWAY_PORT/healthz" 2>&1 | head -n 12 >&2 || true
    exit 1
  fi
  sleep 1
done

step "WebSocket client on ws://127.0.0.1:$ISOBAR_GATEWAY_PORT/ws from the host (viewport $VIEWPORT); web map files"
# /usr/bin/python3: Debian's python3-websockets is installed for it (a pyenv python3 may lack it).
/usr/bin/python3 scripts/compose-ws-check.py "127.0.0.1:$ISOBAR_GATEWAY_PORT" "$work/expected.json" "$work/ws.ndjson" \
  || { log "FAIL: the gateway check failed (frames received: $work/ws.ndjson)"; exit 1; }

step "bringing the stack down"
status=0
