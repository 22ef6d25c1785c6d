#!/usr/bin/env bash
# The instruction-count regression gate (issue 32 item 4): the hot paths run once on fixed inputs
# (`isobar-bench counted`: snapshot load, a pan's filter + format, the gateway's relay of each
# message to its WebSocket client, the client's apply, geocode + reverse) under
# `valgrind --tool=callgrind`, and each path's instruction count (the inclusive cost of its
# `counted…` function) is compared with the committed baseline
# (Benchmarks/instructions-debug.txt). Instruction counts do not depend on what else the machine
# runs, so this works on a noisy, shared CI machine where seconds do not.
#
# Fails (a table naming each path and its ratio) when a path costs more than the tolerance (5%)
# over its baseline. A path that got cheaper by more than the tolerance is reported, not failed:
# lock the gain in by updating the baseline.
#
# Update the baseline (a reviewed commit that says why):
#   bash scripts/checks/instructions.sh --update
# Environment: ISOBAR_BENCH_BUILD (default .build/debug), ISOBAR_GATE_BASELINE (default
# Benchmarks/instructions-<config>.txt, config the build directory's name), ISOBAR_GATE_TOLERANCE
# (default 0.05).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${ISOBAR_BENCH_BUILD:-.build/debug}"
config=$(basename "$(readlink -f "$build")")
baseline="${ISOBAR_GATE_BASELINE:-Benchmarks/instructions-$config.txt}"
tolerance="${ISOBAR_GATE_TOLERANCE:-0.05}"
update=no
[ "${1:-}" = "--update" ] && update=yes
bench="$build/isobar-bench"
[ -x "$bench" ] || swift build --product isobar-bench 2>&1 | grep -vE 'prohibited flag' | tail -3
command -v valgrind >/dev/null || { echo "instructions: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The workload's size is part of the baseline: change it only together with the baseline.
args=(counted --stations 2000 --clients 20 --steps 10 --places 2000 --queries 100)
# Valgrind 3.19 cannot read the DWARF 5 of Swift's debug builds ("Possibly corrupted debuginfo
# file"): count a copy without debug info (the symbol table, so the function names, stays).
objcopy --strip-debug "$bench" "$work/isobar-bench"
# Deterministic hashing: Swift's Set and Dictionary otherwise seed their hash per process.
SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
  "$work/isobar-bench" "${args[@]}" >"$work/summary.txt" 2>"$work/valgrind.txt" \
  || { cat "$work/valgrind.txt" >&2; echo "instructions: isobar-bench counted failed under valgrind" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$work/callgrind.out" >"$work/annotate.txt"

# path <- marker function (mangled names contain the function's name).
declare -A marker=([snapshot-load]=countedSnapshotLoad [pan-filter-format]=countedPans
                   [gateway-relay]=countedGatewayRelay [client-apply]=countedClientApply
                   [geocode-reverse]=countedGeocodeReverse)
paths=(snapshot-load pan-filter-format gateway-relay client-apply geocode-reverse)
declare -A measured
for path in "${paths[@]}"; do
  # The function itself (its mangled name ends in F), not its closures (fU_, fU0__, ...).
  count=$(awk -v fn="[0-9]${marker[$path]}y[^ ]*F \\[" '$0 ~ fn { gsub(/,/, "", $1); print $1; exit }' "$work/annotate.txt")
  [ -n "$count" ] || { echo "instructions: no cost found for $path (${marker[$path]}) in callgrind's output" >&2; exit 1; }
  measured[$path]=$count
done

if [ "$update" = yes ]; then
  {
    echo "# Instruction counts of the hot paths (scripts/checks/instructions.sh), $config build."
    echo "# Update with: bash scripts/checks/instructions.sh --update (a reviewed commit that says why)."
    echo "# workload: isobar-bench ${args[*]}"
    sed 's/^/# output /' "$work/summary.txt"
    for path in "${paths[@]}"; do echo "$path ${measured[$path]}"; done
  } >"$baseline"
  echo "instructions: baseline written to $baseline" >&2
  cat "$baseline" >&2
  exit 0
fi

[ -f "$baseline" ] || { echo "instructions: no baseline $baseline (make one: bash scripts/checks/instructions.sh --update)" >&2; exit 1; }
failed=0
printf '| %-18s | %16s | %16s | %6s | %-10s |\n' path baseline measured ratio verdict >"$work/table.txt"
for path in "${paths[@]}"; do
  base=$(awk -v p="$path" '$1 == p { print $2 }' "$baseline")
  [ -n "$base" ] || { echo "instructions: $path has no baseline in $baseline (run with --update)" >&2; exit 1; }
  read -r ratio verdict < <(awk -v m="${measured[$path]}" -v b="$base" -v t="$tolerance" 'BEGIN {
    r = m / b; v = r > 1 + t ? "SLOWER" : (r < 1 - t ? "faster" : "ok"); printf "%.3f %s\n", r, v }')
  [ "$verdict" = SLOWER ] && failed=1
  printf '| %-18s | %16s | %16s | %6s | %-10s |\n' "$path" "$base" "${measured[$path]}" "$ratio" "$verdict" >>"$work/table.txt"
done
cat "$work/table.txt" >&2
if ! diff <(grep '^# output ' "$baseline" | sed 's/^# output //') "$work/summary.txt" >"$work/output.diff"; then
  echo "instructions: note: the workload's output differs from the baseline's (the paths do different work, e.g. a formatter change):" >&2
  cat "$work/output.diff" >&2
  echo "instructions: if that is intended, re-baseline: bash scripts/checks/instructions.sh --update" >&2
fi
if [ "$failed" -ne 0 ]; then
  echo "instructions: FAILED: a path costs more than $(awk -v t="$tolerance" 'BEGIN { print t * 100 }')% over its baseline ($baseline, $config build)" >&2
  echo "instructions: if the cost is intended, update the baseline in a commit that says why: bash scripts/checks/instructions.sh --update" >&2
  exit 1
fi
echo "instructions: ok (${#paths[@]} paths within $(awk -v t="$tolerance" 'BEGIN { print t * 100 }')% of $baseline)" >&2
