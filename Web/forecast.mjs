// The detail screen's forecast, with no DOM: local times in a named zone, the hourly chart as SVG
// (temperature line, precipitation bars) and the daily rows. The numbers come from each line's
// `key` and `number` (PROTOCOL.md "Data beside text"); a stage that sends only the worded text
// ("40.4 °F", "5 %") is still read, from the text.
import { escapeHTML } from "./i18n.mjs";
import { iconSVG } from "./icons.mjs";

/// The first number in a value like "40.4 °F", "-4,2 °C" or "5 %", or null.
export function numberIn(text) {
  const m = /(-?\d+(?:[.,]\d+)?)/.exec(String(text || ""));
  return m ? Number(m[1].replace(",", ".")) : null;
}

/// The numbers of a forecast point, from the lines' keys (`temperature`, `temperatureLow`,
/// `temperatureHigh`, `precipitation`) when they carry numbers; otherwise from the text:
/// temperatures are the values in °, the chance of precipitation the value in %, and on daily
/// points the first temperature is the low, the second the high.
export function pointValues(point) {
  const byKey = new Map();
  for (const d of point.details || []) if (d.key && typeof d.number === "number") byKey.set(d.key, d.number);
  if (byKey.size > 0) {
    const at = (k) => (byKey.has(k) ? byKey.get(k) : null);
    const low = at("temperatureLow") ?? at("temperature");
    return { temperature: at("temperature") ?? low, low, high: at("temperatureHigh") ?? low, precipitation: at("precipitation") };
  }
  const temps = [];
  let precip = null;
  for (const d of point.details || []) {
    const v = String(d.value || "");
    if (/°\s*[CF]?\s*$/.test(v) && !/\(\d+°\)/.test(v)) temps.push(numberIn(v));
    else if (/%\s*$/.test(v) && precip === null) precip = numberIn(v);
  }
  return { temperature: temps[0] ?? null, low: temps[0] ?? null, high: temps[1] ?? temps[0] ?? null, precipitation: precip };
}

/// The zone to show times in: the station's (the report's `zone`, PROTOCOL.md "Local time": an
/// IANA name, or `UTC+HH:MM` for a fixed offset) when the browser knows it, else the browser's
/// own. Returns { zone, whose: "station" | "browser" }.
export function displayZone(report, browserZone) {
  let zone = report && (report.zone || report.timeZone || report.timezone);
  if (typeof zone === "string") zone = intlZone(zone);
  if (typeof zone === "string" && zone) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      return { zone, whose: "station" };
    } catch (e) {
      /* an unknown zone: fall back to the browser's */
    }
  }
  return { zone: browserZone || "UTC", whose: "browser" };
}

/// A fixed offset as Intl knows it: whole hours as `Etc/GMT-9` (POSIX signs: east is minus),
/// which every engine has; other offsets as `+05:30`, which newer engines accept (an engine that
/// does not falls back to the browser's zone in `displayZone`). IANA names pass unchanged.
export function intlZone(zone) {
  const m = /^UTC([+-])(\d\d):(\d\d)$/.exec(zone);
  if (!m) return zone;
  const hours = Number(m[2]);
  if (m[3] !== "00") return `${m[1]}${m[2]}:${m[3]}`;
  return hours === 0 ? "UTC" : `Etc/GMT${m[1] === "+" ? "-" : "+"}${hours}`;
}

/// "HH:MM" of Unix seconds in `zone`.
export function clock(seconds, zone, locale = "en") {
  return new Intl.DateTimeFormat(locale === "sk" ? "sk-SK" : "en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    .format(new Date(seconds * 1000));
}

/// "Mon 23" (weekday and day of month) of Unix seconds in `zone`.
export function dayLabel(seconds, zone, locale = "en") {
  return new Intl.DateTimeFormat(locale === "sk" ? "sk-SK" : "en-GB", { timeZone: zone, weekday: "short", day: "numeric" })
    .format(new Date(seconds * 1000));
}

const W = 340;
const H = 150;
const PAD = { left: 30, right: 8, top: 26, bottom: 20 };

/// The hourly chart: temperature as a line (left scale), chance of precipitation as bars (0-100 %
/// of the plot height), an hour label every 6 points, icons every 6 points along the top.
export function hourlyChartSVG(points, zone, locale, label) {
  const usable = (points || []).filter((p) => typeof p.time === "number");
  if (!usable.length) return "";
  const values = usable.map(pointValues);
  const temps = values.map((v) => v.temperature).filter((x) => x !== null);
  const lo = temps.length ? Math.floor(Math.min(...temps)) : 0;
  const hi = temps.length ? Math.ceil(Math.max(...temps)) : 1;
  const span = Math.max(1, hi - lo);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / usable.length;
  const x = (i) => PAD.left + step * (i + 0.5);
  const y = (t) => PAD.top + plotH - ((t - lo) / span) * plotH;
  const bars = values.map((v, i) => {
    if (v.precipitation === null || v.precipitation <= 0) return "";
    const h = (Math.min(100, v.precipitation) / 100) * plotH;
    return `<rect class="precip-bar" x="${(x(i) - step * 0.4).toFixed(1)}" y="${(PAD.top + plotH - h).toFixed(1)}" ` +
      `width="${(step * 0.8).toFixed(1)}" height="${h.toFixed(1)}"><title>${v.precipitation} %</title></rect>`;
  }).join("");
  let path = "";
  values.forEach((v, i) => {
    if (v.temperature === null) return;
    path += `${path && values[i - 1]?.temperature !== null ? "L" : "M"}${x(i).toFixed(1)} ${y(v.temperature).toFixed(1)}`;
  });
  const every = Math.max(1, Math.round(usable.length / 6));
  const ticks = usable.map((p, i) => (i % every === 0
    ? `<text class="tick" x="${x(i).toFixed(1)}" y="${H - 5}" text-anchor="middle">${escapeHTML(clock(p.time, zone, locale))}</text>` : "")).join("");
  const icons = usable.map((p, i) => (i % every === 0 && p.icon
    ? `<g transform="translate(${(x(i) - 10).toFixed(1)} 2)">${iconSVG(p.icon, 20, locale)}</g>` : "")).join("");
  const dots = values.map((v, i) => (v.temperature === null ? ""
    : `<circle class="temp-dot" cx="${x(i).toFixed(1)}" cy="${y(v.temperature).toFixed(1)}" r="2"><title>${v.temperature}°</title></circle>`)).join("");
  return `<svg class="hourly-chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escapeHTML(label)}" preserveAspectRatio="xMidYMid meet">` +
    `<line class="axis" x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}"/>` +
    `<text class="tick" x="${PAD.left - 4}" y="${PAD.top + 4}" text-anchor="end">${hi}°</text>` +
    `<text class="tick" x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end">${lo}°</text>` +
    bars + (path ? `<path class="temp-line" d="${path}"/>` : "") + dots + ticks + icons + `</svg>`;
}

/// The daily rows: day, icon, summary, low and high (and chance of precipitation).
export function dailyRowsHTML(points, zone, locale, t) {
  return (points || []).filter((p) => typeof p.time === "number").map((p) => {
    const v = pointValues(p);
    return `<li class="day-row"><span class="day">${escapeHTML(dayLabel(p.time, zone, locale))}</span>` +
      `<span class="icon">${iconSVG(p.icon, 28, locale)}</span>` +
      `<span class="summary">${escapeHTML(p.summary || "")}</span>` +
      `<span class="precip">${v.precipitation !== null ? `${v.precipitation} %` : ""}</span>` +
      `<span class="low" title="${escapeHTML(t("low"))}">${v.low !== null ? `${v.low}°` : "–"}</span>` +
      `<span class="high" title="${escapeHTML(t("high"))}">${v.high !== null ? `${v.high}°` : "–"}</span></li>`;
  }).join("");
}

/// What the detail says where the forecast would be when it has no points: "loading the
/// forecast…" while the forecast stage is asked (`"forecast":{"state":"pending"}`, PROTOCOL.md
/// "Forecast on demand"), "no forecast: REASON" when it failed, otherwise that the feed has none.
/// `state` rides on the element (`data-state`) so tests and styles can read it.
export function forecastNoteHTML(forecast, t) {
  const state = forecast && typeof forecast.state === "string" ? forecast.state : "none";
  if (state === "pending") {
    return `<div class="no-forecast forecast-pending" role="status" data-state="pending">${escapeHTML(t("forecastPending"))}</div>`;
  }
  if (state === "failed") {
    return `<div class="no-forecast forecast-failed" role="status" data-state="failed">${escapeHTML(t("forecastFailed", String(forecast.reason || "")))}</div>`;
  }
  return `<div class="no-forecast" data-state="${escapeHTML(state)}">${escapeHTML(t("noForecast"))}</div>`;
}
