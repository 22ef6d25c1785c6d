#!/usr/bin/env bash
# compose.yaml end to end with podman-compose (scripts/compose-test.sh); ISOBAR_SKIP_COMPOSE=1 skips it.
if [ "${ISOBAR_SKIP_COMPOSE:-}" = 1 ]; then echo "compose check: SKIPPED (ISOBAR_SKIP_COMPOSE=1); the compose stack was not tested" >&2; exit 0; fi
exec bash "$(dirname "$0")/../compose-test.sh"
