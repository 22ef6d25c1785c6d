// The detail screen (`detail` -> `report`, PROTOCOL.md "Detail"): every value of one station, its
// weather icon, and the forecast: the next hours as a chart, the next days as rows, in local time
// (the station's zone when the report names one, else the browser's, and says which).
import { escapeHTML } from "./i18n.mjs";
import { iconSVG, iconName } from "./icons.mjs";
import { detailMessage } from "./client.mjs";
import { displayZone, hourlyChartSVG, dailyRowsHTML } from "./forecast.mjs";

export function createDetail(ctx) {
  const panel = document.getElementById("detail");
  const content = panel.querySelector(".detail-content");
  const closeButton = panel.querySelector(".close");
  const state = { id: null, opener: null };

  function request(id) {
    state.id = id;
    ctx.send(detailMessage(id, ctx.settings));
  }

  function open(id) {
    state.opener = document.activeElement;
    panel.hidden = false;
    content.innerHTML = `<h2>${escapeHTML(id)}</h2><div class="loading">${escapeHTML(ctx.t("loading"))}</div>`;
    request(id);
    closeButton.focus();
  }

  function close() {
    state.id = null;
    panel.hidden = true;
    if (state.opener && document.contains(state.opener)) state.opener.focus();
  }

  function apply(m) {
    if (!m.id || m.id !== state.id) return; // an answer for a screen since closed or changed
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
        : `<div class="no-forecast">${escapeHTML(t("noForecast"))}</div>`);
    content.dataset.id = m.id;
    content.dataset.locale = m.locale || "";
  }

  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });

  return { state, open, close, apply, request };
}
