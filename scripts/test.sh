#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, runs the Swift test suites (unit, bus and
# process tests with real libzmq, SQLite, HTTP and processes), then the shell checks in
# scripts/checks/ (pipes, plugins in other languages). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build --build-tests 2>&1 | grep -vE 'prohibited flag' | tail -5
status=0
# The HTTP tests run on their own: their 1-second request timeouts are part of what they check,
# and the process tests (dozens of real processes on 2 cores) would starve them.
swift test --skip-build --filter IsobarNetTests >.build/test-net.log 2>&1 || status=$?
grep -E '✘|error:|Fatal|Test run' .build/test-net.log | tail -20 || true
# The gateway's process tests run on their own too: each drives real WebSocket clients against
# real processes with a few seconds' deadlines, which the process tests' load would starve.
swift test --skip-build --filter IsobarGatewayTests >.build/test-gateway.log 2>&1 || status=$?
grep -E '✘|error:|Fatal|Test run' .build/test-gateway.log | tail -20 || true
swift test --skip-build --skip IsobarNetTests --skip IsobarGatewayTests --skip SupervisorTests >.build/test.log 2>&1 || status=$?
grep -E '✘|error:|Fatal|Test run' .build/test.log | tail -40 || true
# The supervisor's tests run on their own: its restarts are async tasks on the cooperative pool,
# which the blocking process tests above hold (both of its threads on 2 cores) for seconds at a time.
swift test --skip-build --filter SupervisorTests >.build/test-supervisor.log 2>&1 || status=$?
grep -E '✘|error:|Fatal|Test run' .build/test-supervisor.log | tail -20 || true
[ "$status" -eq 0 ] || { echo "test: swift test failed (status $status); full logs in .build/test-net.log, .build/test-gateway.log, .build/test.log and .build/test-supervisor.log" >&2; exit "$status"; }
for check in scripts/checks/*.sh; do
  [ -e "$check" ] || continue
  echo "test: $check" >&2
  began=$SECONDS
  bash "$check"
  echo "test: $check passed in $(( SECONDS - began )) s" >&2
done
echo "test: all passed" >&2
