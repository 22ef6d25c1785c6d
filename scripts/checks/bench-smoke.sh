#!/usr/bin/env bash
# Keeps the benchmark program from rotting: every isobar-bench subcommand on a tiny workload
# (a few seconds in all). Asserts only that each runs and that selections and counts agree
# (no message lost, identical filter/jq selections, every client's set the predicted size),
# never timings: BENCHMARKS.md and scripts/bench.sh are where numbers come from.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${ISOBAR_BENCH_BUILD:-.build/debug}"
bench="$build/isobar-bench"
[ -x "$bench" ] || swift build --product isobar-bench 2>&1 | grep -vE 'prohibited flag' | tail -3
[ -x "$build/isobar" ] || swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "bench-smoke: $*" >&2; cat "$work/out.txt" >&2 2>/dev/null || true; exit 1; }
run() { timeout 120 "$bench" "$@" >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; fail "isobar-bench $1 failed"; }; }

run gen --count 3000 --output "$work/s.ndjson"
[ "$(wc -l <"$work/s.ndjson")" -eq 3001 ] || fail "gen: expected 3,001 lines"
jq -e -s 'length == 3001 and .[-1].type == "snapshot" and .[-1].count == 3000 and ([.[:-1][].seq] == [range(3000)])' "$work/s.ndjson" >/dev/null \
  || fail "gen: not a complete snapshot"

run pipe-filter --runs 1 --file "$work/s.ndjson"
grep -q '| identical |' "$work/out.txt" || fail "pipe-filter: selections differ"

run bus-hop --runs 1 --count 5000
awk -F'|' '/->/ { gsub(/ /, "", $4); gsub(/ /, "", $5); if ($4 != "0" || $5 != "yes") bad = 1 } END { exit bad }' "$work/out.txt" \
  || fail "bus-hop: messages lost or out of order"

run latency --runs 1 --sizes 181,3000 --pans 50
awk -F'|' '/^\| [0-9]/ { gsub(/ /, "", $9); if ($9 != "0/0") bad = 1 } END { exit bad }' "$work/out.txt" \
  || fail "latency: wrong sets or timeouts"

run clients --runs 1 --clients 20 --steps 5 --stations 3000
grep -q 'starved (unfinished after 120 s): 0; wrong set sizes: 0; version gaps: 0' "$work/out.txt" || fail "clients: starved or wrong sets"
run clients --runs 1 --clients 20 --steps 5 --stations 3000 --pan-step 0.1 --zoom-step 1.1 --one-at-a-time
grep -q 'starved (unfinished after 120 s): 0; wrong set sizes: 0; version gaps: 0' "$work/out.txt" || fail "clients (small steps, one at a time): starved or wrong sets"

run dense --runs 1 --repeats 2 --stations 3000
grep -q 'through the pipeline' "$work/out.txt" || fail "dense: no pipeline row"

run find --runs 1 --stations 3000 --points 50 --repeats 1 --pipeline-stations 3000 --requests 20
grep -q 'timeouts (5 s): 0' "$work/out.txt" || fail "find: requests through the pipeline unanswered"

run memory --runs 1 --file "$work/s.ndjson"
grep -q 'VmHWM' "$work/out.txt" || fail "memory: no peak"
echo "bench-smoke: ok (gen, pipe-filter, bus-hop, latency, clients, dense, find, memory on tiny inputs)" >&2
