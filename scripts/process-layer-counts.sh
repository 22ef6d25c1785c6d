#!/usr/bin/env bash
# Prints the process layer's counts that issue 33 tracks, from the sources as they are (grep, not
# judgement; doc comments excluded), so a before/after is one command:
#   thread sites     places that start a thread (Thread { }, Thread(...), detachNewThread, pthread_create)
#   lock kinds       distinct synchronisation types in use (NSLock, NSCondition, NSLockLike, Mutex, ...)
#   timed waits      sleeps and fixed poll intervals (Thread.sleep, usleep, Task.sleep, poll timeouts)
#   type lists       files that spell out three or more client message types as string literals
# Usage: bash scripts/process-layer-counts.sh [--list]   (--list prints every hit under its count)
set -euo pipefail
cd "$(dirname "$0")/.."
list=${1:-}
code() { grep -rnE "$1" Sources --include=*.swift | grep -vE '^[^:]+:[0-9]+:\s*//' || true; }
show() { local title=$1 hits=$2; printf '%-14s %s\n' "$title" "$(printf '%s' "$hits" | grep -c . || true)"; [ "$list" = --list ] && [ -n "$hits" ] && printf '%s\n' "$hits" | sed 's/^/    /'; return 0; }

show "thread sites" "$(code 'Thread\.detachNewThread|Thread \{|Thread\(block|= Thread\(|pthread_create')"
kinds=$(code '\b(NSLock|NSRecursiveLock|NSCondition|NSLockLike|DispatchSemaphore|DispatchGroup|Mutex|pthread_mutex_t|os_unfair_lock)\b' \
  | grep -oE '\b(NSLock|NSRecursiveLock|NSCondition|NSLockLike|DispatchSemaphore|DispatchGroup|Mutex|pthread_mutex_t|os_unfair_lock)\b' | sort | uniq -c | sort -rn)
show "lock kinds" "$(printf '%s' "$kinds" | awk '{print $2 " (" $1 " uses)"}')"
show "timed waits" "$(code 'Thread\.sleep|usleep\(|Task\.sleep|pollInterval|wait\(timeout:|timeout: \.milliseconds')"
types='"(viewport|select|resync|nearest|search|favorite|detail|geocode|reverse|leave)"'
files=$(grep -rlE "$types" Sources Web --include=*.swift --include=*.mjs --include=*.js 2>/dev/null | while read -r f; do
  n=$(grep -oE "$types" "$f" | sort -u | wc -l); [ "$n" -ge 3 ] && echo "$f ($n types)"; done || true)
show "type lists" "$files"
