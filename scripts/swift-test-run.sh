#!/usr/bin/env bash
# Runs one `swift test --skip-build` invocation with a deadline, so that a test run that hangs
# fails with a diagnosis instead of eating the whole CI budget in silence.
#
#   bash scripts/swift-test-run.sh LOG SECONDS [swift test arguments...]
#
# The run's output goes to LOG. Its summary lines are printed when it ends. If it is still running
# after SECONDS, this prints what it was doing: the tests that started and did not end (from the
# Swift Testing lines in LOG), every thread's backtrace in the test process (gdb, when ptrace is
# allowed), and the processes it had started; then it stops the run (SIGTERM to its session,
# SIGKILL 10 s later), keeps LOG as LOG.hang, and runs it once more from the start with the same
# deadline. A hang is a defect and is reported as one ("HANG" on stderr, with the diagnosis), but
# one seen once in hundreds of runs must not cost CI its whole budget: the rerun decides the
# status, and a second hang exits 124. A failed test is never rerun: the run's own status is
# returned.
set -uo pipefail
log=$1 seconds=$2
shift 2

# The tests that started and did not end, from LOG. Swift Testing writes "◇ Test NAME started."
# and then "✔ Test NAME passed ...", "✘ Test NAME failed ..." or "➜ Test NAME skipped ...".
unfinished() {
  python3 - "$log" <<'PY'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"^◇ Test (.+?) started\.$", line.rstrip("\n"))
    if m:
        if m.group(1) != "run":  # "◇ Test run started." is the run's own line
            started.append(m.group(1))
        continue
    m = re.match(r"^\S+ Test (.+?) (passed|failed|skipped|recorded)", line)
    if m:
        ended.add(m.group(1))
running = [name for name in started if name not in ended]
print(f"swift-test-run: {len(started)} tests started, {len(running)} not ended:")
for name in running:
    print(f"  {name}")
PY
}

# What a hung run is doing: its unfinished tests, the end of its log, its test process's threads,
# its processes.
diagnose() {
  local runner=$1 pid args
  unfinished
  echo "swift-test-run: the last 60 lines of $log:"
  tail -n 60 "$log"
  # The test process is the xctest bundle (or the package's test runner) below `swift test`.
  for pid in $(pgrep -s "$runner"); do
    args=$( (tr '\0' ' ' <"/proc/$pid/cmdline") 2>/dev/null) || continue
    case "$args" in
      *.xctest*|*PackageTests*)
        echo "swift-test-run: threads of $pid ($args):"
        timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt 25' 2>&1 | grep -E '^(Thread|#)' | head -400
        ;;
    esac
  done
  echo "swift-test-run: processes of the run:"
  ps -o pid,ppid,etime,stat,args -s "$runner"
}

# One run of the command: its status, or 124 after a hang (diagnosed, then stopped).
attempt() {
  # A session of its own, so that the run and every process it started (each stage leads a process
  # group of its own) stop together. Line-buffered, so that the log is current when it hangs.
  setsid stdbuf -oL -eL swift test --skip-build "$@" >"$log" 2>&1 &
  local runner=$!
  # `tail --pid` returns when the run ends; `timeout` bounds the wait. No polling.
  if timeout "$seconds" tail --pid="$runner" -f /dev/null; then
    wait "$runner"
    local status=$?
    grep -E '✘|error:|Fatal|Test run with' "$log" | tail -40 || true
    return "$status"
  fi
  echo "swift-test-run: HANG: 'swift test $*' still running after $seconds s: stopping it (log: $log)" >&2
  diagnose "$runner" 2>&1 | tee "$log.diagnosis" >&2
  pkill -TERM -s "$runner"
  timeout 10 tail --pid="$runner" -f /dev/null
  pkill -KILL -s "$runner"
  wait "$runner" 2>/dev/null
  return 124
}

attempt "$@"
status=$?
[ "$status" -eq 124 ] || exit "$status"
mv "$log" "$log.hang"
echo "swift-test-run: HANG in 'swift test $*' (diagnosis above, in $log.diagnosis and $log.hang): running it once more" >&2
attempt "$@"
status=$?
[ "$status" -ne 124 ] || echo "swift-test-run: HANG again in 'swift test $*': failing" >&2
exit "$status"
