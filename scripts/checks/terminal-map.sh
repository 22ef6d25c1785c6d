#!/usr/bin/env bash
# The terminal map's find keys, driven in tmux against `isobar up --sample` (free ports, temp data,
# the sample gazetteer): `/` + "denver" + Enter lists the place Denver first, `1` centres the map on
# it; `/` + "platte" + Enter lists K1D3 as a prefix hit, `1` jumps to it and opens its callout, `*`
# shows its detail screen (`detail` -> `report`), makes it a favorite (★ 1: K1D3), `n` answers K1D3
# at 0.0 km, `*` again empties the list.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/deps.sh tmux >/dev/null
bin="${ISOBAR_BINARY:-$PWD/.build/debug/isobar}"
work=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export ISOBAR_PUB="tcp://127.0.0.1:$(port)" ISOBAR_SUB="tcp://127.0.0.1:$(port)"
session="isobar-tm-$$"
"$bin" up --sample --sample-port "$(port)" --no-gateway --data-dir "$work/data" --places Fixtures/places-sample.txt >"$work/up.log" 2>&1 &
up=$!
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; kill -INT "$up" 2>/dev/null || true; wait "$up" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "terminal-map: FAIL: $*" >&2; tmux capture-pane -t "$session" -p >&2 || true; tail -20 "$work/up.log" >&2; exit 1; }
tmux new-session -d -s "$session" -x 120 -y 40 "ISOBAR_PUB=$ISOBAR_PUB ISOBAR_SUB=$ISOBAR_SUB '$bin' attach --client tm --viewport 40.924,-108.0955,25,20"
# waits until the screen shows $1 (up to 30 s)
expect() { for _ in $(seq 1 150); do tmux capture-pane -t "$session" -p | grep -qF -- "$1" && return 0; sleep 0.2; done; fail "never showed: $1"; }
expect "85 annotations"
tmux send-keys -t "$session" "/"; tmux send-keys -t "$session" -l "denver"; tmux send-keys -t "$session" Enter
expect "1 ⌖ Denver, Colorado, United States"
tmux send-keys -t "$session" "1"; expect " 39.739,-104.985 span"
tmux send-keys -t "$session" "/"; tmux send-keys -t "$session" -l "platte"; tmux send-keys -t "$session" Enter
expect "1 K1D3 PLATTE"
tmux send-keys -t "$session" "1"; expect "PLATTE — K1D3"
tmux send-keys -t "$session" "i"; expect "detail: PLATTE — K1D3 · Today"
expect "  Coordinates: 43.4033° N, 98.8295° W"; expect "  forecast: 0 hours, 0 days (the feed has none)"
tmux send-keys -t "$session" "*"; expect "★ 1: K1D3"
tmux send-keys -t "$session" "n"; expect "nearest: K1D3 PLATTE 0.0 km"
tmux send-keys -t "$session" "*"
for _ in $(seq 1 50); do tmux capture-pane -t "$session" -p | grep -qF "★" || break; sleep 0.2; done
tmux capture-pane -t "$session" -p | grep -qF "★" && fail "the favorite was not removed"
echo "terminal-map: search, jump, callout, detail, favorite on/off and nearest all shown" >&2
