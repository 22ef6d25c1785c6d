#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, runs the Swift test suites (unit, bus and
# process tests with real libzmq, SQLite, HTTP and processes), then the shell checks in
# scripts/checks/ (pipes, plugins in other languages). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build --build-tests 2>&1 | grep -vE 'prohibited flag' | tail -5
status=0
swift test --skip-build >.build/test.log 2>&1 || status=$?
grep -E '✘|error:|Fatal|Test run|Executed .* tests' .build/test.log | tail -40 || true
[ "$status" -eq 0 ] || { echo "test: swift test failed (status $status); full log in .build/test.log" >&2; exit "$status"; }
for check in scripts/checks/*.sh; do
  [ -e "$check" ] || continue
  echo "test: $check" >&2
  bash "$check"
done
echo "test: all passed" >&2
