#!/usr/bin/env bash
# Runs the real stages on the repository's fixtures and writes every line they print (and every
# well-formed request line sent to them) into DIR, one NDJSON file per run:
#   scripts/schema/corpus.sh DIR
# Used by scripts/checks/schema.sh, which validates each line against schema/. Takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${ISOBAR_BINARY:-.build/debug/isobar}"
out="$1"
mkdir -p "$out"
F=Fixtures

# fetch: every feed format's fixtures, a failing source, a clamped value, a duplicate id, a bad record.
"$bin" fetch --once --today $F/today.json --tomorrow $F/tomorrow.json >"$out/fetch-onx.ndjson" 2>/dev/null
"$bin" fetch --once --format darksky --today $F/feeds/darksky.json --tomorrow $F/feeds/darksky.json >"$out/fetch-darksky.ndjson" 2>/dev/null
"$bin" fetch --once --format openweather --today $F/feeds/openweather-group.json --tomorrow $F/feeds/openweather-group.json >"$out/fetch-openweather-group.ndjson" 2>/dev/null
"$bin" fetch --once --format openweather --openweather-units imperial --today $F/feeds/openweather-imperial.json --tomorrow $F/feeds/openweather-imperial.json >"$out/fetch-openweather-imperial.ndjson" 2>/dev/null
"$bin" fetch --once --format airvisual --today $F/feeds/airvisual.json --tomorrow $F/feeds/airvisual.json >"$out/fetch-airvisual.ndjson" 2>/dev/null
"$bin" fetch --once --today onx+$F/today.json --today darksky+$F/feeds/darksky.json --tomorrow $F/tomorrow.json >"$out/fetch-several.ndjson" 2>/dev/null
cat >"$out/odd.json" <<'JSON'
[{"id":"A1","name":"Clamped","longitude":10,"latitude":45,"temperature":50,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":105},
 {"id":"A1","name":"Again","longitude":11,"latitude":46,"temperature":51,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":5},
 {"id":"B2","name":"Bad","longitude":181,"latitude":46,"temperature":51,"wind_speed":3,"wind_direction":90,"chance_of_precipitation":5}]
JSON
"$bin" fetch --once --today "$out/odd.json" --tomorrow "$out/missing.json" >"$out/fetch-odd.ndjson" 2>/dev/null || true
rm -f "$out/odd.json"
echo '{"type":"resync","reason":"filter started"}' >"$out/request-resync.ndjson"

# Requests: viewports in every field/units/windUnit/locale, the find messages, favorites, details,
# a lease and a leave; then lines that must each produce one error.
req="$out/requests.ndjson"
{
  echo '{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"temperature"}'
  echo '{"type":"select","client":"alice","id":"K1D3"}'
  echo '{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"tomorrow","field":"wind","units":"metric","locale":"sk"}'
  echo '{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"wind","units":"imperial","windUnit":"knots","locale":"en","version":3}'
  echo '{"type":"viewport","client":"alice","center":{"latitude":30,"longitude":-100},"span":{"latitudeDelta":60,"longitudeDelta":80},"field":"precipitation","limit":9,"version":4}'
  echo '{"type":"select","client":"alice","id":null}'
  echo '{"type":"viewport","client":"bob","center":{"latitude":40,"longitude":-100},"span":{"latitudeDelta":60,"longitudeDelta":120},"field":"wind","units":"metric","windUnit":"kmh","locale":"sk","limit":16,"gateway":"gw-1","ref":1}'
  echo '{"type":"select","client":"bob","id":"K1D3"}'
  echo '{"type":"lease","gateway":"gw-1","clients":1,"digest":"0000000000000000","partitions":[{"partition":20,"clients":1,"digest":"0000000000000000"}]}'
  echo '{"type":"lease","gateway":"gw-2","clients":0,"digest":"0000000000000000"}'
  echo '{"type":"resync","client":"bob","reason":"version gap"}'
  echo '{"type":"nearest","client":"alice","latitude":48.7,"longitude":21.25}'
  echo '{"type":"nearest","client":"carol","latitude":40,"longitude":-100,"day":"tomorrow","field":"wind","units":"metric","windUnit":"knots","locale":"sk"}'
  echo '{"type":"search","client":"alice","query":"platte","limit":5}'
  echo '{"type":"search","client":"carol","query":"k","day":"tomorrow","field":"precipitation","locale":"sk"}'
  echo '{"type":"search","client":"carol","query":"zzzzzz"}'
  echo '{"type":"favorite","client":"alice","id":"K1D3","on":true}'
  echo '{"type":"favorite","client":"alice","id":"GONE","on":true}'
  echo '{"type":"favorite","client":"alice","id":"GONE","on":true}'
  echo '{"type":"favorite","client":"alice","id":"GONE","on":false}'
  echo '{"type":"favorite","client":"bob","id":"K1D3","on":true}'
  echo '{"type":"detail","client":"alice","id":"K1D3"}'
  echo '{"type":"detail","client":"carol","id":"K1D3","day":"tomorrow","units":"metric","locale":"sk"}'
  echo '{"type":"leave","client":"bob","gateway":"gw-1"}'
  echo '{"type":"detail","client":"alice","id":"43.4033,-98.8295","locale":"sk","units":"metric"}'
  echo '{"type":"detail","client":"carol","id":"2643743","windUnit":"knots"}'
} >"$req"
bad="$out/bad.input"
{
  echo 'not json'
  echo '{"type":"viewport","client":"alice","center":{"latitude":91,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}'
  echo '{"type":"viewport","client":"alice","center":{"latitude":1,"longitude":0}}'
  echo '{"type":"select","client":"alice","id":"NOPE"}'
  echo '{"type":"nearest","client":"alice","latitude":"48","longitude":21}'
  echo '{"type":"search","client":"alice","query":"   "}'
  echo '{"type":"favorite","client":"alice","id":"K1D3","on":"yes"}'
  echo '{"type":"detail","client":"alice","id":"NOPE"}'
  echo '{"type":"viewport","client":"","center":{"latitude":1,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}'
  echo '{"type":"a","type":"b"}'
  echo '{"type":""}'
  echo '[1,2]'
  echo '{"type":"station","day":"today","snapshot":"x","seq":0,"id":"Q","name":"q","latitude":0,"longitude":200,"temperature":null,"windSpeed":null,"windDirection":null,"precipitation":null}'
} >"$bad"
# The formatter's bad lines (lines of its own types; anything else would pass through unchanged).
fbad="$out/format-bad.input"
{
  echo 'not json'
  echo '{"type":"visible","client":"alice","version":"1"}'
  echo '{"type":"selection","client":"alice"}'
  echo '{"type":"closest","client":"alice","day":"yesterday"}'
  echo '{"type":"particulars","client":"alice","station":7}'
} >"$fbad"

# filter | format, on each feed; the filter alone and the chained formatter too.
for feed in "$out"/fetch-onx.ndjson "$out"/fetch-darksky.ndjson "$out"/fetch-openweather-group.ndjson "$out"/fetch-airvisual.ndjson; do
  name=$(basename "$feed" .ndjson); name=${name#fetch-}
  grep -v '"type":"status"' "$feed" | cat - "$req" "$bad" >"$out/in.tmp"
  "$bin" filter <"$out/in.tmp" >"$out/filter-$name.ndjson" 2>/dev/null
  "$bin" format <"$out/filter-$name.ndjson" >"$out/format-$name.ndjson" 2>/dev/null
  "$bin" format --units metric --locale sk <"$out/filter-$name.ndjson" >"$out/format-sk-$name.ndjson" 2>/dev/null
done
rm -f "$out/in.tmp"
# An incomplete snapshot (an end marker with a seq missing): error + resync.
{ head -3 "$out/fetch-onx.ndjson"; echo '{"type":"snapshot","day":"today","snapshot":"today-x","count":5,"source":"feed","fetchedAt":1,"ageSeconds":0}'; cat "$req"; } \
  | "$bin" filter >"$out/filter-incomplete.ndjson" 2>/dev/null
# The formatter's own bad lines, and the documented pipe with a viewport flag.
"$bin" format <"$fbad" >"$out/format-bad.ndjson" 2>/dev/null
"$bin" filter --viewport 40.924,-108.0955,25,20 --field wind <"$out/fetch-onx.ndjson" | "$bin" format --units metric --wind-unit knots --locale sk >"$out/pipe-viewport.ndjson" 2>/dev/null

# A shrunk snapshot after a full one: the filter holds it back and writes a `status` "held"
# (PROTOCOL.md, "Implausible snapshots"). Both fetched now, so neither is from the future.
now=$(date +%s)
{ grep '"day":"today"' "$out/fetch-onx.ndjson" | grep -v '"type":"status"' | sed -E "s/\"fetchedAt\":[0-9.e+]+/\"fetchedAt\":$now/"
  grep -m1 '"type":"station","day":"today"' "$out/fetch-onx.ndjson" | sed -E 's/"snapshot":"[^"]*"/"snapshot":"today-shrunk"/; s/"seq":[0-9]+/"seq":0/'
  echo "{\"type\":\"snapshot\",\"day\":\"today\",\"snapshot\":\"today-shrunk\",\"count\":1,\"source\":\"feed\",\"fetchedAt\":$((now + 1)),\"ageSeconds\":0}"
} | "$bin" filter >"$out/filter-held.ndjson" 2>/dev/null
grep -q '"state":"held"' "$out/filter-held.ndjson" || { echo "corpus: the shrunk snapshot was not held" >&2; exit 1; }

# places on the conformance gazetteer: geocode and reverse, good (every match kind, a qualifier,
# an id, a radius with nothing in it) and bad (each an error).
preq="$out/request-places.ndjson"
{
  echo '{"type":"geocode","client":"alice","query":"springfield, il","limit":5}'
  echo '{"type":"geocode","client":"alice","query":"spring","country":"us","state":"Missouri"}'
  echo '{"type":"geocode","client":"alice","query":"서울"}'
  echo '{"type":"geocode","client":"alice","id":1835848}'
  echo '{"type":"geocode","client":"alice","query":"nowhere at all"}'
  echo '{"type":"reverse","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":50}'
  echo '{"type":"reverse","client":"alice","latitude":-16.5,"longitude":-179.99}'
  echo '{"type":"reverse","client":"alice","latitude":-30,"longitude":-130}'
} >"$preq"
{
  cat "$preq"
  echo 'not json'
  echo '{"type":"geocode","client":"alice"}'
  echo '{"type":"geocode","client":"alice","query":"paris","id":2988507}'
  echo '{"type":"geocode","client":"alice","id":12345}'
  echo '{"type":"geocode","client":"alice","query":"paris","country":"Atlantis"}'
  echo '{"type":"reverse","client":"alice","latitude":91,"longitude":0}'
  echo '{"type":"reverse","client":"alice","latitude":0,"longitude":0,"radiusKm":0}'
  echo '{"type":"reverse","latitude":0,"longitude":0}'
} | "$bin" places --places conformance/places/gazetteer.txt >"$out/places.ndjson" 2>/dev/null
echo '{"type":"geocode","client":"alice","query":"paris"}' | "$bin" places --places "$out/missing.txt" >"$out/places-none.ndjson" 2>/dev/null

