# Sourced by scripts/compose-test.sh and scripts/kube-test.sh: the initial region's expected set
# and a client's set from its annotations messages, written once for both checks.

# The number of Fixtures/today.json stations in the brief's initial region (center 40.924,
# -108.0955, span 25 x 20); fewer stations than the 500 limit, so no clusters.
EXPECTED_COUNT=85

# write_expected FILE: the initial region's station ids (sorted JSON array) into FILE; fails
# (after `log`) when the fixture no longer has EXPECTED_COUNT of them.
write_expected() {
  jq -c '[.[] | select(.latitude >= 40.924 - 12.5 and .latitude <= 40.924 + 12.5
                   and .longitude >= -108.0955 - 10 and .longitude <= -108.0955 + 10) | .id] | sort' \
    Fixtures/today.json >"$1"
  [ "$(jq length "$1")" -eq "$EXPECTED_COUNT" ] \
    || { log "FAIL: Fixtures/today.json no longer has $EXPECTED_COUNT stations in the initial region"; exit 1; }
}

# state FILE: the client's set after applying every annotations message in order, as sorted ids.
state() {
  jq -s -c 'reduce (.[] | select(.type == "annotations")) as $m ({};
              (if $m.full then {} else . end)
              | reduce ($m.upsert // [])[] as $a (.; .[$a.id] = $a)
              | reduce ($m.remove // [])[] as $r (.; del(.[$r]))) | keys' "$1" 2>/dev/null || echo '[]'
}
