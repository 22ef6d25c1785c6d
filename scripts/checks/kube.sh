#!/usr/bin/env bash
# deploy/k8s/ end to end with `podman kube play` (scripts/kube-test.sh); ISOBAR_SKIP_KUBE=1 skips it.
# The image takes the debug binary the test run has just built (.build/debug/isobar plus its Swift runtime
# libraries), as the compose check does; ISOBAR_KUBE_BINARY=PATH takes another dynamically linked isobar.
if [ "${ISOBAR_SKIP_KUBE:-}" = 1 ]; then echo "kube check: SKIPPED (ISOBAR_SKIP_KUBE=1); deploy/k8s was not tested" >&2; exit 0; fi
start=$(date +%s)
status=0
bash "$(dirname "$0")/../kube-test.sh" || status=$?
echo "kube check: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s" >&2
exit "$status"
