"""The conditions field and the feeds' credits in Chromium, on the sample feed's every format
(`isobar up --sample --sample-formats all`: onX without icons, Dark Sky, OpenWeather, AirVisual,
METAR, Open-Meteo and NWS with them), at 1280x900, 820x1180, 390x844 and 844x390:

- the field switcher's Conditions button asks for `field: conditions` and the markers are the
  annotations' icons: every station marker drawn whole shows `svg.wx-icon` with the annotation's
  `icon`, every station without one shows `–`, every cluster its count and its `icon`;
- the legend explains the icons (every icon of the vocabulary, the dash);
- a station's callout draws its icon (the callout's `icon`, the station's);
- About credits METAR, Open-Meteo and NWS in their own words (the page learned them from the
  `formats` of the `status` the gateway sent it on connecting), and the map's attribution line says
  "Weather data by Open-Meteo.com";
- no sideways scroll with the conditions markers and the callout open.

Imported by test_map.py, which passes itself as `t` (check/settle/wait_for/screenshot helpers).
"""
import json
import os
import time

from selenium.webdriver.common.by import By

SIZES = [(1280, 900), (820, 1180), (390, 844), (844, 390)]

MARKERS_JS = """
const held = window.isobar.annotations;
const out = {field: window.isobar.client.set.shown.field, stations: 0, icons: 0, dashes: 0, clusters: 0, wrong: [], dots: 0};
for (const el of document.querySelectorAll('.leaflet-marker-pane .ann[data-id]')) {
  const a = held.get(el.dataset.id);
  if (!a) { out.wrong.push('not held: ' + el.dataset.id); continue; }
  if (el.classList.contains('dot')) { out.dots++; continue; }
  const svg = el.querySelector('svg.wx-icon');
  const drawn = svg ? svg.dataset.icon : null;
  if (a.cluster) { out.clusters++; if ((a.icon || null) !== drawn) out.wrong.push(`${a.id}: cluster ${a.icon} drawn ${drawn}`); continue; }
  out.stations++;
  if (a.icon) { out.icons++; if (drawn !== a.icon) out.wrong.push(`${a.id}: ${a.icon} drawn ${drawn}`); }
  else { out.dashes++; if (drawn || el.textContent !== '–' || a.title !== '') out.wrong.push(`${a.id}: no icon, drawn ${drawn} ${el.textContent} title ${a.title}`); }
}
out.doc = document.documentElement.scrollWidth;
return out;
"""

ICON_STATION_JS = """
const map = document.getElementById('map').getBoundingClientRect();
for (const el of document.querySelectorAll('.leaflet-marker-pane .ann[data-id]:not(.cluster):not(.dot)')) {
  const a = window.isobar.annotations.get(el.dataset.id);
  if (!a || !a.icon) continue;
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < map.left + 60 || y < map.top + 10 || x > map.right - 10 || y > map.bottom - 30) continue;
  const hit = document.elementFromPoint(x, y);
  if (hit && hit.closest('.ann') === el) return {id: a.id, icon: a.icon};
}
return null;
"""


def open_panel(driver):
    if driver.execute_script("return document.getElementById('panel').dataset.open") != "true":
        driver.find_element(By.ID, "panel-toggle").click()


def close_panel(driver):
    if driver.execute_script("return document.getElementById('panel').dataset.open") == "true":
        driver.find_element(By.ID, "panel-toggle").click()


def run_conditions(t, driver, args):
    for width, height in SIZES:
        label = f"conditions {width}x{height}"
        t.set_viewport_size(driver, width, height)
        driver.get(args.url)
        t.wait_for(driver, f"{label}: loaded", "return window.isobar.version > 0 && window.isobar.annotations.size > 0")
        # The whole world: every sample format's stations (the US, Europe, Asia, Africa).
        driver.execute_script("window.isobar.map.setView([30, -20], 2, {animate: false});")
        open_panel(driver)
        driver.find_element(By.CSS_SELECTOR, '[data-control="field"] button[data-value="conditions"]').click()
        m = t.wait_for(driver, f"{label}: conditions annotations", f"""
            const m = (() => {{ {MARKERS_JS} }})();
            return m.field === 'conditions' && window.isobar.viewport && window.isobar.viewport.field === 'conditions'
              && !window.isobar.state.awaitingFull && m.icons > 0 ? m : null;""")
        time.sleep(0.5)
        m = driver.execute_script(MARKERS_JS)
        t.check(m["field"] == "conditions" and m["icons"] >= 1 and not m["wrong"] and m["doc"] == width,
                f"{label}: markers are the annotations' icons ({m['icons']} icons, {m['dashes']} dashes, {m['clusters']} clusters, "
                f"{m['dots']} dots; wrong {m['wrong'][:5]}; document width {m['doc']})")
        if width >= 800:  # onX's stations (no icon) are in view on the larger screens
            t.check(m["dashes"] > 0 or m["clusters"] > 0, f"{label}: stations without an icon drawn as – ({m['dashes']})")
        legend = driver.execute_script("""
            const box = document.getElementById('legend'); box.open = true;
            return {field: box.dataset.field, icons: [...box.querySelectorAll('svg.wx-icon')].map((s) => s.dataset.icon),
                    dash: !!box.querySelector('.swatch.ann.cond.unknown'), text: box.textContent};""")
        t.check(legend["field"] == "conditions" and len(set(legend["icons"])) == 12 and legend["dash"]
                and "Partly cloudy" in legend["text"] and "no conditions" in legend["text"],
                f"{label}: the legend explains all 12 icons and the dash ({len(set(legend['icons']))} icons)")
        close_panel(driver)
        station = driver.execute_script(ICON_STATION_JS)
        t.check(bool(station), f"{label}: a station with an icon to tap ({station})")
        if station:
            driver.execute_script("arguments[0].click();", driver.find_element(By.CSS_SELECTOR, f'.ann[data-id="{station["id"]}"]'))
            drawn = t.wait_for(driver, f"{label}: callout of {station['id']} with its icon", f"""
                const body = document.querySelector('.leaflet-popup .callout-body[data-id="{station['id']}"]');
                const svg = body && body.querySelector('.callout-icon svg.wx-icon');
                return svg ? svg.dataset.icon : null;""")
            t.check(drawn == station["icon"], f"{label}: the callout of {station['id']} draws its icon ({drawn}, marker {station['icon']})")
            time.sleep(0.6)
            doc = driver.execute_script("return document.documentElement.scrollWidth")
            t.check(doc == width, f"{label}: no sideways scroll with the callout open ({doc})")
            t.screenshot(driver, args.screenshots, f"conditions-{width}x{height}")
            if args.docs_dir and (width, height) in ((1280, 900), (390, 844)):
                path = os.path.join(args.docs_dir, f"web-map-conditions-{width}x{height}.png")
                driver.save_screenshot(path)
                t.shrink_png(path)
        attribution = driver.execute_script("return document.querySelector('.leaflet-control-attribution').textContent")
        t.check("Weather data by Open-Meteo.com" in attribution and "Aviation Weather Center" in attribution and "NWS" in attribution,
                f"{label}: the attribution line credits the weather feeds: {attribution!r}")
    about = driver.execute_script("""
        window.isobar.about.open();
        const list = document.querySelector('#about .sources');
        return {feeds: list.dataset.feeds, text: list.textContent};""")
    for words in ("Weather data by Open-Meteo.com, licensed under CC BY 4.0",
                  "Source: NOAA Aviation Weather Center (U.S. National Weather Service data, public domain)",
                  "Source: NOAA National Weather Service (api.weather.gov, public domain)",
                  "Powered by Dark Sky", "OpenWeather", "IQAir AirVisual", "Weather data: onX"):
        t.check(words in about["text"], f"About credits {words!r} (feeds {about['feeds']!r})")
    t.check(about["feeds"] == "airvisual darksky metar nws onx openmeteo openweather",
            f"About names exactly the feeds loaded: {json.dumps(about['feeds'])}")
    t.screenshot(driver, args.screenshots, "conditions-about")
