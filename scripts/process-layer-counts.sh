#!/usr/bin/env bash
# Prints the process layer's counts that issue 33 tracks, from the sources as they are (grep, not
# judgement; doc comments excluded), so a before/after is one command:
#   thread sites     places that start a thread (Thread { }, Thread(...), detachNewThread, pthread_create)
#   lock kinds       distinct synchronisation types in use (NSLock, NSCondition, NSLockLike, Mutex, ...)
#   timed polls      waits that wake on a timeout to look at something, or sleeps standing in for an
#                    event (target: zero). Every timed wait is one of these unless it is a timer:
#   timers           waits whose deadline is itself the purpose (a fetch interval, a backoff, a
#                    teardown grace, a forecast refresh, a measurement window, a tick schedule).
#                    The rule, mechanical: a timed wait (Thread.sleep, usleep, Task.sleep, .sleep(for:,
#                    wait(timeout:), receiveMessage(timeout:), a poll interval or timeout, C poll(2)
#                    with a timeout; declarations and a wrapper passing its own `timeout: timeout` on not counted) is a timer when
#                      - it is an async `Task.sleep`/`.sleep(for:` (it holds no thread and a
#                        cancellation ends it) that is not the only statement of a loop (`while X {
#                        sleep }`, `for ... where X { sleep }`: that wakes to look at X, a poll), or
#                      - its line, or the line above, says `// timer:` and why (a blocking wait with a
#                        deadline that is the purpose and that a stop can end, e.g. StopFlag.wait);
#                    everything else (a blocking sleep, a wait with a timeout in a loop) is a timed poll.
#   type lists       files that spell out three or more client message types as string literals
#                    (a message's own `"type":"viewport"`, as in a help text's example line, is not
#                    a list and is not counted)
#   type tables      files that list message types for routing: a literal list of three or more
#                    type names (subscriptions, admission, topics), a length switch over type names,
#                    or rows of the registry (MessageType("...")). Target: one, the registry.
# Usage: bash scripts/process-layer-counts.sh [--list] [--compare REV]
#   --list prints every hit under its count; --compare REV prints REV's counts ("before", from
#   `git archive REV`) beside the working tree's ("after").
set -euo pipefail
cd "$(dirname "$0")/.."
list=; compare=
while [ $# -gt 0 ]; do
  case $1 in
    --list) list=--list; shift ;;
    --compare) compare=${2:?--compare needs a revision}; shift 2 ;;
    *) echo "usage: $0 [--list] [--compare REV]" >&2; exit 2 ;;
  esac
done
if [ -n "$compare" ]; then
  before=$(mktemp -d); trap 'rm -rf "$before"' EXIT
  git archive "$compare" Sources Web scripts/process-layer-counts.sh | tar -x -C "$before"
  cp "$0" "$before/scripts/process-layer-counts.sh"
  printf '%-14s %8s %8s\n' "" before after
  paste <(bash "$before/scripts/process-layer-counts.sh") <(bash "$0") | awk -F'\t' '{ n = split($1, b, /  +/); split($2, a, /  +/); printf "%-14s %8s %8s\n", b[1], b[2], a[2] }'
  exit 0
fi
code() { grep -rnE "$1" Sources --include=*.swift | grep -vE '^[^:]+:[0-9]+:\s*//' || true; }
show() { local title=$1 hits=$2; printf '%-14s %s\n' "$title" "$(printf '%s' "$hits" | grep -c . || true)"; [ "$list" = --list ] && [ -n "$hits" ] && printf '%s\n' "$hits" | sed 's/^/    /'; return 0; }

show "thread sites" "$(code 'Thread\.detachNewThread|Thread \{|Thread\(block|= Thread\(|pthread_create')"
kinds=$(code '\b(NSLock|NSRecursiveLock|NSCondition|NSLockLike|DispatchSemaphore|DispatchGroup|Mutex|pthread_mutex_t|os_unfair_lock)\b' \
  | grep -oE '\b(NSLock|NSRecursiveLock|NSCondition|NSLockLike|DispatchSemaphore|DispatchGroup|Mutex|pthread_mutex_t|os_unfair_lock)\b' | sort | uniq -c | sort -rn)
show "lock kinds" "$(printf '%s' "$kinds" | awk '{print $2 " (" $1 " uses)"}')"
waits=$(code 'Thread\.sleep|usleep\(|Task\.sleep|\.sleep\(for:|timeout: [^)]*pollInterval|\.(wait|block)\((readable: [^,]+, )?timeout:|receiveMessage\(timeout:|timeout: \.(milli)?seconds|[^._A-Za-z]poll\(&[^,]+,[^,]+, *[^ -][^)]*\)' \
  | grep -vE '^[^:]+:[0-9]+:\s*(public |private |internal |static )*func |timeout: timeout\b' || true)
polls=; timers=
while IFS= read -r hit; do
  [ -n "$hit" ] || continue
  file=${hit%%:*}; rest=${hit#*:}; n=${rest%%:*}; text=${rest#*:}
  above=$(sed -n "$((n > 1 ? n - 1 : 1))p" "$file")
  kind=poll
  if printf '%s\n%s' "$text" "$above" | grep -q '// timer:'; then
    kind=timer
  elif printf '%s' "$text" | grep -qE 'Task\.sleep|\.sleep\(for:'; then
    kind=timer
    # The only statement of a loop: the line above opens it, the line below closes it (or one line).
    below=$(sed -n "$((n + 1))p" "$file")
    if printf '%s' "$text" | grep -qE '^\s*(while|for|repeat)\b.*\{.*sleep.*\}' \
       || { printf '%s' "$above" | grep -qE '^\s*(while|for|repeat)\b.*\{\s*$' && printf '%s' "$below" | grep -qE '^\s*\}'; }; then
      kind=poll
    fi
  fi
  if [ $kind = poll ]; then polls+=${polls:+$'\n'}$hit; else timers+=${timers:+$'\n'}$hit; fi
done <<< "$waits"
show "timed polls" "$polls"
show "timers" "$timers"
types='"(viewport|select|resync|nearest|search|favorite|detail|geocode|reverse|leave)"'
files=$(grep -rlE "$types" Sources Web --include=*.swift --include=*.mjs --include=*.js 2>/dev/null | while read -r f; do
  n=$(sed -E 's/"type": ?"[a-z]+"//g' "$f" | grep -oE "$types" | sort -u | wc -l); [ "$n" -ge 3 ] && echo "$f ($n types)"; done || true)
show "type lists" "$files"
names='station|snapshot|viewport|select|resync|lease|leave|nearest|search|favorite|detail|spot|geocode|reverse|weather|visible|selection|closest|matches|pinned|particulars|ambient|annotations|callout|place|results|starred|report|locations|vicinity|conditions|error|status|warning|tally'
item="\"($names)/?\""
tables=$(code "$item, *$item, *$item|elementsEqual\(\"($names)\"\.utf8\)|MessageType\(\"($names)\"" | cut -d: -f1 | sort | uniq -c | awk '{print $2 " (" $1 " lines)"}')
show "type tables" "$tables"
