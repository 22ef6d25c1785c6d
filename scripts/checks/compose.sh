#!/usr/bin/env bash
# compose.yaml end to end with podman-compose (scripts/compose-test.sh); ISOBAR_SKIP_COMPOSE=1 skips it.
# Under scripts/test.sh the image takes the debug binary the test run has just built (.build/debug/isobar,
# plus its Swift runtime libraries) instead of building a second, static release binary (10-17 min):
# this checks compose.yaml, the image and the processes, not the release build. ISOBAR_COMPOSE_BINARY=static
# tests the image that ships.
if [ "${ISOBAR_SKIP_COMPOSE:-}" = 1 ]; then echo "compose check: SKIPPED (ISOBAR_SKIP_COMPOSE=1); the compose stack was not tested" >&2; exit 0; fi
export ISOBAR_COMPOSE_BINARY="${ISOBAR_COMPOSE_BINARY:-debug}"
start=$(date +%s)
status=0
bash "$(dirname "$0")/../compose-test.sh" || status=$?
echo "compose check: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s (ISOBAR_COMPOSE_BINARY=$ISOBAR_COMPOSE_BINARY)" >&2
exit "$status"
