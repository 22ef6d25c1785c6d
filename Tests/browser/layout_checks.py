"""The web map as a product, in Chromium: layout at phone, tablet and desktop sizes in both
orientations, marker labels that never overlap, the legend, the attribution, geolocation,
axe-core, and the offline start.

Imported by test_map.py, which passes itself as `t` (its check/settle/wait_for/screenshot
helpers and its failure list), so every check lands in the one report.
"""
import json
import os
import sys
import time

from clicking import click_fresh
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By

SIZES = [(1280, 900), (900, 1280), (820, 1180), (1180, 820), (390, 844), (844, 390)]

GEOMETRY_JS = """
const r = (el) => { if (!el) return null; const b = el.getBoundingClientRect();
  return {left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.width, height: b.height}; };
const visible = (el) => el && el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden';
const zoomIn = document.querySelector('.leaflet-control-zoom-in');
const zoomOut = document.querySelector('.leaflet-control-zoom-out');
const locate = document.querySelector('.locate-button');
const onTop = (el) => { if (!el) return false; const b = el.getBoundingClientRect();
  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2); return !!hit && (hit === el || el.contains(hit)); };
const small = [];
const controls = [...document.querySelectorAll('#panel button, #panel input, .leaflet-bar a, .legend summary')].filter(visible);
for (const el of controls) { const b = el.getBoundingClientRect(); if (b.width < 44 || b.height < 44) small.push(`${el.id || el.className || el.tagName} ${Math.round(b.width)}x${Math.round(b.height)}`); }
return {
  inner: [innerWidth, innerHeight],
  docWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
  docHeight: document.documentElement.scrollHeight,
  panel: r(document.getElementById('panel')), open: document.getElementById('panel').dataset.open,
  expanded: document.getElementById('panel-toggle').getAttribute('aria-expanded'),
  zoomOnTop: onTop(zoomIn) && onTop(zoomOut), locateOnTop: onTop(locate),
  legend: r(document.getElementById('legend')), legendText: document.getElementById('legend').textContent,
  attribution: r(document.querySelector('.leaflet-control-attribution')),
  attributionText: document.querySelector('.leaflet-control-attribution').textContent,
  small,
};
"""

# A station marker a person could tap: inside the map, on top at its centre. Wide layouts: the
# rightmost (its callout opens toward the panel); phones: the lowest (toward the sheet).
TAPPABLE_JS = """
const map = document.getElementById('map').getBoundingClientRect();
const panel = document.getElementById('panel').getBoundingClientRect();
const phone = innerWidth <= 560;
let best = null;
for (const el of document.querySelectorAll('.ann[data-id]')) {
  if (el.classList.contains('cluster')) continue;
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.left < map.left + 60 || r.top < map.top + 10 || r.right > map.right - 10 || r.bottom > map.bottom - 30) continue;
  const hit = document.elementFromPoint(x, y);
  if (!hit || hit.closest('.ann') !== el) continue;
  const score = phone ? y : x;
  if (!best || score > best[0]) best = [score, el.dataset.id];
}
return best ? best[1] : null;
"""

# Marker collision: the whole labels on screen (not dots) overlap none of each other; dots still
# count as markers (the set check of settle covers every station).
OVERLAP_JS = """
const boxes = [...document.querySelectorAll('.leaflet-marker-pane .ann[data-id]')].map((el) => [el, el.getBoundingClientRect()])
  .filter(([el, b]) => b.right > 0 && b.bottom > 0 && b.left < innerWidth && b.top < innerHeight);
const whole = boxes.filter(([el]) => !el.classList.contains('dot'));
const pairs = [];
for (let i = 0; i < whole.length; i++) for (let j = i + 1; j < whole.length; j++) {
  const a = whole[i][1], b = whole[j][1];
  if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
    pairs.push([whole[i][0].dataset.id, whole[j][0].dataset.id]);
}
const places = [...document.querySelectorAll('.place-label:not(.covered) span')].map((el) => [el, el.getBoundingClientRect()])
  .filter(([el, b]) => b.right > 0 && b.bottom > 0 && b.left < innerWidth && b.top < innerHeight);
const under = [];
for (const [p, a] of places) for (const [el, b] of boxes)
  if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) under.push([p.textContent, el.dataset.id]);
return {whole: whole.length, dots: boxes.length - whole.length, pairs: pairs.slice(0, 5), overlapping: pairs.length,
        places: places.map(([el]) => el.textContent), under: under.slice(0, 5), placesUnder: under.length};
"""

# Touch targets: every visible marker (a label, a cluster, or a dot no label covers) whose
# centre and the four points `d` px from it (right, left, below, above) lie on the map clear of the
# panel and the controls: at each of the four points elementFromPoint hits a marker (its invisible
# hit area), and the page resolves a tap there (window.isobar.markersAt) to this marker or to one
# drawn at least as near to the point (overlapping hit areas go to the nearest).
HITBOX_JS = """
const d = arguments[0];
const box = (el) => el.getBoundingClientRect();
const map = box(document.getElementById('map'));
const blockers = [...document.querySelectorAll('#panel, .leaflet-control, .leaflet-popup, #detail')]
  .filter((el) => el.offsetParent !== null).map(box);
const clear = (p) => p.x >= map.left && p.x <= map.right && p.y >= map.top && p.y <= map.bottom
  && !blockers.some((b) => p.x >= b.left && p.x <= b.right && p.y >= b.top && p.y <= b.bottom);
const dist = (p, b) => Math.hypot(Math.max(b.left - p.x, 0, p.x - b.right), Math.max(b.top - p.y, 0, p.y - b.bottom));
const els = [...document.querySelectorAll('.leaflet-marker-pane .ann[data-id]')];
const rects = new Map(els.map((el) => [el.dataset.id, box(el)]));
const labels = els.filter((el) => !el.classList.contains('dot'));
let measured = 0, own = 0, nearer = 0, dots = 0;
const misses = [], wrong = [], sizes = [], probes = [];
for (const el of els) {
  const id = el.dataset.id, b = rects.get(id);
  const c = {x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2};
  const dot = el.classList.contains('dot');
  if (dot && labels.some((l) => { const r = rects.get(l.dataset.id); return c.x >= r.left && c.x <= r.right && c.y >= r.top && c.y <= r.bottom; })) continue;
  const points = [[d, 0], [-d, 0], [0, d], [0, -d]].map(([dx, dy]) => ({x: Math.round(c.x + dx), y: Math.round(c.y + dy), dx, dy}));
  if (![c, ...points].every(clear)) continue;
  measured += 1;
  if (dot) dots += 1;
  if (sizes.length < 4) sizes.push(`${id} ${Math.round(b.width)}x${Math.round(b.height)}`);
  for (const p of points) {
    const hit = document.elementFromPoint(p.x, p.y);
    const top = hit ? hit.closest('.ann[data-id]') : null;
    if (!top) misses.push(`${id} at ${p.dx},${p.dy}: ${hit ? hit.className || hit.tagName : 'nothing'}`);
    else probes.push({id, b, p, top: top.dataset.id});
  }
}
// The page's answer for every point at once (window.isobar.markersAt, what a click there opens).
const meant = window.isobar.markersAt(probes.map(({p, top}) => ({x: p.x, y: p.y, top})));
let tap = null; // a point where the marker drawn on top is not the one meant (the nearest)
probes.forEach(({id, b, p, top}, i) => {
  const m = meant[i];
  if (m === id) own += 1;
  else if (m !== null && rects.has(m) && dist(p, rects.get(m)) <= dist(p, b)) nearer += 1;
  else wrong.push(`${id} at ${p.dx},${p.dy}: ${m}`);
  if (!tap && m !== null && top !== m) tap = {x: p.x, y: p.y, top, meant: m};
});
return {tap, measured, dots, own, nearer, misses: misses.length, missed: misses.slice(0, 5), wrong: wrong.length, wrongs: wrong.slice(0, 5), sizes,
        coarse: matchMedia('(pointer: coarse)').matches, hit: getComputedStyle(document.documentElement).getPropertyValue('--hit').trim()};
"""


# Where the touch targets are measured (each measure takes ~1 s): the phones and the portrait
# tablet with Chromium's touch emulation (`pointer: coarse`), the desktop with a mouse.
HIT_AREA_SIZES = {"390x844": "touch", "844x390": "touch", "820x1180": "touch", "1280x900": "mouse"}


def run_hit_areas(t, driver, label):
    """Each visible marker's touch target measured: 44 px square on a touch screen at points 20 px
    from its centre, 24 px with a mouse at points 10 px from it. On a phone, a real click where a
    neighbour's hit area lies on top of the nearest marker's must open the nearest."""
    phone = HIT_AREA_SIZES.get(label) == "touch"
    if label not in HIT_AREA_SIZES:
        return
    if phone:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        h = driver.execute_script(HITBOX_JS, 20 if phone else 10)
        tap = h["tap"]
        if tap and label in ("390x844", "844x390"):
            # A real click there opens the nearest marker's callout, not the top one's; then the
            # callout is closed and the view put back as it was.
            view = driver.execute_script("const m = window.isobar.map; return [m.getCenter().lat, m.getCenter().lng, m.getZoom()];")
            builder = ActionBuilder(driver)
            builder.pointer_action.move_to_location(tap["x"], tap["y"]).click()
            builder.perform()
            selected = t.wait_for(driver, f"{label}: a tap between markers selects one", "return window.isobar.state.selected;")
            t.check(selected == tap["meant"], f"{label}: a tap where {tap['top']}'s hit area lies over {tap['meant']}'s opens the nearest, {tap['meant']} ({selected})")
            driver.execute_script("const m = window.isobar.map; m.closePopup(); m.setView([arguments[0], arguments[1]], arguments[2], {animate: false});", *view)
    finally:
        if phone:
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    pointer = "touch (pointer: coarse), 20 px" if phone else "mouse, 10 px"
    t.check(h["coarse"] == phone and h["measured"] > 0 and h["misses"] == 0 and h["wrong"] == 0,
            f"{label}: {pointer} from the centre of each of {h['measured']} visible markers ({h['dots']} dots; {', '.join(h['sizes'])}, ...) "
            f"hits it (hit area --hit {h['hit']}): {h['own']} points its own, {h['nearer']} a nearer marker's, "
            f"missed {h['misses']} {h['missed']}, wrong marker {h['wrong']} {h['wrongs']}")


POPUP_BOX_JS = """
const p = document.querySelector('.leaflet-popup');
if (!p || !p.querySelector('.callout-body dd')) return null;
const b = p.getBoundingClientRect();
const panel = document.getElementById('panel').getBoundingClientRect();
const overlaps = (r) => !(b.right <= r.left || b.left >= r.right || b.bottom <= r.top || b.top >= r.bottom);
const controls = [...document.querySelectorAll('.leaflet-control-zoom, .locate-control')].map((el) => el.getBoundingClientRect());
return {left: b.left, top: b.top, right: b.right, bottom: b.bottom, overlapsPanel: overlaps(panel), overlapsControls: controls.some(overlaps),
        panel: [panel.left, panel.top, panel.right, panel.bottom], inner: [innerWidth, innerHeight]};
"""


def no_overflow(t, g, label):
    t.check(g["docWidth"] == g["inner"][0] and g["bodyWidth"] <= g["inner"][0] and g["docHeight"] == g["inner"][1],
            f"{label}: no scrolling: document {g['docWidth']}x{g['docHeight']}, body width {g['bodyWidth']}, viewport {g['inner']}")


def run_layout(t, driver, args, fixtures, names):
    for width, height in SIZES:
        label = f"{width}x{height}"
        t.set_viewport_size(driver, width, height)
        driver.get(args.url)
        t.settle(driver, fixtures, f"{label}: loaded", clustered=True)
        limit = driver.execute_script("return window.isobar.viewport && window.isobar.viewport.limit")
        expected = driver.execute_script("return window.isobar.fittingLimit()")
        t.check(limit == expected and 20 <= limit <= 1000, f"{label}: the page asks for a limit that fits its map ({limit})")
        g = driver.execute_script(GEOMETRY_JS)
        small_screen = width <= 560 or height <= 500
        no_overflow(t, g, f"{label} at start")
        t.check(g["open"] == ("false" if small_screen else "true") and g["expanded"] == g["open"],
                f"{label}: the panel starts {'collapsed' if small_screen else 'expanded'} (open={g['open']}, aria-expanded={g['expanded']})")
        t.check(g["zoomOnTop"] and g["locateOnTop"], f"{label}: zoom and location buttons are not covered (panel {g['open']})")
        t.check(bool(g["legend"]) and g["legend"]["left"] >= 0 and g["legend"]["bottom"] <= height and "Legend" in g["legendText"],
                f"{label}: the legend is on screen ({g['legend']})")
        t.check(bool(g["attribution"]) and g["attribution"]["right"] <= width and g["attribution"]["bottom"] <= height
                and all(s in g["attributionText"] for s in ("Leaflet", "GSHHG", "LGPL", "Natural Earth", "GeoNames")),
                f"{label}: the attribution is on screen: {g['attributionText']!r}")
        o = driver.execute_script(OVERLAP_JS)
        t.check(o["overlapping"] == 0 and o["whole"] > 0,
                f"{label}: no two marker labels overlap ({o['whole']} labels, {o['dots']} dots, overlapping {o['overlapping']}: {o['pairs']})")
        t.check(o["placesUnder"] == 0 and (o["places"] or width < 1000),
                f"{label}: place labels shown only where no station marker covers them ({o['places']}; under markers {o['placesUnder']}: {o['under']})")
        t.screenshot(driver, args.screenshots, f"layout-{label}-start")
        run_hit_areas(t, driver, label)
        # The other panel state: controls still clear, no overflow; phones: a sheet under 2/3 of the screen.
        driver.find_element(By.ID, "panel-toggle").click()
        g2 = driver.execute_script(GEOMETRY_JS)
        no_overflow(t, g2, f"{label} panel toggled")
        t.check(g2["open"] != g["open"] and g2["expanded"] == g2["open"], f"{label}: the toggle {'expands' if g2['open'] == 'true' else 'collapses'} the panel")
        t.check(g2["zoomOnTop"] and g2["locateOnTop"], f"{label}: zoom and location buttons are not covered (panel {g2['open']})")
        opened = g2 if g2["open"] == "true" else g
        if width <= 560:
            t.check(opened["panel"]["height"] <= 0.66 * height and opened["panel"]["bottom"] == height,
                    f"{label}: expanded, the bottom sheet takes {opened['panel']['height']:.0f} of {height} px")
        elif small_screen:
            t.check(opened["panel"]["width"] <= 0.4 * width, f"{label}: expanded, the side sheet takes {opened['panel']['width']:.0f} of {width} px")
        closed = g if g["open"] == "false" else g2
        t.check(closed["panel"]["height"] <= 64, f"{label}: collapsed, the panel is one line ({closed['panel']['height']:.0f} px)")
        if small_screen:
            t.check(not opened["small"], f"{label}: every control is at least 44x44 px ({opened['small'][:6]})")
        if opened is g2:
            t.screenshot(driver, args.screenshots, f"layout-{label}-panel-open")
        # Leave the panel expanded (the harder case for the callout), then open a callout.
        if g2["open"] != "true":
            driver.find_element(By.ID, "panel-toggle").click()
        station = driver.execute_script(TAPPABLE_JS)
        for _ in range(3):  # a small screen may show only clusters: tap one (it zooms in) until stations show
            if station:
                break
            driver.execute_script("const c = [...document.querySelectorAll('.leaflet-marker-pane .ann.cluster')]"
                                  ".sort((a, b) => b.textContent.localeCompare(a.textContent))[0]; if (c) c.click();")
            t.settle(driver, fixtures, f"{label}: zoomed in on a cluster", clustered=True)
            station = driver.execute_script(TAPPABLE_JS)
        t.check(bool(station), f"{label}: a station marker to tap ({station})")
        if station:
            click_fresh(driver, f'.ann[data-id="{station}"]')
            box = t.wait_for(driver, f"{label}: callout open", f"return (() => {{ {POPUP_BOX_JS} }})();")
            time.sleep(0.6)  # the autopan animation
            box = driver.execute_script(POPUP_BOX_JS)
            t.check(bool(box) and box["left"] >= 0 and box["top"] >= 0 and box["right"] <= width and box["bottom"] <= height
                    and not box["overlapsPanel"] and not box["overlapsControls"],
                    f"{label}: the callout of {station} is inside the viewport, clear of the panel and the zoom buttons ({json.dumps(box)})")
            g3 = driver.execute_script(GEOMETRY_JS)
            no_overflow(t, g3, f"{label} callout open")
            t.screenshot(driver, args.screenshots, f"layout-{label}-callout")
            if args.docs_dir:  # the README shows all six
                driver.save_screenshot(os.path.join(args.docs_dir, f"web-map-{label}.png"))
                t.shrink_png(os.path.join(args.docs_dir, f"web-map-{label}.png"))
            run_detail_fits(t, driver, args, label, width, height)


def run_detail_fits(t, driver, args, label, width, height):
    """The detail screen with a forecast (icons, chart, daily rows) at each size: inside the
    viewport, nothing scrolling sideways, clear of the zoom and location buttons."""
    driver.find_element(By.CSS_SELECTOR, ".leaflet-popup .detail-open").click()
    report = t.wait_for(driver, f"{label}: detail report", "return window.isobar.detail && window.isobar.detail.details ? window.isobar.detail : null;")
    if not report:
        return
    inject_forecast(driver)
    shown = driver.execute_script("""
        const d = document.getElementById('detail'); const b = d.getBoundingClientRect();
        const chart = d.querySelector('svg.hourly-chart'); const c = chart ? chart.getBoundingClientRect() : null;
        const buttons = [...document.querySelectorAll('.leaflet-control-zoom, .locate-control')].map((el) => el.getBoundingClientRect());
        const covers = buttons.some((r) => !(b.right <= r.left || b.left >= r.right || b.bottom <= r.top || b.top >= r.bottom));
        return {left: b.left, right: b.right, top: b.top, bottom: b.bottom, scroll: d.scrollWidth, client: d.clientWidth,
                doc: document.documentElement.scrollWidth, docHeight: document.documentElement.scrollHeight,
                chart: !!c && c.left >= b.left && c.right <= b.right, icons: d.querySelectorAll('svg.wx-icon').length,
                days: d.querySelectorAll('.day-row').length, coversButtons: covers};""")
    t.check(shown["left"] >= 0 and shown["right"] <= width and shown["top"] >= 0 and shown["bottom"] <= height
            and shown["scroll"] <= shown["client"] and shown["doc"] == width and shown["docHeight"] == height
            and shown["chart"] and shown["icons"] >= 3 and shown["days"] == 3 and (width <= 560 or height <= 500 or not shown["coversButtons"]),
            f"{label}: the detail screen with chart, {shown['icons']} icons and {shown['days']} days fits {width}x{height} ({shown})")
    t.screenshot(driver, args.screenshots, f"layout-{label}-detail")
    if args.docs_dir and label in ("390x844", "1280x900"):
        driver.save_screenshot(os.path.join(args.docs_dir, f"web-map-{label}-detail.png"))
        t.shrink_png(os.path.join(args.docs_dir, f"web-map-{label}-detail.png"))
    driver.find_element(By.CSS_SELECTOR, "#detail .close").click()
    run_list_icons(t, driver, args, label, width)


def run_list_icons(t, driver, args, label, width):
    """Weather icons in the panel's lists: a `starred` frame whose days carry `icon` (as a feed with
    icons gives them) draws one icon per favorite, inside the panel at phone width; the page's own
    list comes back after."""
    before = driver.execute_script("return window.isobar.favorites;")
    if driver.execute_script("return document.getElementById('panel').dataset.open") != "true":
        driver.find_element(By.ID, "panel-toggle").click()
    driver.execute_script("""
      const day = (title, icon) => ({title, icon, details: [{label: 'Temperature', value: title}]});
      window.isobar.receive({type: 'starred', reason: 'added', field: 'temperature', units: 'imperial', windUnit: 'mph', locale: 'en', count: 2,
        items: [{id: 'K1D3', known: true, name: 'PLATTE', coordinate: {latitude: 43.40332, longitude: -98.82952}, today: day('46°', 'snow'), tomorrow: day('41°', 'cloudy')},
                {id: 'KDEN', known: true, name: 'DENVER', coordinate: {latitude: 39.85, longitude: -104.66}, today: day('50°', 'partly-cloudy-day'), tomorrow: null}]});""")
    shown = driver.execute_script("""
      const rows = [...document.querySelectorAll('#favorites li')];
      const panel = document.getElementById('panel').getBoundingClientRect();
      return {icons: rows.map((li) => (li.querySelector('svg.wx-icon') || {dataset: {}}).dataset.icon || null),
              inside: rows.every((li) => { const b = li.getBoundingClientRect(); return b.left >= panel.left && b.right <= panel.right; }),
              doc: document.documentElement.scrollWidth};""")
    t.check(shown["icons"] == ["snow", "partly-cloudy-day"] and shown["inside"] and shown["doc"] == width,
            f"{label}: favorites drawn with their weather icons inside the panel ({shown})")
    t.screenshot(driver, args.screenshots, f"layout-{label}-list-icons")
    if before:
        driver.execute_script("window.isobar.receive(arguments[0]);", before)


def inject_forecast(driver):
    """A report as a Dark Sky feed gives it (PROTOCOL.md "Detail"): 24 hours and 3 days, with icons."""
    driver.execute_script("""
      const d = window.isobar.detail;
      const start = Math.floor(Date.now() / 3600000) * 3600;
      const icons = ['clear-day', 'partly-cloudy-day', 'cloudy', 'rain', 'thunderstorm', 'partly-cloudy-night'];
      const hourly = Array.from({length: 24}, (_, i) => ({time: start + i * 3600, label: 'h' + i, icon: icons[Math.floor(i / 4)],
        summary: 'Partly Cloudy', details: [{label: 'Temperature', value: (40 + 8 * Math.sin(i / 4)).toFixed(1) + ' °F'},
          {label: 'Chance of precipitation', value: (i > 10 && i < 18 ? 20 + i * 3 : 0) + ' %'},
          {label: 'Wind', value: '6.9 mph from W (270°) →'}]}));
      const daily = ['rain', 'snow', 'clear-day'].map((icon, i) => ({time: start + i * 86400, label: 'd' + i, icon, summary: icon,
        details: [{label: 'Minimum', value: (30 + i) + '.0 °F'}, {label: 'Maximum', value: (45 + i) + '.5 °F'},
          {label: 'Chance of precipitation', value: (60 - 20 * i) + ' %'}]}));
      // The US zone of the station's longitude (the sample feed is the lower 48), as a feed would name it.
      const lon = d.coordinate ? d.coordinate.longitude : -105;
      const timeZone = lon < -114 ? 'America/Los_Angeles' : lon < -101.5 ? 'America/Denver' : lon < -86 ? 'America/Chicago' : 'America/New_York';
      window.isobar.receive(Object.assign({}, d, {icon: 'rain', zone: timeZone, hourly, daily}));""")


def run_geolocation(t, driver, args, fixtures):
    """My location through Chromium's geolocation override: centred and marked; denied: the message."""
    t.set_viewport_size(driver, 1280, 900)
    driver.get(args.url)
    t.settle(driver, fixtures, "geolocation: loaded", clustered=True)
    origin = args.url.rstrip("/")
    here = {"latitude": 39.7392, "longitude": -104.9903, "accuracy": 50}
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", here)
    driver.find_element(By.CSS_SELECTOR, ".locate-button").click()
    found = t.wait_for(driver, "geolocation: position found", "return window.isobar.location && window.isobar.location.latitude ? window.isobar.location : null;")
    centre = driver.execute_script("const c = window.isobar.map.getCenter(); return [c.lat, c.lng, !!document.querySelector('.my-location')];")
    t.check(bool(found) and abs(centre[0] - here["latitude"]) < 1e-4 and abs(centre[1] - here["longitude"]) < 1e-4 and centre[2],
            f"my location: the map is centred on the given point and marks it ({centre})")
    t.settle(driver, fixtures, "geolocation: the viewport follows", clustered=True)
    t.screenshot(driver, args.screenshots, "12-my-location")
    # Pan away, press again: back to the position.
    driver.execute_script("window.isobar.map.panBy([400, 200], {animate: false});")
    driver.find_element(By.CSS_SELECTOR, ".locate-button").click()
    back = t.wait_for(driver, "geolocation: back to the position",
                      f"const c = window.isobar.map.getCenter(); return Math.abs(c.lat - {here['latitude']}) < 1e-4 && Math.abs(c.lng - {here['longitude']}) < 1e-4;")
    t.check(bool(back), "my location: pressed again after a pan, the map returns to the position")
    # Denied: the page says so.
    driver.execute_cdp_cmd("Browser.setPermission", {"origin": origin, "permission": {"name": "geolocation"}, "setting": "denied"})
    driver.get(args.url)
    t.settle(driver, fixtures, "geolocation denied: loaded", clustered=True)
    driver.find_element(By.CSS_SELECTOR, ".locate-button").click()
    text = t.wait_for(driver, "geolocation: denied message",
                      "const m = document.getElementById('locate-message'); return !m.hidden && /denied/.test(m.textContent) ? m.textContent : null;")
    t.check(bool(text) and "permission denied" in text, f"my location denied: the page says so ({text!r})")
    t.screenshot(driver, args.screenshots, "13-location-denied")
    driver.execute_cdp_cmd("Browser.resetPermissions", {})
    driver.execute_cdp_cmd("Emulation.clearGeolocationOverride", {})


def run_axe(t, driver, args, fixtures, axe_dir):
    """axe-core (from PyPI's axe-selenium-python) at 1280x900 and 390x844 on the page with the panel
    open, then with a callout open, the detail screen with a forecast, and the About dialog: no
    serious or critical violation in any. Then the keyboard: Tab alone reaches every control."""
    if axe_dir:
        sys.path.insert(0, axe_dir)
    try:
        from axe_selenium_python import Axe
    except ImportError:
        t.check(False, "axe: axe-selenium-python is not installed (scripts/checks/browser.sh installs it)")
        return

    def audit(label):
        axe = Axe(driver)
        axe.inject()
        results = axe.run()
        bad = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        t.check(not bad, f"axe {label}: no serious or critical violation "
                         f"({[(v['id'], v['impact'], len(v['nodes']), v['nodes'][0]['target']) for v in bad]}; "
                         f"{len(results['violations'])} lesser: {[v['id'] for v in results['violations'] if v not in bad]})")

    for width, height in ((1280, 900), (390, 844)):
        size = f"{width}x{height}"
        t.set_viewport_size(driver, width, height)
        driver.get(args.url)
        t.settle(driver, fixtures, f"axe {size}: loaded", clustered=True)
        if driver.execute_script("return document.getElementById('panel').dataset.open") != "true":
            driver.find_element(By.ID, "panel-toggle").click()
        audit(f"{size} panel open")
        station = driver.execute_script(TAPPABLE_JS)
        if station:
            click_fresh(driver, f'.ann[data-id="{station}"]')
            if t.wait_for(driver, f"axe {size}: callout open", f"return (() => {{ {POPUP_BOX_JS} }})();"):
                audit(f"{size} callout open")
                driver.find_element(By.CSS_SELECTOR, ".leaflet-popup .detail-open").click()
                if t.wait_for(driver, f"axe {size}: detail", "return window.isobar.detail && window.isobar.detail.details ? true : null;"):
                    inject_forecast(driver)
                    audit(f"{size} detail with forecast")
                    driver.find_element(By.CSS_SELECTOR, "#detail .close").click()
        if driver.execute_script("return document.getElementById('panel').dataset.open") != "true":
            driver.find_element(By.ID, "panel-toggle").click()
        driver.find_element(By.ID, "about-open").click()
        about = t.wait_for(driver, f"axe {size}: About open", "const d = document.getElementById('about'); return d.open ? d.textContent : null;")
        missing = [s for s in ("GeoNames", "CC BY 4.0", "GSHHG", "LGPL", "Natural Earth", "Leaflet", "today.json") if s not in (about or "")]
        t.check(bool(about) and not missing,
                f"{size}: About names the data sources loaded (the feed's URL, GeoNames, GSHHG, Natural Earth, Leaflet) and their licences "
                f"(missing {missing}: {about and about[:400]!r})")
        audit(f"{size} About dialog")
        driver.find_element(By.CSS_SELECTOR, "#about .close").click()
    run_keyboard(t, driver, args, fixtures)


def run_keyboard(t, driver, args, fixtures):
    """Tab alone, from the top of the page at 1280x900, reaches every control: the zoom and location
    buttons, a station marker, the legend, each toggle button, the search box, nearest and About;
    Enter on a focused marker opens its callout."""
    t.set_viewport_size(driver, 1280, 900)
    driver.get(args.url)
    t.settle(driver, fixtures, "keyboard: loaded", clustered=True)
    driver.execute_script("""window.__focused = [];
      document.addEventListener('focusin', (e) => { const el = e.target;
        window.__focused.push(el.id || el.dataset.value || el.dataset.id || (el.querySelector && el.querySelector('[data-id]') ? 'marker:' + el.querySelector('[data-id]').dataset.id : '')
          || el.className || el.tagName); });
      document.activeElement && document.activeElement.blur();""")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    markers = driver.execute_script("return document.querySelectorAll('.leaflet-marker-icon[tabindex]').length")
    chain = ActionChains(driver)
    for _ in range(markers + 60):
        chain.send_keys(Keys.TAB)
    chain.perform()
    focused = driver.execute_script("return window.__focused;")
    toggles = driver.execute_script("return [...document.querySelectorAll('#panel [data-control] button')].map((b) => b.dataset.value);")
    want = ["leaflet-control-zoom-in", "leaflet-control-zoom-out", "locate-button", "panel-toggle", "search", "nearest", "about-open"] + toggles
    missing = [w for w in want if not any(w == f or w in f.split() for f in focused)]
    legend = any("legend" in f.lower() or f == "SUMMARY" for f in focused)
    marker = next((f for f in focused if f.startswith("marker:")), None)
    t.check(not missing and legend and marker, f"keyboard: Tab reaches every control ({len(focused)} stops; missing {missing}, legend {legend}, marker {marker})")
    # Enter on a focused station marker opens its callout.
    target = driver.execute_script("""const m = [...document.querySelectorAll('.leaflet-marker-icon[tabindex]')]
        .find((el) => el.querySelector('.ann[data-id]:not(.cluster)')); if (!m) return null; m.focus(); return m.querySelector('[data-id]').dataset.id;""")
    if target:
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        opened = t.wait_for(driver, "keyboard: Enter opens the callout", f"const p = document.querySelector('.leaflet-popup'); return p && window.isobar.state.selected === {json.dumps(target)} ? true : null;")
        t.check(bool(opened), f"keyboard: Enter on the focused marker {target} opens its callout")
    else:
        t.check(False, "keyboard: no station marker to focus")


def wait_signal(t, directory, name, timeout=60):
    path = os.path.join(directory, name)
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    t.check(False, f"offline: no '{name}' from browser.sh within {timeout} s")
    return False


def signal(directory, name):
    open(os.path.join(directory, name), "w").close()


HELD_JS = """
const i = window.isobar; if (!i) return null;
return {ids: [...i.annotations.keys()].sort(), status: document.getElementById('status-text').textContent,
        connection: i.state.connection, opens: i.state.opens, offline: document.body.classList.contains('offline'),
        drawn: document.querySelectorAll('.ann[data-id]').length,
        controlled: !!(navigator.serviceWorker && navigator.serviceWorker.controller)};
"""


def run_offline(t, driver, args, fixtures):
    """The gateway stops under an open page, then (when a service worker is served) the page is
    reloaded without it, then the gateway comes back: kept markers shown and marked
    "offline, data from HH:MM", then live again without a reload. browser.sh stops and starts the
    gateway when this writes `stop` and `start` in the signal directory."""
    sig = args.offline
    t.set_viewport_size(driver, 1280, 900)
    driver.get(args.url)
    t.settle(driver, fixtures, "offline: live first", clustered=True)
    kept = t.wait_for(driver, "offline: the view and annotations kept",
                      "const k = JSON.parse(localStorage.getItem('isobar.offline') || 'null'); "
                      "return k && k.items.length === window.isobar.annotations.size ? k.items.length : null;")
    sw_status = driver.execute_async_script("const done = arguments[0]; fetch('sw.js', {cache: 'no-store'}).then(r => done(r.status), () => done(0));")
    if sw_status == 200:
        # The worker installs on the first load and claims the page; a reload is then served from it.
        t.wait_for(driver, "offline: service worker active", "return !!navigator.serviceWorker.controller;", timeout=15)
    held = driver.execute_script(HELD_JS)
    signal(sig, "stop")
    if not wait_signal(t, sig, "stopped"):
        return
    shown = t.wait_for(driver, "offline: the open page says offline",
                       "const s = (() => { " + HELD_JS + " })(); return s && s.offline && /offline, data from \\d\\d:\\d\\d/.test(s.status) ? s : null;")
    t.check(bool(shown) and shown["ids"] == held["ids"] and shown["drawn"] == len(held["ids"]),
            f"offline: with the gateway stopped the page keeps its {kept} markers and says {shown and shown['status']!r}")
    t.screenshot(driver, args.screenshots, "14-offline-open-page")
    if sw_status == 200:
        driver.get(args.url)
        again = t.wait_for(driver, "offline: reload without the gateway",
                           "const s = (() => { " + HELD_JS + " })(); return s && s.offline && s.ids.length ? s : null;", timeout=15)
        t.check(bool(again) and again["ids"] == held["ids"] and again["drawn"] == len(held["ids"]) and "offline, data from" in again["status"],
                f"offline start: a reload with the gateway down shows the kept {len(held['ids'])} markers, {again and again['status']!r}")
        t.screenshot(driver, args.screenshots, "15-offline-start")
        if args.docs_dir:
            driver.save_screenshot(os.path.join(args.docs_dir, "web-map-offline.png"))
            t.shrink_png(os.path.join(args.docs_dir, "web-map-offline.png"))
    else:
        t.log(f"SKIP offline start after a reload: the gateway answers {sw_status} for sw.js beside the page "
              "(a service worker controls only pages at or under its own path)")
    opens = driver.execute_script("return window.isobar.state.opens")
    signal(sig, "start")
    if not wait_signal(t, sig, "started", timeout=90):
        return
    live = t.wait_for(driver, "offline: live again",
                      f"const s = (() => {{ {HELD_JS} }})(); return s && s.connection === 'connected' && s.opens > {opens} && !s.offline ? s : null;",
                      timeout=30)
    t.check(bool(live) and "offline" not in live["status"], f"offline: the gateway back, the page is live again by itself ({live and live['status']!r})")
    t.settle(driver, fixtures, "offline: converged after the gateway came back", clustered=True)


def run_theme(t, driver, args, fixtures):
    """The map style switch: dark outlines and sea, then back to light (kept in the settings)."""
    t.set_viewport_size(driver, 1280, 900)
    driver.get(args.url)
    t.settle(driver, fixtures, "theme: loaded", clustered=True)
    STYLE_JS = ("return [document.body.classList.contains('theme-dark'), getComputedStyle(document.getElementById('map')).backgroundColor, "
                "JSON.parse(localStorage.getItem('isobar.settings')).theme];")
    t.click_control(driver, "theme", "dark")
    dark = driver.execute_script(STYLE_JS)
    t.screenshot(driver, args.screenshots, "16-dark")
    t.click_control(driver, "theme", "light")
    light = driver.execute_script(STYLE_JS)
    t.check(dark == [True, "rgb(22, 33, 44)", "dark"] and light == [False, "rgb(201, 220, 232)", "light"],
            f"the map style switches to dark and back ({dark}, {light})")
