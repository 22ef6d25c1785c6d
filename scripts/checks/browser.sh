#!/usr/bin/env bash
# The web map in a real browser: starts `isobar up --sample` with its gateway on free loopback
# ports and a temporary data directory, then drives headless Chromium (Debian chromium +
# chromium-driver, Selenium from Debian's python3-selenium) through Tests/browser/test_map.py:
# the page's annotations must equal a brute-force reference for its own viewport after load, pans
# and zooms; toggles change titles; a marker click opens the callout; search, nearest (button and
# right click) and favorites (the callout's star, the list coming back after a reload under the
# page's stored client name) answer through the gateway; places (a small GeoNames cut, below):
# "seoul" lists Seoul first and centres it, a right click drops a pin named by `reverse`; My places
# (Tests/browser/myplaces_checks.py: two places, a pin and a station, checked again in phase 2 after
# the restart on the same data directory); then the page as a product
# (Tests/browser/layout_checks.py): at 1280x900, 900x1280, 820x1180, 1180x820, 390x844 and 844x390 no
# overlapping marker labels (the ones that would overlap drawn as dots), every visible marker's
# touch target (44 px on phones under touch emulation, 24 px elsewhere; overlaps go to the nearest), no
# horizontal overflow, the panel collapsed and expanded, the zoom buttons never covered, 44 px
# controls on phones, a callout inside the viewport and clear of the panel, the detail screen with
# chart and icons inside 390 px, the legend, the attribution, geolocation (Chromium's override:
# centred; denied: the message), axe-core (PyPI axe-selenium-python, installed into .build/pydeps:
# no serious or critical violation); and the offline start (the gateway stopped under the page,
# the page reloaded when the gateway serves sw.js, the gateway back: live again without a reload).
# Then `--sample-formats all`: the conditions field's icons (markers, legend, callout) and About's
# and the attribution's credits for the feeds loaded (Tests/browser/conditions_checks.py).
# Screenshots go to .build/screenshots/ (and docs/ with ISOBAR_SCREENSHOT_DOCS=1). Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/deps.sh chromium chromium-driver python3-selenium
bin="${ISOBAR_BINARY:-.build/debug/isobar}"
[ -x "$bin" ] || swift build --product isobar 2>&1 | grep -vE 'prohibited flag' | tail -3
# Debian's python3 (its selenium lives in dist-packages), not a pyenv python3 that may come first on PATH.
python=/usr/bin/python3
# axe-core for Selenium, from PyPI, beside the build (not into the system's Python).
axe_dir=.build/pydeps
if [ ! -d "$axe_dir/axe_selenium_python" ]; then
  bash scripts/deps.sh python3-pip
  "$python" -m pip install --quiet --disable-pip-version-check --target "$axe_dir" --no-deps axe-selenium-python==2.1.6
fi
work=$(mktemp -d)
up=""
cleanup() {
  if [ -n "$up" ]; then kill -INT "$up" 2>/dev/null || true; wait "$up" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "browser: $*" >&2; tail -40 "$work/up.log" >&2 2>/dev/null || true; exit 1; }

# Four free ports: gateway, sample feed, broker XSUB and XPUB.
read -r gateway feed pub sub < <("$python" -c '
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
export ISOBAR_PUB="tcp://127.0.0.1:$pub" ISOBAR_SUB="tcp://127.0.0.1:$sub"
# A small gazetteer in GeoNames' dump format, cut from the default one (data/places/cities500.txt,
# which scripts/deps.sh builds): the sample feed's plains (where the test drops its pin) and South
# Korea (the test searches "seoul"). It loads in well under a second; the whole file takes ~10 s.
places="$work/places.txt"
[ -s data/places/cities500.txt ] || bash scripts/deps.sh
awk -F'\t' '$9 == "KR" || ($5 > 36 && $5 < 49 && $6 > -106 && $6 < -90)' data/places/cities500.txt >"$places"
[ -s "$places" ] || fail "no gazetteer rows cut from data/places/cities500.txt"
# start_up [ARGS...]: the pipeline with its gateway in the background; waits for /healthz.
start_up() {
  local started
  started=$(date +%s%N)
  "$bin" up --sample --sample-port "$feed" --gateway "127.0.0.1:$gateway" --data-dir "${data_dir:-$work/data}" --places "$places" "$@" >>"$work/up.log" 2>&1 &
  up=$!
  for _ in $(seq 1 300); do
    kill -0 "$up" 2>/dev/null || fail "isobar up exited early"
    curl -fsS -o /dev/null "${url}healthz" 2>/dev/null && break
    sleep 0.1
  done
  curl -fsS -o /dev/null "${url}healthz" || fail "the gateway at $url is not healthy after 30 s"
  echo "browser: gateway healthy at $url after $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2
}
stop_up() {
  kill -INT "$up" 2>/dev/null || true
  wait "$up" 2>/dev/null || true
  up=""
}
url="http://127.0.0.1:$gateway/"

# 1. The live sample feed: load, pans, zooms, toggles, callout, clusters.
start_up
docs=()
[ "${ISOBAR_SCREENSHOT_DOCS:-0}" = 1 ] && docs=(--docs-png docs/web-map.png --docs-dir docs)
"$python" Tests/browser/test_map.py --url "$url" --fixtures Fixtures --screenshots .build/screenshots --axe-dir "$axe_dir" "${docs[@]}" \
  || fail "the web map failed in the browser (screenshots in .build/screenshots/)"

# 1b. Offline: the test writes `stop` and `start` in a signal directory; this stops the pipeline
# (gateway included) and starts it again on the same ports and data directory.
signals="$work/signals"
mkdir -p "$signals"
"$python" Tests/browser/test_map.py --url "$url" --fixtures Fixtures --screenshots .build/screenshots --offline "$signals" "${docs[@]}" &
offline=$!
# await NAME: until the test writes NAME (or ends).
await() {
  while [ ! -e "$signals/$1" ]; do
    kill -0 "$offline" 2>/dev/null || return 1
    sleep 0.1
  done
}
if await stop; then
  stop_up
  touch "$signals/stopped"
  if await start; then
    start_up
    touch "$signals/started"
  fi
fi
wait "$offline" || fail "the offline start failed in the browser (screenshots in .build/screenshots/)"
stop_up

# 2. Restarted on the same data directory with a feed that answers 500: the page shows the stored
# snapshot and says "stored data" and "feed offline".
start_up --today "http://127.0.0.1:$feed/today.json?fault=500" --tomorrow "http://127.0.0.1:$feed/tomorrow.json?fault=500" --backoff-cap 1
"$python" Tests/browser/test_map.py --url "$url" --fixtures Fixtures --screenshots .build/screenshots --stored \
  || fail "the web map on stored data failed in the browser"
stop_up

# 3. Every sample format at once (onX has no icons; the others do): the conditions field's icons in
# markers, legend and callout, and About and the attribution crediting METAR, Open-Meteo and NWS
# in their own words (Tests/browser/conditions_checks.py). Its own data directory.
data_dir="$work/data-all" start_up --sample-formats all
"$python" Tests/browser/test_map.py --url "$url" --fixtures Fixtures --screenshots .build/screenshots --conditions "${docs[@]}" \
  || fail "the conditions field or the feeds' credits failed in the browser"
stop_up
echo "browser: ok" >&2
