#!/usr/bin/env bash
# Runs every fuzz target (Fuzz/README.md) for a few seconds from its committed seeds, so the
# targets build and their invariants hold as the code changes. Fails on any finding (crash,
# broken invariant, input slower than a second, memory over the limit) and names the file that
# reproduces it. FUZZ_CHECK_SECONDS sets the time per target (default 5). About 1 minute with
# the binaries built; 2 min 8 s at load 12 with the targets rebuilt, and 1-2 min more when
# IsobarCore changed (it is compiled with the sanitizers into .build/fuzz/core).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_CHECK_SECONDS:-5}
log_dir=.build/fuzz/check
mkdir -p "$log_dir"
status=0
for target in $(bash scripts/fuzz.sh list); do
  bash scripts/fuzz.sh "$target" 0
  scratch=$(mktemp -d)
  artifacts=.build/fuzz/artifacts/$target
  before=$(ls "$artifacts" 2>/dev/null | wc -l)
  # A 10 s timeout here, not the long runs' 1 s: libFuzzer's timeout is wall-clock, and on a
  # loaded CI machine a 5 ms input has taken over a second (RELIABILITY.md, "Fuzzing").
  if FUZZ_CORPUS_DIR=$scratch bash scripts/fuzz.sh "$target" "$seconds" -timeout=10 >"$log_dir/$target.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log_dir/$target.log")
    echo "fuzz check: $target: ${runs:-?} inputs in ${seconds} s, no finding" >&2
  else
    status=1
    echo "fuzz check: $target FAILED; log $log_dir/$target.log" >&2
    grep -E 'invariant broken|ERROR:|SUMMARY|Test unit written' "$log_dir/$target.log" | head -8 >&2 || true
  fi
  rm -rf "$scratch"
  [ "$(ls "$artifacts" 2>/dev/null | wc -l)" -eq "$before" ] || status=1
done
[ "$status" -eq 0 ] || { echo "fuzz check: a finding; reproduce with .build/fuzz/bin/TARGET FILE (Fuzz/README.md)" >&2; exit 1; }
