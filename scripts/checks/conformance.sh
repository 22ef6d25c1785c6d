#!/usr/bin/env bash
# The conformance kit (conformance/, `isobar conformance`): Isobar's own filter, format, fetch and
# places pass every vector (the disputed ones too, if any: they record what the binary does today);
# the Python formatter in examples/ passes the vectors of what it implements (English annotations,
# errors, pass-through); a filter with one rule broken (Tests/conformance/exclusive_edges_filter.py:
# viewport edges exclusive) fails, and the runner names the vector that checks the rule; so does a
# places stage without the radius rule (Tests/conformance/no_radius_places.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${ISOBAR_BINARY:-.build/debug/isobar}"
[ -x "$bin" ] || swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -3
run() { "$bin" conformance "$@"; }
run filter --disputed -- "$bin" filter
run format --disputed -- "$bin" format
run fetch --disputed -- "$bin" fetch
run places --disputed -- "$bin" places
run format --only 'formatting-rules-exactly/temperature-en' --only 'formatting-rules-exactly/wind-en' \
  --only 'formatting-rules-exactly/precipitation-en' --only 'formatting-rules-exactly/wind-knots' \
  --only 'formatting-rules-exactly/diff-and-stale' --only 'formatting-rules-exactly/no-snapshot' \
  --only 'lines/*' --only 'errors/*' -- python3 examples/format.py
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if run filter -- python3 Tests/conformance/exclusive_edges_filter.py "$bin" >"$out"; then
  cat "$out"; echo "conformance: the broken filter passed" >&2; exit 1
fi
grep -q '^FAIL filter/client-contract-viewport/edges-inclusive ' "$out" || { cat "$out"; echo "conformance: the broken filter's vector was not named" >&2; exit 1; }
[ "$(grep -c '^FAIL' "$out")" -eq 1 ] || { cat "$out"; echo "conformance: the broken filter failed other vectors too" >&2; exit 1; }
if run places -- python3 Tests/conformance/no_radius_places.py "$bin" >"$out"; then
  cat "$out"; echo "conformance: the places stage without the radius rule passed" >&2; exit 1
fi
grep -q '^FAIL places/places-reverse/radius ' "$out" || { cat "$out"; echo "conformance: the broken places stage's vector was not named" >&2; exit 1; }
[ "$(grep -c '^FAIL' "$out")" -eq 1 ] || { cat "$out"; echo "conformance: the broken places stage failed other vectors too" >&2; exit 1; }
echo "conformance: ok (filter, format, fetch, places pass; examples/format.py passes its vectors; the broken filter fails edges-inclusive, the radius-less places stage fails radius)" >&2
