// My places (issue 28 item 8): the favorites list of `starred` (PROTOCOL.md `favorite`, `starred`)
// with stations, gazetteer places and dropped pins in the client's order. Each row: the name, the
// weather icon, temperature and humidity of the shown day (only what the server sent: never
// guessed), a tap opens the detail (a station: `detail`; a place or pin: `weather` with
// `"detail":true` for its place id or coordinate), and a remove button. starredRows and
// myPlaceRow are pure (no DOM): Tests/web/myplaces.test.mjs checks them under node.
import { escapeHTML } from "./i18n.mjs";
import { rowIcon } from "./rows.mjs";
import { samePoint } from "./client.mjs";

/// The key a list entry is known by in the page: a station's id, `place:GEONAMEID`, `pin:LAT,LON`.
export function entryKey(item) {
  if (item && item.place && item.place.id != null) return `place:${item.place.id}`;
  if (item && item.pin) return `pin:${item.pin.latitude},${item.pin.longitude}`;
  return String(item && item.id);
}

/// "46°F" / "8°C" (rounded) for the `temperature` of a row, null when unknown.
export function temperatureText(value, units) {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const rounded = Math.round(value);
  return `${Object.is(rounded, -0) ? 0 : rounded}°${units === "imperial" ? "F" : "C"}`;
}

/// "81 %" for a row's `humidity`, null when unknown.
export function humidityText(value) {
  return typeof value === "number" && Number.isFinite(value) ? `${Math.round(value)} %` : null;
}

/// The rows of a `starred` message for `day` ("today" or "tomorrow"): per item its key, kind
/// (`station`, `place`, `pin`), name, whether the server knows it, the day's icon, temperature and
/// humidity texts (null where the server sent none), the day's subtitle (a place's or pin's
/// answering station), what a tap opens (`{detail: id}` or `{weather: request}`) and the
/// `favorite` message that removes it.
export function starredRows(m, day) {
  const units = m && m.units;
  return ((m && m.items) || []).map((item) => {
    const d = (item && item[day]) || null;
    const kind = item.place ? "place" : item.pin ? "pin" : "station";
    const row = {
      key: entryKey(item),
      kind,
      name: item.name || (item.place && item.place.name) || (item.pin && item.pin.name) || item.id || "",
      known: item.known !== false,
      icon: (d && typeof d.icon === "string" && d.icon) || null,
      temperature: d ? temperatureText(d.temperature, units) : null,
      humidity: d ? humidityText(d.humidity) : null,
      title: (d && d.title) || null,
      subtitle: (d && d.subtitle) || null,
    };
    if (kind === "place") {
      row.open = { weather: { type: "weather", id: item.place.id, detail: true } };
      row.remove = { type: "favorite", place: { id: item.place.id }, on: false };
    } else if (kind === "pin") {
      row.open = { weather: { type: "weather", latitude: item.pin.latitude, longitude: item.pin.longitude, detail: true } };
      row.remove = { type: "favorite", pin: { latitude: item.pin.latitude, longitude: item.pin.longitude }, on: false };
    } else {
      row.open = { detail: item.id };
      row.remove = { type: "favorite", id: item.id, on: false };
    }
    return row;
  });
}

/// A row's HTML: icon, name, the kind (or the station's id), temperature and humidity.
export function myPlaceRow(row, locale, t) {
  const kind = row.kind === "station" ? row.key : t(row.kind === "place" ? "placeKind" : "pinKind");
  const values = [row.temperature && `<span class="temp">${escapeHTML(row.temperature)}</span>`,
    row.humidity && `<span class="humidity" title="${escapeHTML(t("humidity"))}">💧${escapeHTML(row.humidity)}</span>`].filter(Boolean);
  return rowIcon(row.icon, locale) +
    `<span class="name">${escapeHTML(row.known ? row.name : t("unknownStation"))}</span>` +
    `<span class="id">${escapeHTML(kind)}</span>` +
    `<span class="title">${values.length ? values.join(" ") : escapeHTML(row.title || "–")}</span>`;
}

/// The list in the panel (#favorites), the count badge, and what the page asks about it.
export function createMyPlaces(ctx) {
  const list = document.getElementById("favorites");
  const badge = document.getElementById("fav-count");
  let keys = new Set();
  let pins = [];

  function open(row) {
    if (row.open.detail) {
      ctx.find.goTo(row.open.detail, ctx.annotations().get(row.open.detail)?.coordinate || row.coordinate, row.name);
      ctx.openDetail(row.open.detail);
    } else {
      ctx.openWeather(row.open.weather, row.name);
    }
  }

  function render(m) {
    const rows = starredRows(m, ctx.settings.day);
    keys = new Set(rows.map((r) => r.key));
    pins = ((m && m.items) || []).filter((i) => i && i.pin).map((i) => i.pin);
    badge.textContent = String(typeof m.count === "number" ? m.count : rows.length);
    const items = rows.map((row, index) => {
      row.coordinate = m.items[index].coordinate;
      const li = document.createElement("li");
      li.dataset.id = row.key;
      li.dataset.kind = row.kind;
      li.innerHTML = myPlaceRow(row, ctx.settings.locale, ctx.t);
      if (li.querySelector(".wx")) li.classList.add("has-icon");
      if (!row.known) li.classList.add("unknown");
      else {
        li.tabIndex = 0;
        li.addEventListener("click", (e) => !e.target.closest(".remove") && open(row));
        li.addEventListener("keydown", (e) => e.target === li && (e.key === "Enter" || e.key === " ") && (e.preventDefault(), open(row)));
      }
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove";
      remove.textContent = "×";
      remove.title = `${ctx.t("remove")}: ${row.known ? row.name : row.key}`;
      remove.setAttribute("aria-label", remove.title);
      remove.addEventListener("click", (e) => {
        e.stopPropagation();
        ctx.send(row.remove);
      });
      li.append(remove);
      return li;
    });
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = ctx.t("noFavorites");
      items.push(li);
    }
    list.replaceChildren(...items);
  }

  return {
    render,
    has: (key) => keys.has(key),
    keys: () => keys,
    hasPin: (point) => pins.some((p) => samePoint(p, point)),
  };
}
