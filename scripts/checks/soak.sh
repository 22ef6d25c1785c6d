#!/usr/bin/env bash
# The soak's one-minute version in the test command (scripts/soak.sh): the whole pipeline under
# `isobar up` with 20,000 stations changing every 30 s, 90 bus + 10 WebSocket clients panning and
# idling (one slow, one leaving mid-update), a kill -9 of a random process every 10 s and one feed
# fault; then every client's set must equal brute force and the store pass integrity_check.
# The 30-minute run with 1,000 clients is `bash scripts/soak.sh 30 100000 900 100` (RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
ISOBAR_SOAK_SKIP_BUILD=1 bash scripts/soak.sh 1 20000 90 10
echo "soak check: passed in $((SECONDS - start)) s" >&2
