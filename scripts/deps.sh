#!/usr/bin/env bash
# Installs the system packages Isobar needs to build, run and test (Debian/Ubuntu, apt).
# Uses sudo only when not root. Safe to run again: installs only what is missing.
set -euo pipefail
packages=(libzmq3-dev pkg-config libsqlite3-dev sqlite3 jq python3 libjs-leaflet libjs-leaflet.markercluster "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "deps: swift is not on PATH (Swift 6 toolchain required, e.g. /opt/swift/usr/bin)" >&2; exit 1; }
