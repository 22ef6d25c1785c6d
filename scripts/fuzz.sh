#!/usr/bin/env bash
# Builds and runs one libFuzzer target (Fuzz/README.md): scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_ARGS...]
#   TARGET   a file name in Fuzz/Targets/ without .swift (json, lines, feeds, filter, format, client, frame),
#            or `list` to print them
#   SECONDS  how long to fuzz; 0 only builds
#   LIBFUZZER_ARGS  passed to the fuzzer (e.g. -runs=N)
# Builds with swiftc -sanitize=fuzzer,address into .build/fuzz/ (IsobarCore once as a static
# library, rebuilt when its sources change; each target links it). Starts from the committed
# seed corpus Fuzz/corpus/TARGET/ and writes new inputs to .build/fuzz/corpus/TARGET/ (never to
# the committed one). A finding is saved as .build/fuzz/artifacts/TARGET/crash-* (or timeout-*,
# oom-*) and the script exits non-zero; minimise one with
#   .build/fuzz/bin/TARGET -minimize_crash=1 -runs=100000 FILE
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_ARGS...]}
if [ "$target" = list ]; then
  for file in Fuzz/Targets/*.swift; do basename "$file" .swift; done
  exit 0
fi
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_ARGS...]}
shift 2
source_file=Fuzz/Targets/$target.swift
[ -f "$source_file" ] || { echo "fuzz: no target $target (scripts/fuzz.sh list)" >&2; exit 2; }

out=.build/fuzz
# gold warns once per AddressSanitizer symbol it cannot export; nothing to act on.
quiet_linker() { grep -v "Cannot export local symbol '__asan" >&2 || true; }
mkdir -p "$out/core" "$out/bin" "$out/artifacts/$target"
flags=(-parse-as-library -swift-version 6 -sanitize=fuzzer,address -O -g -warnings-as-errors)

# IsobarCore as a static library, rebuilt only when a source (or the flags) changed. A lock
# keeps two runs of this script (the test check, a long run) from building it at once.
core_sources=$(find Sources/IsobarCore -name '*.swift' | sort)
core_hash=$( { echo "${flags[*]}"; cat $core_sources; } | sha1sum | cut -c1-16)
exec 9>"$out/core.lock"
flock 9
if [ "$(cat "$out/core/hash" 2>/dev/null)" != "$core_hash" ]; then
  echo "fuzz: building IsobarCore (about a minute)" >&2
  rm -f "$out/core/hash"
  (cd "$out/core" && nice -n 10 swiftc "${flags[@]}" -emit-library -static -emit-module -module-name IsobarCore \
     $(printf "$PWD/../../../%s " $core_sources) -o libIsobarCore.a) 2>&1 | quiet_linker
  echo "$core_hash" >"$out/core/hash"
fi
flock -u 9

# The target: its file, the shared checks in Fuzz/Support, and any project sources it names on
# a line `// fuzz-sources: PATH...` (for code outside IsobarCore that needs nothing else).
extra=$(sed -n 's|^// fuzz-sources: ||p' "$source_file")
target_hash=$( { echo "$core_hash"; cat "$source_file" Fuzz/Support/*.swift $extra; } | sha1sum | cut -c1-16)
binary=$out/bin/$target
if [ "$(cat "$binary.hash" 2>/dev/null)" != "$target_hash" ]; then
  echo "fuzz: building $target" >&2
  nice -n 10 swiftc "${flags[@]}" -module-name "Fuzz_${target//-/_}" -I "$out/core" -L "$out/core" -lIsobarCore \
    "$source_file" Fuzz/Support/*.swift $extra -o "$binary" 2>&1 | quiet_linker
  echo "$target_hash" >"$binary.hash"
fi
[ "$seconds" -gt 0 ] || exit 0

# An input slower than a second is a finding (a hang), unless the target says otherwise on a
# line `// fuzz-timeout: SECONDS` (and why).
timeout=$(sed -n 's|^// fuzz-timeout: \([0-9]*\).*|\1|p' "$source_file")
args=(-max_total_time="$seconds" -timeout="${timeout:-1}" -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$out/artifacts/$target/")
[ -f "Fuzz/dict/$target.dict" ] && args+=(-dict="Fuzz/dict/$target.dict")
mkdir -p "Fuzz/corpus/$target"
# Swift's own crash handler would race AddressSanitizer's report; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no
# New inputs go to the first directory: FUZZ_CORPUS_DIR, or .build/fuzz/corpus/TARGET, kept
# between runs; the committed seeds are only read.
scratch=${FUZZ_CORPUS_DIR:-$out/corpus/$target}
mkdir -p "$scratch"
exec nice -n 10 "$binary" "${args[@]}" "$@" "$scratch" "Fuzz/corpus/$target"
