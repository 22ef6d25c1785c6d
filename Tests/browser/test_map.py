#!/usr/bin/python3
"""The web map in a real browser: headless Chromium, driven by Selenium, against a running gateway.

Run by scripts/checks/browser.sh, which starts `isobar up --sample` with a gateway and passes its
URL. Every check compares what the page holds (window.isobar.annotations) with a brute-force
reference computed here from the page's own last viewport (window.isobar.viewport) and the
sample feed's fixture: the ids must converge to exactly the visible set. Values drift every 30 s
in the sample feed, so only ids are compared with the fixture, never values.

Usage: test_map.py --url http://127.0.0.1:8080/ [--fixtures Fixtures] [--screenshots DIR] [--docs-png PATH]
"""
import argparse
import io
import json
import math
import os
import re
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from clicking import click_fresh
import conditions_checks
import layout_checks
import myplaces_checks

INITIAL = {"latitude": 40.924, "longitude": -108.0955, "latitudeDelta": 25.0, "longitudeDelta": 20.0}
SETTLE_TIMEOUT = 10.0

failures = []
timings = []


def log(message):
    print(f"browser: {message}", file=sys.stderr, flush=True)


def check(condition, message):
    if condition:
        log(f"ok   {message}")
    else:
        log(f"FAIL {message}")
        failures.append(message)
    return condition


# ---- the reference ----------------------------------------------------------------------------

def load_fixtures(directory):
    return {day: json.load(open(os.path.join(directory, f"{day}.json"), encoding="utf-8"))
            for day in ("today", "tomorrow")}


def visible(station, viewport):
    """PROTOCOL.md's visibility rule, by brute force."""
    center, span = viewport["center"], viewport["span"]
    south = max(-90.0, center["latitude"] - span["latitudeDelta"] / 2)
    north = min(90.0, center["latitude"] + span["latitudeDelta"] / 2)
    if not (south <= station["latitude"] <= north):
        return False
    if span["longitudeDelta"] >= 360:
        return True
    # Distance east of the center in [-180, 180), then the inclusive half span.
    offset = (station["longitude"] - center["longitude"] + 180.0) % 360.0 - 180.0
    half = span["longitudeDelta"] / 2
    return -half <= offset <= half or (offset == -180.0 and half >= 180.0)


def reference(fixtures, viewport):
    day = viewport.get("day", "today")
    return {s["id"] for s in fixtures[day] if visible(s, viewport)}


# ---- the page ---------------------------------------------------------------------------------

STATE_JS = """
const i = window.isobar;
if (!i) return null;
const anns = [];
for (const [id, a] of i.annotations) anns.push([id, a.title, !!a.cluster, a.count || 0]);
return {version: i.version, viewport: i.viewport, annotations: anns,
        connected: i.state.connection, awaitingFull: i.state.awaitingFull,
        status: document.getElementById('status-text').textContent};
"""


def page_state(driver):
    return driver.execute_script(STATE_JS)


def covers(state, fixtures):
    """With clustering: every visible station is in exactly one annotation (a station shown as
    itself, or counted in a cluster), and no annotation is a station outside the viewport."""
    want = reference(fixtures, state["viewport"])
    singles = {a[0] for a in state["annotations"] if not a[2]}
    counted = len(singles) + sum(a[3] for a in state["annotations"] if a[2])
    return singles <= want and counted == len(want)


def settle(driver, fixtures, label, predicate=None, timeout=SETTLE_TIMEOUT, clustered=False):
    """Waits until the page's ids equal the reference for its own last viewport (and `predicate`
    holds), and the version has not changed for 0.4 s. Returns the state, or records a failure.
    `clustered`: compare station counts instead (see `covers`)."""
    start = time.monotonic()
    stable_since, last_version, last = None, None, None
    while time.monotonic() - start < timeout:
        state = page_state(driver)
        if state and state["viewport"] and state["version"]:
            ids = {a[0] for a in state["annotations"]}
            ok = (covers(state, fixtures) if clustered else ids == reference(fixtures, state["viewport"])) \
                and not state["awaitingFull"]
            if ok and predicate is not None:
                ok = predicate(state)
            if ok and state["version"] == last_version:
                if stable_since is None:
                    stable_since = time.monotonic()
                elif time.monotonic() - stable_since >= 0.4:
                    elapsed = time.monotonic() - start
                    timings.append((label, elapsed))
                    what = "cover the brute-force set" if clustered else "equal the brute-force set"
                    check(True, f"{label}: {len(ids)} annotations {what} "
                                f"(version {state['version']}, {elapsed:.2f} s)")
                    return state
            else:
                stable_since = time.monotonic() if ok else None
            last_version = state["version"]
        last = state
        time.sleep(0.1)
    if last and last["viewport"]:
        ids = {a[0] for a in last["annotations"]}
        want = reference(fixtures, last["viewport"])
        detail = (f"holds {len(ids)}, reference {len(want)}; missing {sorted(want - ids)[:8]}, "
                  f"extra {sorted(ids - want)[:8]}; viewport {json.dumps(last['viewport'])}; status {last['status']!r}")
    else:
        detail = f"no data (state {json.dumps(last)[:300]})"
    check(False, f"{label}: did not converge within {timeout:.0f} s: {detail}")
    return last


def wait_for(driver, label, js, timeout=SETTLE_TIMEOUT):
    start = time.monotonic()
    value = None
    while time.monotonic() - start < timeout:
        try:
            value = driver.execute_script(js)
        except WebDriverException:
            value = None
        if value:
            return value
        time.sleep(0.1)
    check(False, f"{label}: timed out after {timeout:.0f} s")
    return value


def move(driver, js):
    """Moves the map through Leaflet's API without animation; the page sends its viewport on moveend."""
    driver.execute_script(f"const map = window.isobar.map; {js}")


def click_control(driver, control, value):
    driver.find_element(By.CSS_SELECTOR, f'[data-control="{control}"] button[data-value="{value}"]').click()


def screenshot(driver, directory, name):
    if not directory:
        return
    path = os.path.join(directory, f"{name}.png")
    driver.save_screenshot(path)


def set_viewport_size(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def mercator_height_per_width(region):
    """Height/width in pixels of a region on Web Mercator, so a window of that shape fits it exactly."""
    y = lambda lat: math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
    north = region["latitude"] + region["latitudeDelta"] / 2
    south = region["latitude"] - region["latitudeDelta"] / 2
    return (y(north) - y(south)) / math.radians(region["longitudeDelta"])


# A station marker fully on screen, away from the control panel, whose center is not covered by
# another marker: what a person could click.
CLICKABLE_JS = """
const panel = document.getElementById('panel').getBoundingClientRect();
const best = [];
for (const el of document.querySelectorAll('.ann[data-id]')) {
  if (el.classList.contains('cluster')) continue;
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.left < 10 || r.top < 10 || r.right > innerWidth - 60 || r.bottom > innerHeight - 30) continue;
  if (x > panel.left - 20 && y < panel.bottom + 20) continue;
  const hit = document.elementFromPoint(x, y);
  if (!hit || hit.closest('.ann') !== el) continue;
  best.push([Math.hypot(x - innerWidth / 2, y - innerHeight / 2), el.dataset.id]);
}
best.sort((a, b) => a[0] - b[0]);
return best.length ? best[0][1] : null;
"""

POPUP_JS = """
const body = document.querySelector('.leaflet-popup .callout-body');
if (!body) return null;
const h = body.querySelector('h3');
return {id: body.dataset.id || null, reason: body.dataset.reason || null, title: h ? h.textContent : null,
        text: body.textContent, details: body.querySelectorAll('dd').length};
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--fixtures", default="Fixtures")
    parser.add_argument("--screenshots", default=".build/screenshots")
    parser.add_argument("--docs-png", default=None, help="where to save the README's screenshot")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--docs-dir", default=None, help="where to save the per-size screenshots for the README")
    parser.add_argument("--axe-dir", default=None, help="a directory holding axe_selenium_python (pip --target)")
    parser.add_argument("--offline", default=None, metavar="SIGNAL_DIR",
                        help="the offline start: browser.sh stops and starts the gateway on signals in SIGNAL_DIR")
    parser.add_argument("--conditions", action="store_true",
                        help="the pipeline runs `--sample-formats all`: the conditions field's icons and the feeds' credits")
    parser.add_argument("--stored", action="store_true",
                        help="the pipeline runs on stored data with its feed failing: expect 'stored data' and 'feed offline'")
    args = parser.parse_args()
    fixtures = load_fixtures(args.fixtures)
    names = {s["id"]: s["name"] for s in fixtures["today"]}
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    started = time.monotonic()
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    timings.append(("chromium start", time.monotonic() - started))
    try:
        if args.offline:
            layout_checks.run_offline(sys.modules[__name__], driver, args, fixtures)
        elif args.conditions:
            conditions_checks.run_conditions(sys.modules[__name__], driver, args)
        else:
            (run_stored if args.stored else run)(driver, args, fixtures, names)
    except Exception as e:  # a crash in the test is a failure, with the page's console for context
        check(False, f"test crashed: {type(e).__name__}: {e}")
    finally:
        try:
            for entry in driver.get_log("browser"):
                if entry.get("level") in ("SEVERE", "WARNING"):
                    log(f"console {entry['level']}: {entry['message'][:300]}")
        except WebDriverException:
            pass
        driver.quit()

    log("timings: " + ", ".join(f"{label} {seconds:.2f} s" for label, seconds in timings))
    if failures:
        log(f"{len(failures)} check(s) failed: " + "; ".join(failures))
        return 1
    log("all checks passed")
    return 0


def run(driver, args, fixtures, names):
    # 1. A window shaped like the initial region, so fitBounds shows exactly 25 x 20 degrees.
    width = 600
    height = round(width * mercator_height_per_width(INITIAL))
    set_viewport_size(driver, width, height)
    started = time.monotonic()
    driver.get(args.url)
    state = settle(driver, fixtures, "initial region (window shaped to fit)")
    timings.append(("page load to settled", time.monotonic() - started))
    if state and state["viewport"]:
        vp = state["viewport"]
        check(abs(vp["span"]["latitudeDelta"] - 25) < 0.1 and abs(vp["span"]["longitudeDelta"] - 20) < 0.1
              and abs(vp["center"]["latitude"] - INITIAL["latitude"]) < 0.05
              and abs(vp["center"]["longitude"] - INITIAL["longitude"]) < 0.05,
              f"the initial viewport is the brief's region: {json.dumps(vp['center'])} {json.dumps(vp['span'])}")
        check(len(state["annotations"]) == 85, f"85 annotations at the initial region (holds {len(state['annotations'])})")
        check(all(re.fullmatch(r"-?\d+°", a[1]) or a[1] == "" for a in state["annotations"]),
              "temperature titles look like 46°")
        drawn = driver.execute_script("return document.querySelectorAll('.ann[data-id]').length")
        check(drawn == len(state["annotations"]), f"one marker per annotation ({drawn} drawn)")
    screenshot(driver, args.screenshots, "01-initial-fitted")

    # 2. A laptop-sized window, reloaded so the region is fitted to it (wider than 20 degrees).
    set_viewport_size(driver, 1280, 800)
    driver.get(args.url)
    state = settle(driver, fixtures, "initial region at 1280x800")
    vp0 = state["viewport"] if state else None
    status = driver.execute_script("return document.getElementById('status-text').textContent")
    check(re.search(r"\d+ (stations|station)", status) and re.search(r"data \d+", status),
          f"status line shows age and count: {status!r}")
    screenshot(driver, args.screenshots, "02-initial-1280x800")

    # 3. Pan, zoom, and a pan by a whole world west (the viewport's longitude wraps back).
    move(driver, "map.panBy([-350, 180], {animate: false});")
    state = settle(driver, fixtures, "after a pan (panBy -350,180)")
    check(state and state["viewport"] != vp0, "the pan sent a new viewport")
    screenshot(driver, args.screenshots, "03-pan")
    move(driver, "map.setZoom(map.getZoom() + 1.5, {animate: false});")
    state = settle(driver, fixtures, "after a zoom in (+1.5)")
    screenshot(driver, args.screenshots, "04-zoom-in")
    move(driver, "map.setView([37.0, -100.0], map.getZoom() - 2.5, {animate: false});")
    state = settle(driver, fixtures, "after setView + zoom out (-2.5)")
    move(driver, "map.setView([40.924, -108.0955 - 360], map.getZoom(), {animate: false});")
    state = settle(driver, fixtures, "after a pan one world west (center -468.1)")
    if state and state["viewport"]:
        check(-180 <= state["viewport"]["center"]["longitude"] < 180,
              f"center longitude normalised: {state['viewport']['center']['longitude']}")
    move(driver, "map.setView([40.924, -108.0955], map.getZoom(), {animate: false});")
    # Several moves in quick succession, each sending while it moves: the set follows the last.
    for dx, dy in ((120, 0), (0, -90), (-60, 40), (200, 10)):
        move(driver, f"map.panBy([{dx}, {dy}], {{animate: false}});")
        time.sleep(0.05)
    settle(driver, fixtures, "after four quick pans")
    # An animated pan: viewports go out while it moves (throttled to one per 150 ms), and the set
    # follows the last one.
    sent = driver.execute_script("return window.isobar.state.viewportsSent")
    move(driver, "map.panBy([500, 0], {animate: true, duration: 1.2});")
    time.sleep(1.5)
    during = driver.execute_script("return window.isobar.state.viewportsSent") - sent
    check(3 <= during <= 12, f"an animated 1.2 s pan sent {during} viewports (throttled, 150 ms)")
    settle(driver, fixtures, "after an animated pan")
    driver.get(args.url)  # back to the fitted initial region for the toggles and the screenshot
    settle(driver, fixtures, "reloaded")

    # 4. A marker click opens the callout with the station's name.
    station = wait_for(driver, "a clickable marker", CLICKABLE_JS)
    if station:
        click_fresh(driver, f'.ann[data-id="{station}"]')
        popup = wait_for(driver, "callout popup",
                         f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === {json.dumps(station)} && p.details ? p : null;")
        check(bool(popup) and popup["title"] == names.get(station),
              f"marker click opens the callout of {station} titled {names.get(station)!r} (got {popup and popup['title']!r}, "
              f"{popup and popup['details']} details)")
        time.sleep(0.5)  # the popup fades in
        screenshot(driver, args.screenshots, "05-callout")
        # 4b. The callout's Details button opens the detail screen (detail -> report): the same title
        # and labelled values as the callout (PROTOCOL.md "Detail"), shown in the panel.
        click_fresh(driver, '.leaflet-popup .detail-open')
        # (Compared once both show the same snapshot: the sample feed drifts every 30 s.)
        report = wait_for(driver, "detail report",
                          f"const d = window.isobar.detail; const c = [...document.querySelectorAll('.leaflet-popup dd')].map(e => e.textContent); "
                          f"return d && d.id === {json.dumps(station)} && JSON.stringify(d.details.map(x => x.value)) === JSON.stringify(c) ? d : null;")
        callout = driver.execute_script("return [...document.querySelectorAll('.leaflet-popup dd')].map(e => e.textContent)")
        shown = driver.execute_script("const p = document.getElementById('detail'); return p.hidden ? null : p.textContent;")
        values = [line["value"] for line in (report or {}).get("details", [])]
        check(bool(report) and report["title"] == names.get(station) and values == callout
              and report["hourly"] == [] and report["daily"] == [] and report["locale"] == "en",
              f"Details opens the report of {station}: title {report and report.get('title')!r}, values {values} "
              f"equal the callout's {callout}, no forecast (onX)")
        check(bool(shown) and all(line["label"] in shown and line["value"] in shown for line in report.get("details", []))
              and "no forecast in this feed" in shown,
              "the detail screen shows every label and value, and says the feed has no forecast")
        screenshot(driver, args.screenshots, "05b-detail")

    # 5. Field toggle: titles change to wind ("7 mph W →"), the popup follows with reason `updated`.
    before = {a[0]: a[1] for a in page_state(driver)["annotations"]}
    click_control(driver, "field", "wind")
    wind = re.compile(r"(\d+ mph \S+ \S|calm|)")
    state = settle(driver, fixtures, "wind field",
                   predicate=lambda s: s["viewport"]["field"] == "wind" and all(wind.fullmatch(a[1]) for a in s["annotations"]))
    if state:
        changed = sum(1 for a in state["annotations"] if before.get(a[0]) != a[1])
        example = next((a[1] for a in state["annotations"] if "mph" in a[1]), None)
        check(changed > 0 and example, f"field toggle changed {changed} titles (e.g. {before.get(state['annotations'][0][0])!r} -> {example!r})")
        arrows = driver.execute_script("return document.querySelectorAll('.ann.wind .arrow').length")
        check(arrows > 0, f"wind markers draw rotated arrows ({arrows})")
    if station:
        popup = wait_for(driver, "callout follows the field toggle",
                         f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === {json.dumps(station)} && p.reason === 'updated' ? p : null;")
        check(bool(popup) and popup["title"] == names.get(station), "the callout follows the toggle (reason updated)")
    screenshot(driver, args.screenshots, "06-wind")

    # 6. Units and locale: km/h titles, then Slovak.
    click_control(driver, "units", "metric")
    settle(driver, fixtures, "metric wind (km/h)",
           predicate=lambda s: s["viewport"]["windUnit"] == "kmh" and any("km/h" in a[1] for a in s["annotations"]))
    click_control(driver, "field", "precipitation")
    settle(driver, fixtures, "precipitation field",
           predicate=lambda s: all(re.fullmatch(r"(\d+%)?", a[1]) for a in s["annotations"]))
    screenshot(driver, args.screenshots, "07-precipitation")
    click_control(driver, "locale", "sk")
    state = settle(driver, fixtures, "locale sk", predicate=lambda s: s["viewport"]["locale"] == "sk")
    check(driver.execute_script("return document.documentElement.lang") == "sk", "the page switches to Slovak")
    if station:
        popup = wait_for(driver, "the callout in Slovak",
                         f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === {json.dumps(station)} && p.text.includes('Teplota') ? p : null;")
        check(bool(popup), "the callout follows the locale toggle (Teplota)")
        # The open detail screen follows the toggles too: Slovak labels, metric values.
        report = wait_for(driver, "the detail screen in Slovak",
                          f"const d = window.isobar.detail; return d && d.id === {json.dumps(station)} && d.locale === 'sk' ? d : null;")
        shown = driver.execute_script("return document.getElementById('detail').textContent")
        labels = [line["label"] for line in (report or {}).get("details", [])]
        check(bool(report) and "Súradnice" in labels and "Súradnice" in shown and report.get("units") == "metric",
              f"the detail screen follows the locale and units toggles ({labels}, units {report and report.get('units')!r})")
        # A feed with a forecast (Dark Sky's shape, PROTOCOL.md): the hours as a chart (and a list for
        # screen readers), the days as rows with icon, low and high, in local time saying which zone.
        driver.execute_script("""
          const d = window.isobar.detail;
          window.isobar.receive(Object.assign({}, d, {icon: "rain", zone: "Europe/Bratislava", hourly: [
            {time: 1795428000, label: "2026-11-23 10:00 UTC", summary: "Oblačno", icon: "cloudy", details: [{label: "Teplota", value: "4,7 °C"}, {label: "Zrážky", value: "30 %"}]},
            {time: 1795431600, label: "2026-11-23 11:00 UTC", icon: "rain", details: [{label: "Teplota", value: "5,1 °C"}]}],
            daily: [{time: 1795392000, label: "2026-11-23 00:00 UTC", icon: "snow", details: [{label: "Minimum", value: "-4,2 °C"}, {label: "Maximum", value: "1,5 °C"}]}]}));""")
        rows = driver.execute_script("""const d = document.getElementById('detail');
          return [d.querySelectorAll('.forecast.hourly li').length, d.querySelectorAll('.forecast.daily li').length, d.textContent,
                  d.querySelectorAll('svg.hourly-chart .temp-dot').length, d.querySelectorAll('svg.hourly-chart .precip-bar').length,
                  [...d.querySelectorAll('svg.wx-icon')].map(s => s.dataset.icon),
                  [...d.querySelectorAll('svg.hourly-chart .tick')].map(s => s.textContent)]""")
        check(rows[0] == 2 and rows[1] == 1 and "Najbližšie hodiny" in rows[2] and "-4.2°" in rows[2] and "1.5°" in rows[2]
              and rows[3] == 2 and rows[4] == 1 and rows[5] == ["rain", "cloudy", "rain", "snow"] and "11:00" in rows[6] and "12:00" in rows[6]
              and "Europe/Bratislava (časové pásmo stanice)" in rows[2],
              f"a report with a forecast: chart of {rows[3]} hours ({rows[4]} precipitation bar), {rows[1]} day row, icons {rows[5]}, "
              f"station-local ticks {rows[6]}")
        screenshot(driver, args.screenshots, "05c-detail-forecast")
        driver.find_element(By.CSS_SELECTOR, '#detail .close').click()
        check(driver.execute_script("return document.getElementById('detail').hidden"), "the detail screen closes")

    # 7. Tomorrow: the reference comes from tomorrow's fixture.
    click_control(driver, "day", "tomorrow")
    settle(driver, fixtures, "tomorrow", predicate=lambda s: s["viewport"]["day"] == "tomorrow")
    click_control(driver, "day", "today")
    click_control(driver, "locale", "en")
    click_control(driver, "units", "imperial")
    click_control(driver, "field", "temperature")
    settle(driver, fixtures, "back to today / temperature",
           predicate=lambda s: s["viewport"]["day"] == "today" and all(re.fullmatch(r"(-?\d+°)?", a[1]) for a in s["annotations"]))

    # 8. A version gap: a diff from the future makes the page ask for a resync and take the full.
    version = page_state(driver)["version"]
    driver.execute_script(
        "window.isobar.receive({type: 'annotations', version: window.isobar.version + 5, full: false, "
        "upsert: [{id: 'GHOST', coordinate: {latitude: 40, longitude: -105}, title: 'x'}], remove: []});")
    state = settle(driver, fixtures, "version gap repaired by a resync",
                   predicate=lambda s: s["version"] > version)
    check(state and all(a[0] != "GHOST" for a in state["annotations"]), "the diff after the gap was not applied")

    # 9. The socket drops: the page reconnects, re-sends its viewport and converges again.
    opens = driver.execute_script("const s = window.isobar.state; s.socket.close(); return s.opens;")
    reconnected = wait_for(driver, "reconnect",
                           f"const s = window.isobar.state; return s.opens > {opens} && s.connection === 'connected' && !s.awaitingFull;")
    check(bool(reconnected), "the page reconnects after its socket closes and takes a new full set")
    settle(driver, fixtures, "after a reconnect")

    # 10. Status line: "feed offline" after a failed fetch status, "stored data" for replayed data
    # (injected here: the sample feed stays healthy during this test).
    driver.execute_script("window.isobar.receive({type: 'status', day: 'today', state: 'failed', reason: 'HTTP 500', attempt: 1, retryIn: 2});")
    status = driver.execute_script("return document.getElementById('status-text').textContent")
    check("feed offline" in status, f"a failed status shows feed offline: {status!r}")
    driver.execute_script("window.isobar.receive({type: 'status', day: 'today', state: 'ok'});")
    status = driver.execute_script("return document.getElementById('status-text').textContent")
    check("feed offline" not in status, f"an ok status clears it: {status!r}")

    # 11. The popup closes on a map click and the selection is dropped.
    if station:
        popup_open = driver.execute_script("return !!document.querySelector('.leaflet-popup');")
        if popup_open:
            driver.execute_script("window.isobar.map.fire('click', {latlng: window.isobar.map.getCenter()});")
            wait_for(driver, "popup closes", "return !document.querySelector('.leaflet-popup') && window.isobar.state.selected === null;")
    screenshot(driver, args.screenshots, "08-final")

    # 12. Clusters: with ?limit=30 the pipeline aggregates; the page draws bubbles whose counts,
    # with the single stations, add up to the visible set; clicking a bubble zooms in and splits it.
    set_viewport_size(driver, 1280, 800)
    driver.get(args.url.rstrip("/") + "/?limit=30")
    state = settle(driver, fixtures, "clusters with limit 30", clustered=True,
                   predicate=lambda s: s["viewport"].get("limit") == 30 and any(a[2] for a in s["annotations"]))
    bubbles = driver.execute_script("return document.querySelectorAll('.leaflet-marker-pane .ann.cluster').length")
    check(bubbles > 0 and state and bubbles == sum(1 for a in state["annotations"] if a[2]),
          f"clusters drawn as bubbles ({bubbles})")
    screenshot(driver, args.screenshots, "09-clusters")
    if state:
        zoom = driver.execute_script("return window.isobar.map.getZoom()")
        driver.execute_script("document.querySelector('.leaflet-marker-pane .ann.cluster').click()")
        settle(driver, fixtures, "a cluster click zooms in", clustered=True,
               predicate=lambda s: True)
        check(driver.execute_script("return window.isobar.map.getZoom()") > zoom, "a cluster click zooms in")

    # 13. Search, nearest and favorites.
    run_find(driver, args, fixtures, names)
    run_places(driver)
    myplaces_checks.run_myplaces(sys.modules[__name__], driver, args)

    # 14. Layout at every size, geolocation, accessibility (Tests/browser/layout_checks.py).
    me = sys.modules[__name__]
    started = time.monotonic()
    layout_checks.run_layout(me, driver, args, fixtures, names)
    timings.append(("layout at 5 sizes", time.monotonic() - started))
    layout_checks.run_geolocation(me, driver, args, fixtures)
    layout_checks.run_theme(me, driver, args, fixtures)
    started = time.monotonic()
    layout_checks.run_axe(me, driver, args, fixtures, args.axe_dir)
    timings.append(("axe", time.monotonic() - started))


def run_places(driver):
    """Places from the check's GeoNames cut in the search box (after the station checks: centring on
    Seoul moves K1D3 out of view, which closes its callout)."""
    from selenium.webdriver.common.keys import Keys
    # Places first: "seoul" lists Seoul (GeoNames) above the stations; choosing it centres the map there.
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys("seoul")
    first = timed_wait(driver, "search 'seoul' lists a place",
                       "const r = window.isobar.results, l = window.isobar.locations, li = document.querySelector('#results li');"
                       " return r && r.query === 'seoul' && l && l.query === 'seoul' && li ? "
                       "{place: li.dataset.place || null, text: li.textContent, places: l.results.length} : null;")
    check(bool(first) and first["place"] == "1835848" and "Seoul" in first["text"] and "South Korea" in first["text"],
          f"'seoul' lists Seoul, South Korea first ({first})")
    click_fresh(driver, '#results li[data-place="1835848"]')
    centre = driver.execute_script("const c = window.isobar.map.getCenter(); return [c.lat, c.lng];")
    seoul = timed_wait(driver, "Seoul pinned with its weather",
                       "const p = window.isobar.pin, c = window.isobar.map.getCenter(), el = document.querySelector('.leaflet-popup.pin');"
                       " return p && p.station && el ? {text: el.textContent} : null;")
    check(abs(centre[0] - 37.566) < 0.01 and abs(((centre[1] - 126.9784 + 180) % 360) - 180) < 0.01
          and bool(seoul) and "Seoul" in seoul["text"] and "South Korea" in seoul["text"],
          f"choosing Seoul centres the map on it and names it ({centre}, {seoul})")
    driver.execute_script("window.isobar.clearPin();")
    box.clear()
    box.send_keys(Keys.ESCAPE)


# ---- find: search, nearest, favorites ---------------------------------------------------------

K1D3 = {"id": "K1D3", "name": "PLATTE", "latitude": 43.40332, "longitude": -98.82952}
FIND_TIMEOUT = 15.0  # answers go through filter and formatter on a machine that may be busy

FAVORITES_JS = """
const f = window.isobar.favorites;
const list = [...document.querySelectorAll('#favorites li[data-id]')].map(li => li.dataset.id);
return {frame: f, list, badge: document.getElementById('fav-count').textContent,
        text: document.getElementById('favorites').textContent};
"""


def timed_wait(driver, label, js, timeout=FIND_TIMEOUT):
    started = time.monotonic()
    value = wait_for(driver, label, js, timeout)
    if value:
        timings.append((label, time.monotonic() - started))
    return value


def run_find(driver, args, fixtures, names):
    """Search, nearest and favorites against the live pipeline: real typing and clicks, answers
    checked in window.isobar (the frames) and in the panel (what a person sees)."""
    set_viewport_size(driver, 1280, 800)
    driver.get(args.url)
    settle(driver, fixtures, "find: page loaded")
    client = driver.execute_script("return window.isobar.state.clientName")
    check(bool(client) and re.fullmatch(r"[A-Za-z0-9._-]{1,64}", client),
          f"without ?client= the page names itself once ({client!r})")

    # Search: typing is debounced (one request for six keystrokes), the hits are listed.
    box = driver.find_element(By.ID, "search")
    sent = driver.execute_script("return window.isobar.state.searchesSent")
    box.send_keys("platte")
    results = timed_wait(driver, "search 'platte' answered",
                         "const r = window.isobar.results; return r && r.query === 'platte' ? r : null;")
    time.sleep(0.4)  # a second (undebounced) request would have gone out by now
    sent = driver.execute_script("return window.isobar.state.searchesSent") - sent
    check(sent == 1, f"typing 'platte' sent {sent} search request(s) (debounced: 1)")
    hit = next((h for h in (results or {}).get("hits", []) if h["id"] == "K1D3"), None)
    check(bool(hit) and hit["match"] == "prefix" and hit["name"] == K1D3["name"]
          and abs(hit["coordinate"]["latitude"] - K1D3["latitude"]) < 1e-6,
          f"results for 'platte' hold K1D3 PLATTE with match prefix ({json.dumps(hit)})")
    row = driver.execute_script(
        "const li = document.querySelector('#results li[data-id=\"K1D3\"]'); return li && !li.closest('[hidden]') ? li.textContent : null;")
    check(bool(row) and "PLATTE" in row and "K1D3" in row and "prefix" in row and re.search(r"-?\d+°", row),
          f"the results list shows K1D3 with name, title and match ({row!r})")
    # Enter sends at once, and an error frame for a pending search is shown under the box.
    shown = driver.execute_script("""
        const box = document.getElementById('search');
        box.value = 'plat'; box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
        window.isobar.receive({type: 'error', stage: 'filter', message: 'test error for the search'});
        const e = document.getElementById('search-error');
        return e.hidden ? null : e.textContent;""")
    check(bool(shown) and "test error for the search" in shown, f"an error for a pending search is shown inline ({shown!r})")
    timed_wait(driver, "search 'plat' (Enter) answered",
               "const r = window.isobar.results; return r && r.query === 'plat' ? r : null;")
    box.clear()
    box.send_keys("platte")
    wait_for(driver, "search 'platte' again", "const r = window.isobar.results; return r && r.query === 'platte' ? r : null;")

    # The hits follow a field toggle (the page asks again; titles in the new field).
    click_control(driver, "field", "wind")
    windy = timed_wait(driver, "results follow the wind field",
                       "const r = window.isobar.results; return r && r.query === 'platte' && r.field === 'wind' ? r : null;")
    row = driver.execute_script("const li = document.querySelector('#results li[data-id=\"K1D3\"] .title'); return li && li.textContent;")
    check(bool(windy) and row and re.fullmatch(r"\d+ mph \S+ \S|calm", row), f"the hit's title follows the field toggle ({row!r})")
    click_control(driver, "field", "temperature")
    wait_for(driver, "results back to temperature",
             "const r = window.isobar.results; return r && r.query === 'platte' && r.field === 'temperature' ? r : null;")
    # A click on the hit pans and zooms to it and opens its callout (select).
    wait_for(driver, "K1D3 in the results list", "return document.querySelector('#results li[data-id=\"K1D3\"]');")
    click_fresh(driver, '#results li[data-id="K1D3"]')
    popup = timed_wait(driver, "hit click to K1D3 callout",
                       f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === 'K1D3' && p.details ? p : null;")
    center = driver.execute_script("const c = window.isobar.map.getCenter(); return [c.lat, c.lng, window.isobar.map.getZoom()];")
    check(bool(popup) and popup["title"] == "PLATTE" and abs(center[0] - K1D3["latitude"]) < 0.01
          and abs(center[1] - K1D3["longitude"]) < 0.01 and center[2] >= 7,
          f"clicking the hit centres the map on K1D3 (zoom {center[2]:.1f}) with its callout open")

    # Nearest to the centre, with the centre exactly on K1D3: K1D3 at 0 km.
    move(driver, f"map.setView([{K1D3['latitude']}, {K1D3['longitude']}], map.getZoom(), {{animate: false}});")
    driver.find_element(By.ID, "nearest").click()
    place = timed_wait(driver, "nearest to centre answered",
                       "const p = window.isobar.place; return p && p.point && Math.abs(p.point.latitude - 43.40332) < 1e-6 ? p : null;")
    line = driver.find_element(By.ID, "place").text
    check(bool(place) and place["id"] == "K1D3" and place["distanceKm"] == 0 and place.get("title") == "PLATTE",
          f"nearest at K1D3's coordinate is K1D3 at 0 km ({place and place.get('id')}, {place and place.get('distanceKm')} km)")
    check("PLATTE" in line and "0.0 km" in line and "°" in line, f"the place line shows title, km and bearing ({line!r})")
    # A right click / long press on the map asks for the nearest station to that point.
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    map_el = driver.find_element(By.ID, "map")
    # A spot of bare map (no marker, panel, popup or control), left of the centre.
    spot = driver.execute_script("""
        for (let y = innerHeight - 120; y > 100; y -= 23) for (let x = 60; x < innerWidth / 2; x += 29) {
          const el = document.elementFromPoint(x, y);
          if (el && !el.closest('.ann, #panel, .leaflet-popup, .leaflet-control')) {
            const p = window.isobar.map.containerPointToLatLng([x, y]);
            return [x - innerWidth / 2, y - innerHeight / 2, p.lat, p.lng];
          }
        }
        return null;""")
    # Alt-click there (after clicks in the panel, which must not swallow the map's next click).
    ActionChains(driver).move_to_element_with_offset(map_el, int(spot[0]), int(spot[1])) \
        .key_down(Keys.ALT).click().key_up(Keys.ALT).perform()
    point = spot[2:]
    place = timed_wait(driver, "alt-click nearest answered",
                       f"const p = window.isobar.place; return p && p.point && Math.abs(p.point.latitude - {point[0]}) < 0.02 ? p : null;")
    check(bool(place) and place["id"] and abs(place["point"]["longitude"] - point[1]) < 0.02,
          f"an Alt-click asks for the nearest station to that point ({place and place.get('id')}, "
          f"{place and place.get('distanceKm')} km, bearing {place and place.get('bearing')})")
    # A right click a little away (Leaflet's contextmenu, which a long press on a touch screen also fires).
    driver.execute_script("window.isobar.place = null;")
    ActionChains(driver).move_to_element_with_offset(map_el, int(spot[0]) + 7, int(spot[1]) - 5).context_click().perform()
    place = timed_wait(driver, "right-click nearest answered",
                       "const p = window.isobar.place; return p && p.point ? p : null;")
    check(bool(place) and place["id"] and abs(place["point"]["latitude"] - point[0]) < 0.05,
          f"a right click asks for the nearest station to that point ({place and place.get('id')}, "
          f"{place and place.get('distanceKm')} km, bearing {place and place.get('bearing')})")
    lines = driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path').length")
    check(lines >= 2, f"the answer draws a line and a ring to the station ({lines} paths)")
    # The right click also dropped a pin: `reverse` names it (a place of the check's GeoNames cut),
    # with distance and bearing from the point, and the nearest station's values under it.
    pin = timed_wait(driver, "right-click pin named",
                     "const p = window.isobar.pin; const el = document.querySelector('.leaflet-popup.pin');"
                     " return p && p.vicinity && p.station && el ? {vicinity: p.vicinity, station: p.station.id, text: el.textContent} : null;")
    vicinity = (pin or {}).get("vicinity") or {}
    named = vicinity.get("place") or {}
    check(bool(pin) and named.get("name") and named.get("name") in pin["text"] and named.get("country") in pin["text"]
          and " km " in pin["text"] and "°" in pin["text"] and pin["station"] == place["id"] and place["title"] in pin["text"],
          f"a right click drops a pin named by reverse geocoding, with distance, bearing and the nearest "
          f"station's values ({pin and pin['text']!r})")
    check(abs(vicinity.get("latitude", 99) - place["point"]["latitude"]) < 1e-6,
          f"the pin's reverse asked the point nearest asked ({vicinity.get('latitude')})")
    callout_open = driver.execute_script(f"const p = (() => {{ {POPUP_JS} }})(); return !!(p && p.id === 'K1D3');")
    check(callout_open, "the pin leaves the station's callout open")
    driver.execute_script("window.isobar.clearPin();")


    # Star K1D3 in its callout (a real click): the favorites list shows it with count 1.
    wait_for(driver, "K1D3 callout still open", f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === 'K1D3' ? p : null;")
    # The callout is drawn again when its station's values change (click_fresh finds it again).
    click_fresh(driver, '.leaflet-popup .star[data-id="K1D3"]')
    favs = timed_wait(driver, "star to favorites list",
                      f"const f = (() => {{ {FAVORITES_JS} }})(); return f.frame && f.list.includes('K1D3') ? f : null;")
    gateway_error = driver.execute_script("const e = window.isobar.state.lastError; return e ? e.text : null;")
    check(bool(favs) and favs["list"] == ["K1D3"] and favs["badge"] == "1" and favs["frame"].get("count") == 1
          and "PLATTE" in favs["text"],
          f"starring K1D3 lists it with count 1 ({favs and favs['list']}, badge {favs and favs['badge']!r}"
          + (f"; last error from the gateway: {gateway_error!r}" if not favs and gateway_error else "") + ")")
    star = driver.execute_script("const s = document.querySelector('.leaflet-popup .star'); return s && s.getAttribute('aria-pressed');")
    check(star == "true", f"the callout's star shows on ({star!r})")

    # Reload: the same client name, and the filter sends the list back on joining.
    driver.get(args.url)
    again = driver.execute_script("return window.isobar.state.clientName")
    favs = timed_wait(driver, "reload to favorites list",
                      f"const f = (() => {{ {FAVORITES_JS} }})(); return f.frame && f.list.includes('K1D3') ? f : null;",
                      timeout=20)
    check(again == client, f"a reload keeps the client name ({again!r})")
    check(bool(favs) and favs["list"] == ["K1D3"] and favs["badge"] == "1",
          f"after a reload the favorites list comes back from the filter ({favs and favs['list']}, "
          f"reason {favs and favs['frame'].get('reason')!r})")
    settle(driver, fixtures, "find: reloaded")
    # A click on the entry pans to the station.
    if favs:
        click_fresh(driver, '#favorites li[data-id="K1D3"]')
        popup = wait_for(driver, "favorite click to K1D3 callout",
                         f"const p = (() => {{ {POPUP_JS} }})(); return p && p.id === 'K1D3' && p.details ? p : null;")
        check(bool(popup), "clicking the favorite centres the map on K1D3 and opens its callout")
    # A second tab of the same browser: the gateway refuses a name in use (409), so it takes a name
    # of its own and connects; the first tab stays connected.
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(args.url)
    second = wait_for(driver, "a second tab connects",
                      "const s = window.isobar && window.isobar.state; return s && s.connection === 'connected' && s.opens === 1 ? s.clientName : null;")
    check(bool(second) and second != client and second.startswith(client + "."),
          f"a second tab connects under a name of its own ({second!r})")
    driver.close()
    driver.switch_to.window(first)
    still = driver.execute_script("const s = window.isobar.state; return [s.connection, s.opens];")
    check(still[0] == "connected", f"the first tab stays connected ({still})")
    # The README picture: the region beside the panel, K1D3's callout, several hits and the favorites list.
    move(driver, f"map.fitBounds([[{INITIAL['latitude'] - 12.5}, {INITIAL['longitude'] - 10}], "
                 f"[{INITIAL['latitude'] + 12.5}, {INITIAL['longitude'] + 10}]], "
                 "{animate: false, paddingBottomRight: [340, 0]});")  # left of the panel
    box = driver.find_element(By.ID, "search")
    box.send_keys("city")
    wait_for(driver, "search 'city' answered", "const r = window.isobar.results; return r && r.query === 'city' && r.count > 1 ? r : null;")
    settle(driver, fixtures, "find: screenshot region")
    time.sleep(0.5)
    screenshot(driver, args.screenshots, "11-find")
    if args.docs_png:
        driver.save_screenshot(args.docs_png)
        shrink_png(args.docs_png)


def run_stored(driver, args, fixtures, names):
    """A restarted pipeline whose feed fails: the page shows the stored snapshot, says so, and
    says the feed is offline (from the fetcher's `status` messages relayed by the gateway)."""
    set_viewport_size(driver, 1280, 800)
    driver.get(args.url)
    settle(driver, fixtures, "stored data: initial region",
           predicate=lambda s: "stored data" in s["status"] and "feed offline" in s["status"], timeout=20)
    status = driver.execute_script("return document.getElementById('status-text').textContent")
    check("stored data" in status and "feed offline" in status, f"status line on stored data with a failing feed: {status!r}")
    screenshot(driver, args.screenshots, "10-stored-feed-offline")
    # My places built in the first phase, after `isobar up` restarted on the same data directory.
    myplaces_checks.run_myplaces_restarted(sys.modules[__name__], driver, args)


def shrink_png(path):
    """Palette-quantises the README screenshot when Pillow is there (a map has few colours)."""
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(path).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    if out.tell() < os.path.getsize(path):
        with open(path, "wb") as f:
            f.write(out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
