#!/usr/bin/env bash
# PROTOCOL.md's "Clustering, exactly", checked: Tests/reference/cluster_reference.py (written from
# the document alone) must agree with the real filter, id for id and value for value, on 4,000
# random viewports (antimeridian, poles, spans from 1e-6° to over 360°, limits 1..800) over the
# 5,634 world stations with seeded weather (nulls, calm, 0/360 directions). Prints the first
# differing viewport and exits 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${ISOBAR_BINARY:-.build/debug/isobar}"
[ -x "$bin" ] || { echo "protocol-reference: $bin not found (swift build, or set ISOBAR_BINARY)" >&2; exit 1; }
exec python3 Tests/reference/protocol_check.py "$bin" --viewports "${REFERENCE_VIEWPORTS:-4000}" --seed "${REFERENCE_SEED:-11}"
