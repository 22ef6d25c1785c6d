"""My places (issue 28 item 8) in headless Chromium, against the live pipeline and its GeoNames cut
(scripts/checks/browser.sh): two places starred from search results (`bookmark`), a pin dropped by a
right click (Leaflet's contextmenu, which a long press also fires) and starred in its callout, and
a station starred in its callout, under one fixed client name (so a new browser after the restart
finds the same list); the rows' exact names and each row's
icon, temperature and humidity wherever the `starred` frame has them; a place's row opens its
detail (`weather` with "detail":true) by click and by keyboard. After browser.sh restarts
`isobar up` on the same data directory (its stored-data phase) the same list comes back, works at
phone size (44 px targets) and a row's remove button removes it."""
import math
import os

from clicking import click_fresh
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

CLIENT = "browser-myplaces"
MITCHELL = {"id": 5229794, "name": "Mitchell"}  # Mitchell, South Dakota: KMHE is 6 km away
HURON = {"id": 5228673, "name": "Huron"}  # Huron, South Dakota: KHON is 3 km away
STATION = {"id": "K1D3", "name": "PLATTE"}

ROWS_JS = """
const f = window.isobar.favorites;
if (!f) return null;
const day = window.isobar.settings.day;
const rows = [...document.querySelectorAll('#favorites li[data-id]')].map(li => ({
  key: li.dataset.id, kind: li.dataset.kind, name: li.querySelector('.name').textContent,
  icon: (li.querySelector('.wx svg') || {dataset: {}}).dataset.icon || null,
  temp: (li.querySelector('.temp') || {}).textContent || null,
  humidity: (li.querySelector('.humidity') || {}).textContent || null}));
const items = f.items.map(i => { const d = i[day]; return {name: i.name, place: i.place ? i.place.id : null, pin: i.pin || null,
  id: i.id || null, icon: (d && d.icon) || null, temperature: d ? d.temperature : null, humidity: d ? d.humidity : null}; });
return {count: f.count, units: f.units, badge: document.getElementById('fav-count').textContent, rows, items};
"""


def js_round(x):
    """Math.round as the page rounds."""
    return math.floor(x + 0.5)


def expected_row(item, units):
    """What a row shows for a frame's item: the icon, temperature and humidity the server sent."""
    temp = None
    if isinstance(item["temperature"], (int, float)):
        temp = f"{js_round(item['temperature'])}°{'F' if units == 'imperial' else 'C'}"
    humidity = f"💧{js_round(item['humidity'])} %" if isinstance(item["humidity"], (int, float)) else None
    return {"icon": item["icon"], "temp": temp, "humidity": humidity}


def check_rows(me, state, names, label):
    """Exact names in order, the badge, and per row what the frame sent (nothing invented)."""
    me.check(bool(state) and [r["name"] for r in state["rows"]] == names and state["badge"] == str(len(names))
             and state["count"] == len(names),
             f"{label}: My places lists {names} with badge {len(names)} "
             f"({state and [r['name'] for r in state['rows']]}, badge {state and state['badge']!r})")
    if not state:
        return
    for row, item in zip(state["rows"], state["items"]):
        want = expected_row(item, state["units"])
        got = {"icon": row["icon"], "temp": row["temp"], "humidity": row["humidity"]}
        me.check(got == want, f"{label}: the row {row['name']!r} shows {got}, the frame sent {want}")
    for row, item in zip(state["rows"], state["items"]):
        if item["place"] in (MITCHELL["id"], HURON["id"]) or item["id"] == STATION["id"]:
            me.check(row["temp"] is not None, f"{label}: {row['name']} has a station in reach and shows its temperature ({row})")


def star_place(me, driver, query, place):
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys(query)
    me.timed_wait(driver, f"search {query!r} lists place {place['id']}",
                  f"return document.querySelector('#results li[data-place=\"{place['id']}\"] .star-place');")
    name = driver.execute_script(f"return document.querySelector('#results li[data-place=\"{place['id']}\"] .name').textContent;")
    me.check(name == place["name"], f"search {query!r} lists {place['name']} ({name!r})")
    before = driver.execute_script("const f = window.isobar.favorites; return f ? f.items.length : 0;")
    click_fresh(driver, f'#results li[data-place="{place["id"]}"] .star-place')
    starred = me.timed_wait(driver, f"star {place['name']} (bookmark) to My places",
                            f"const f = window.isobar.favorites; return f && f.items.length === {before + 1} && "
                            f"f.items.some(i => i.place && i.place.id === {place['id']}) ? f : null;")
    star = driver.execute_script(f"const b = document.querySelector('#results li[data-place=\"{place['id']}\"] .star-place');"
                                 " return b && b.getAttribute('aria-pressed');")
    me.check(bool(starred) and star == "true", f"the star on {place['name']}'s search result adds it and shows on ({star!r})")


def open_detail(me, driver, key, title, keyboard):
    """A My places row opens the detail screen titled with the place's name (`weather` detail)."""
    driver.execute_script("window.isobar.detail = null;")
    li = driver.find_element(By.CSS_SELECTOR, f'#favorites li[data-id="{key}"]')
    if keyboard:
        driver.execute_script("arguments[0].focus();", li)
        ActionChains(driver).send_keys(Keys.ENTER).perform()
    else:
        li.click()
    shown = me.timed_wait(driver, f"My places {title} to its detail",
                          "const d = window.isobar.detail, el = document.getElementById('detail'), h = el.querySelector('h2');"
                          " return d && d.type === 'report' && !el.hidden && h ? {title: d.title, h2: h.textContent, id: d.id,"
                          " lines: el.querySelectorAll('dd').length} : null;")
    me.check(bool(shown) and shown["title"] == title and shown["h2"] == title and shown["lines"] > 0,
             f"{'Enter on' if keyboard else 'a click on'} {title} in My places opens the detail under its name ({shown})")
    driver.find_element(By.CSS_SELECTOR, "#detail .close").click()


def run_myplaces(me, driver, args):
    """Builds the list: Mitchell and Huron from search results, a pin, K1D3; checks rows and details."""
    names_file = f"{args.screenshots}/my-places-names.txt"
    if os.path.exists(names_file):
        os.remove(names_file)  # a list from an earlier run must not stand in for this one's
    me.set_viewport_size(driver, 1280, 800)
    driver.get(args.url + f"?client={CLIENT}")
    me.wait_for(driver, "My places page connected", "return window.isobar.state.connection === 'connected' && window.isobar.version > 0;")
    star_place(me, driver, "mitchell", MITCHELL)
    star_place(me, driver, "huron", HURON)
    # A search -> the place -> its detail (the weather of its nearest station under its name).
    open_detail(me, driver, f"place:{MITCHELL['id']}", MITCHELL["name"], keyboard=False)

    # K1D3's station hit, centred, then a right click on bare map left of the centre drops a pin.
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys("platte")
    me.timed_wait(driver, "search 'platte' lists K1D3", "return document.querySelector('#results li[data-id=\"K1D3\"]');")
    click_fresh(driver, '#results li[data-id="K1D3"]')
    me.timed_wait(driver, "K1D3 callout", f"const p = (() => {{ {me.POPUP_JS} }})(); return p && p.id === 'K1D3' && p.details ? p : null;")
    # The station: the star in K1D3's callout, as before.
    click_fresh(driver, '.leaflet-popup .star[data-id="K1D3"]')
    me.timed_wait(driver, "star K1D3 to My places",
                  "const f = window.isobar.favorites; return f && f.items.length === 3 && f.items[2].id === 'K1D3' ? f : null;")
    box.clear()
    box.send_keys(Keys.ESCAPE)
    map_el = driver.find_element(By.ID, "map")
    spot = driver.execute_script("""
        for (let y = innerHeight / 2 + 60; y > 100; y -= 23) for (let x = innerWidth / 2 - 120; x > 60; x -= 29) {
          const el = document.elementFromPoint(x, y);
          if (el && !el.closest('.ann, #panel, .leaflet-popup, .leaflet-control')) return [x - innerWidth / 2, y - innerHeight / 2];
        }
        return null;""")
    me.check(bool(spot), "a spot of bare map for the pin")
    if not spot:
        return
    ActionChains(driver).move_to_element_with_offset(map_el, int(spot[0]), int(spot[1])).context_click().perform()
    pin = me.timed_wait(driver, "My places pin named with its weather",
                        "const p = window.isobar.pin, el = document.querySelector('.leaflet-popup.pin');"
                        " return p && p.vicinity && p.station && el && el.querySelector('.pin-star') ?"
                        " {name: p.vicinity.place ? p.vicinity.place.name : null, station: p.station.id || null,"
                        "  text: el.textContent, latitude: p.latitude, longitude: p.longitude} : null;")
    me.check(bool(pin) and pin["name"] and pin["name"] in pin["text"] and pin["station"] and pin["station"] in pin["text"],
             f"the long-press/right-click pin is named and its callout shows the weather there ({pin})")
    if not pin:
        return
    click_fresh(driver, ".leaflet-popup.pin .pin-star")
    state = me.timed_wait(driver, "star the pin to My places",
                          f"const s = (() => {{ {ROWS_JS} }})(); return s && s.rows.length === 4 && s.items[3].pin ? s : null;")
    names = [MITCHELL["name"], HURON["name"], STATION["name"], pin["name"]]
    check_rows(me, state, names, "My places")
    me.check(bool(state) and state["items"][3]["pin"] == {"name": pin["name"], "latitude": pin["latitude"], "longitude": pin["longitude"]},
             f"the pin is stored with its name and the point asked ({state and state['items'][3]['pin']})")
    # By keyboard: Enter on Huron's row opens its detail.
    open_detail(me, driver, f"place:{HURON['id']}", HURON["name"], keyboard=True)
    driver.execute_script("window.isobar.clearPin();")
    me.screenshot(driver, args.screenshots, "12-my-places")
    with open(names_file, "w", encoding="utf-8") as out:
        out.write("\n".join(names))


def run_myplaces_restarted(me, driver, args):
    """After the restart on the same data directory: the same four, at phone size too; remove the pin."""
    try:
        with open(f"{args.screenshots}/my-places-names.txt", encoding="utf-8") as source:
            names = source.read().split("\n")
    except OSError:
        me.check(False, "My places after a restart: the first phase left no list to compare with")
        return
    me.set_viewport_size(driver, 390, 844)
    driver.get(args.url + f"?client={CLIENT}")
    state = me.timed_wait(driver, "My places after a restart",
                          f"const s = (() => {{ {ROWS_JS} }})(); return s && s.rows.length === {len(names)} ? s : null;", timeout=25)
    check_rows(me, state, names, "My places after a restart of isobar up")
    # The phone's bottom sheet: open it; every row and remove button is a 44 px target.
    if driver.execute_script("return document.getElementById('panel').dataset.open") != "true":
        driver.find_element(By.ID, "panel-toggle").click()
    sizes = driver.execute_script("""
        document.getElementById('favorites').scrollIntoView();
        return [...document.querySelectorAll('#favorites li[data-id], #favorites .remove')].map(el => {
          const r = el.getBoundingClientRect(); return [el.tagName, Math.round(r.width), Math.round(r.height)]; });""")
    small = [s for s in sizes if s[1] < 44 or s[2] < 44]
    me.check(len(sizes) == 2 * len(names) and not small, f"My places rows and remove buttons are 44 px targets on a phone ({small or sizes})")
    me.screenshot(driver, args.screenshots, "13-my-places-phone")
    pin_key = driver.execute_script("const li = document.querySelector('#favorites li[data-kind=\"pin\"]'); return li && li.dataset.id;")
    click_fresh(driver, f'#favorites li[data-id="{pin_key}"] .remove')
    after = me.timed_wait(driver, "remove the pin from My places",
                          f"const s = (() => {{ {ROWS_JS} }})(); return s && s.rows.length === {len(names) - 1} ? s : null;")
    check_rows(me, after, names[:3], "My places after removing the pin")
