// The detail screen (`detail` -> `report`, PROTOCOL.md "Detail"): every value of one station, its
// weather icon, and the forecast: the next hours as a chart, the next days as rows, in local time
// (the station's zone when the report names one, else the browser's, and says which).
import { escapeHTML } from "./i18n.mjs";
import { iconSVG, iconName } from "./icons.mjs";
import { detailMessage } from "./client.mjs";
import { displayZone, hourlyChartSVG, dailyRowsHTML, forecastNoteHTML } from "./forecast.mjs";

export function createDetail(ctx) {
  const panel = document.getElementById("detail");
  const content = panel.querySelector(".detail-content");
  const closeButton = panel.querySelector(".close");
  // `weather`: the `weather` request (a place or pin of My places, PROTOCOL.md "Weather at a point
  // or place") while the screen shows one; `id` is then the answering station's, once answered.
  const state = { id: null, opener: null, weather: null };

  function request(id) {
    if (state.weather) {
      const d = detailMessage(id || "", ctx.settings);
      ctx.send({ ...state.weather, day: d.day, units: d.units, windUnit: d.windUnit, locale: d.locale });
      return;
    }
    state.id = id;
    ctx.send(detailMessage(id, ctx.settings));
  }

  function show(title) {
    state.opener = document.activeElement;
    panel.hidden = false;
    content.innerHTML = `<h2>${escapeHTML(title)}</h2><div class="loading">${escapeHTML(ctx.t("loading"))}</div>`;
  }

  /// The detail of a place or pin: `weather` with `"detail":true` (answered with `report` under the
  /// place's name, or `conditions` when no station is in reach).
  function openWeather(message, name) {
    show(name);
    state.id = null;
    state.weather = message;
    request(null);
    closeButton.focus();
  }

  /// `conditions` for the open place or pin with no station in reach: its name and "no station within N km".
  function applyConditions(m) {
    if (!state.weather || state.id) return;
    window.isobar.detail = m;
    content.innerHTML = `<div class="detail-head"><div><h2>${escapeHTML(m.title || "")}</h2>` +
      `<div class="sub">${escapeHTML(m.subtitle || "")}</div></div></div>`;
    content.dataset.id = "";
  }

  function open(id) {
    show(id);
    state.weather = null;
    request(id);
    closeButton.focus();
  }

  function close() {
    state.id = null;
    state.weather = null;
    panel.hidden = true;
    if (state.opener && document.contains(state.opener)) state.opener.focus();
  }

  function apply(m) {
    // An answer for a screen since closed or changed is dropped; a place's answers name their station.
    if (state.weather && !panel.hidden && m.id && (state.id === null || m.point)) state.id = m.id;
    if (!m.id || m.id !== state.id) return;
    window.isobar.detail = m;
    const t = ctx.t;
    const locale = m.locale || ctx.settings.locale;
    const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const { zone, whose } = displayZone(m, browserZone);
    const lines = `<dl>${(m.details || []).map((d) => `<dt>${escapeHTML(d.label)}</dt><dd>${escapeHTML(d.value)}</dd>`).join("")}</dl>`;
    const hourly = (m.hourly || []).length
      ? `<h3>${escapeHTML(t("hourly"))}</h3>${hourlyChartSVG(m.hourly, zone, locale, t("chartLabel"))}` +
        `<ol class="forecast hourly visually-hidden">${m.hourly.map((p) => `<li>${escapeHTML(p.label || "")}: ` +
          `${escapeHTML((p.details || []).map((d) => `${d.label} ${d.value}`).join(", "))}</li>`).join("")}</ol>`
      : "";
    const daily = (m.daily || []).length
      ? `<h3>${escapeHTML(t("daily"))}</h3><ol class="forecast daily">${dailyRowsHTML(m.daily, zone, locale, t)}</ol>`
      : "";
    const icon = iconSVG(m.icon, 44, locale);
    content.innerHTML = `<div class="detail-head">${icon}<div><h2>${escapeHTML(m.title || m.id)}</h2>` +
      `<div class="sub">${escapeHTML(m.subtitle || "")}${icon ? ` · ${escapeHTML(iconName(m.icon, locale))}` : ""}</div></div></div>` +
      (m.stale ? `<div class="stale-note">${escapeHTML(t("stale"))}</div>` : "") +
      lines +
      (hourly || daily ? `<div class="zone-note" data-zone="${escapeHTML(zone)}" data-whose="${whose}">${escapeHTML(t("timesIn", zone, whose))}</div>` + hourly + daily
        : forecastNoteHTML(m.forecast, t));
    content.dataset.id = m.id;
    content.dataset.locale = m.locale || "";
  }

  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });

  return { state, open, openWeather, close, apply, applyConditions, request };
}
