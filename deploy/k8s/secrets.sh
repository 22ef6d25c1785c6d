#!/usr/bin/env bash
# Prints the CURVE Secrets of deploy/k8s as YAML, with fresh keys from `isobar keygen`:
#   isobar-curve-broker  broker.key (the broker's secret key), clients.allow (one allowed client public
#                        key per line: every component's, plus any EXTRA client named below)
#   isobar-curve-NAME    broker.pub and client.key (NAME's own secret key), for NAME in
#                        fetch filter format persist gateway places forecast, then each EXTRA
#
#   bash deploy/k8s/secrets.sh [EXTRA...] > secrets.yaml      # isobar on PATH, or ISOBAR=/path/to/isobar
#   kubectl apply -f secrets.yaml                               # then shred secrets.yaml
#
# With ISOBAR_KEYS_DIR=DIR the key files are also kept in DIR (NAME.key, NAME.pub; a client outside the
# cluster needs broker.pub and its own .key). Secret keys otherwise exist only in the printed YAML.
set -euo pipefail
isobar="${ISOBAR:-isobar}"
keys="${ISOBAR_KEYS_DIR:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$keys" ] || keys=$tmp
mkdir -p "$keys"
clients=(fetch filter format persist gateway places forecast "$@")
for name in broker "${clients[@]}"; do
  "$isobar" keygen --out "$keys" --name "$name" >/dev/null
done
b64() { base64 -w0 <"$1"; }
for name in "${clients[@]}"; do cat "$keys/$name.pub"; done >"$tmp/clients.allow"
cat <<YAML
# CURVE keys for Isobar, made by deploy/k8s/secrets.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ). Secret: keep it out of git.
apiVersion: v1
kind: Secret
metadata:
  name: isobar-curve-broker
  labels: {app.kubernetes.io/name: isobar}
type: Opaque
data:
  broker.key: $(b64 "$keys/broker.key")
  clients.allow: $(b64 "$tmp/clients.allow")
YAML
for name in "${clients[@]}"; do
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: isobar-curve-$name
  labels: {app.kubernetes.io/name: isobar}
type: Opaque
data:
  broker.pub: $(b64 "$keys/broker.pub")
  client.key: $(b64 "$keys/$name.key")
YAML
done
