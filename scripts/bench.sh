#!/usr/bin/env bash
# Builds release and runs every benchmark, printing the tables that go into BENCHMARKS.md.
#   bash scripts/bench.sh [RUNS]        (default 5 runs each; median, min and max are reported)
# Env: ISOBAR_BENCH_OUT=FILE also saves the tables; ISOBAR_BENCH_ONLY="latency dense" runs a subset;
# ISOBAR_BENCH_BIN=DIR uses already built isobar and isobar-bench from DIR (no build: on a shared
# machine the SwiftPM build lock can queue behind other builds for minutes).
# isobar-bench stops every process it starts when it ends (or on Ctrl-C/SIGTERM); ports are fresh loopback ones.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
out="${ISOBAR_BENCH_OUT:-/dev/null}"
only="${ISOBAR_BENCH_ONLY:-bus-hop pipe-filter latency clients client-apply dense find memory fetch gateway up}"
bin="${ISOBAR_BENCH_BIN:-}"
if [ -z "$bin" ]; then
  bash scripts/deps.sh >/dev/null
  swift build -c release --product isobar 2>&1 | grep -vE 'prohibited flag|unhandled' | tail -1
  swift build -c release --product isobar-bench 2>&1 | grep -vE 'prohibited flag|unhandled' | tail -1
  bin=.build/release
fi
bench="$bin/isobar-bench"
work=$(mktemp -d)
data="$work/stations-1m.ndjson"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

{
  echo "## Machine"
  echo "nproc: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); memory: $(free -g | awk '/Mem:/ {print $2}') GiB; $(swift --version 2>&1 | head -1); libzmq $(pkg-config --modversion libzmq); jq $(jq --version); load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$out"

step() {  # step NAME ARGS...: one benchmark, bounded in time
  local name=$1; shift
  case " $only " in *" $name "*) ;; *) return 0 ;; esac
  echo "\$ isobar-bench $name $*" | tee -a "$out"
  timeout 3600 "$bench" "$name" "$@" --isobar "$bin/isobar" | tee -a "$out" || echo "bench: $name failed (status $?)" | tee -a "$out"
}

"$bench" gen --count 1000000 --output "$data" | tee -a "$out"
step bus-hop --runs "$runs"
step pipe-filter --runs "$runs" --file "$data"
step latency --runs "$runs"
step clients --runs "$runs" --steps 60                                   # users jumping around the map
step clients --runs "$runs" --steps 60 --pan-step 0.1 --zoom-step 1.1   # fingers on the glass: pans and pinches in progress
step clients --runs "$runs" --steps 60 --chain-format                    # jumping, the formatter chained in the filter (up --chain-format)
step clients --runs "$runs" --steps 60 --pan-step 0.1 --zoom-step 1.1 --chain-format
step client-apply --runs "$runs"                                        # the client library alone, in process
step clients --runs "$runs" --steps 60 --pan-step 0.1 --zoom-step 1.1 --idle 99000              # 100,000 connected (issue 15)
step clients --runs "$runs" --steps 60 --pan-step 0.1 --zoom-step 1.1 --idle 99000 --filters 4  # the same on 4 filter shards
step dense --runs "$runs"
step find --runs "$runs"                                                # nearest and search: 1M in process, 100,000 through the pipeline
step memory --runs "$runs" --file "$data"
step fetch --runs "$runs" --feed "$work/onx-1m.json"                   # isobar fetch of a 1M-station onX feed vs json.load
step gateway --runs "$runs" --idle 9000 --panning 1000 --stations 100000   # WebSocket clients through the gateway

# `isobar up --sample` (the default layout) on fresh ports: threads (the sum of /proc/PID/task over
# up and its descendants) once the places stage has loaded and the first snapshot is in, then
# each process's CPU (utime + stime of /proc/PID/stat) over a 60 s window with no client.
up_idle() {
  case " $only " in *" up "*) ;; *) return 0 ;; esac
  local p=$((20000 + RANDOM % 20000)) hz up t0 t1 total=0 pids q
  hz=$(getconf CLK_TCK)
  ISOBAR_PUB=tcp://127.0.0.1:$p ISOBAR_SUB=tcp://127.0.0.1:$((p + 1)) setsid "$bin/isobar" up --sample --sample-port $((p + 2)) \
    --gateway 127.0.0.1:$((p + 3)) --data-dir "$work/up-data" >"$work/up.log" 2>&1 &
  up=$!
  for _ in $(seq 1 300); do grep -q "loaded .* places" "$work/up.log" && break; sleep 1; done
  sleep 20
  descendants() { echo "$1"; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do descendants "$c"; done; }
  pids=$(descendants $up)
  declare -A before
  for q in $pids; do total=$((total + $(ls /proc/$q/task | wc -l))); before[$q]=$(awk '{print $14 + $15}' /proc/$q/stat); done
  t0=$(date +%s.%N); sleep 60; t1=$(date +%s.%N)
  {
    echo "\$ isobar up --sample: $total threads in $(echo $pids | wc -w) processes; idle CPU over 60 s, % of one core (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    for q in $pids; do
      awk -v d=$(( $(awk '{print $14 + $15}' /proc/$q/stat) - ${before[$q]} )) -v hz="$hz" -v s="$(echo "$t1 - $t0" | bc)" \
        -v n="$(tr '\0' ' ' </proc/$q/cmdline | awk '{ sub(".*/", "", $1); print $1 " " $2 }')" 'BEGIN { printf "  %-16s %5.2f\n", n, d / hz / s * 100 }'
    done
  } | tee -a "$out"
  kill -TERM $up; wait $up 2>/dev/null || true
}
up_idle
