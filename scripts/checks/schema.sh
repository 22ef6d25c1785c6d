#!/usr/bin/env bash
# Every line the stages write, checked against its JSON Schema (schema/, draft 2020-12, PyPI
# jsonschema): fetch on every feed format's fixtures (several sources, a clamped value, a
# duplicate id, a rejected record, a failing source), filter | format on each feed with viewports,
# selections, nearest/search/favorite/detail requests in several fields, units and locales, a
# lease, a leave, an incomplete snapshot and bad lines (errors); the well-formed requests too.
# Prints the lines validated per type; fails on any invalid line or any type without a schema
# (naming the file to add). Then checks schema/asyncapi.yaml (scripts/schema/check-asyncapi.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
export ISOBAR_BINARY="${ISOBAR_BINARY:-.build/debug/isobar}"
[ -x "$ISOBAR_BINARY" ] || swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -3
source scripts/schema/python.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/schema/corpus.sh "$work"
"$python" scripts/schema/validate.py "$work"/*.ndjson
"$python" scripts/schema/check-asyncapi.py
echo "schema: ok" >&2
