#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, runs the Swift test suites (unit, bus and
# process tests with real libzmq, SQLite, HTTP and processes), then the shell checks in
# scripts/checks/ (pipes, plugins in other languages). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build --build-tests 2>&1 | grep -vE 'prohibited flag' | tail -5
status=0
# Each run has a deadline (scripts/swift-test-run.sh), 3-60 times what it takes here: one that hangs
# is stopped, says which tests were running with every thread's backtrace, and runs once more,
# instead of eating CI's whole budget in silence (the process tests hung once in CI, stop 38).
# The HTTP tests run on their own: their 1-second request timeouts are part of what they check,
# and the process tests (dozens of real processes on 2 cores) would starve them.
bash scripts/swift-test-run.sh .build/test-net.log 600 --filter IsobarNetTests || status=$?
# The gateway's process tests run on their own too: each drives real WebSocket clients against
# real processes with a few seconds' deadlines, which the process tests' load would starve.
bash scripts/swift-test-run.sh .build/test-gateway.log 1200 --filter IsobarGatewayTests || status=$?
bash scripts/swift-test-run.sh .build/test.log 1800 --skip IsobarNetTests --skip IsobarGatewayTests --skip SupervisorTests || status=$?
# The supervisor's tests run on their own: its restarts are async tasks on the cooperative pool,
# which the blocking process tests above hold (both of its threads on 2 cores) for seconds at a time.
bash scripts/swift-test-run.sh .build/test-supervisor.log 600 --filter SupervisorTests || status=$?
[ "$status" -eq 0 ] || { echo "test: swift test failed (status $status); full logs in .build/test-net.log, .build/test-gateway.log, .build/test.log and .build/test-supervisor.log" >&2; exit "$status"; }
for check in scripts/checks/*.sh; do
  [ -e "$check" ] || continue
  echo "test: $check" >&2
  began=$SECONDS
  bash "$check"
  echo "test: $check passed in $(( SECONDS - began )) s" >&2
done
echo "test: all passed" >&2
