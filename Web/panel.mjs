// The control panel: day, field, units, language and map style toggles, the status line, and
// collapsing (a side panel on wide screens, a bottom sheet on phones, collapsed to its header
// line at start on small screens so the map shows).
import { dataAge } from "./client.mjs";

/// Small screens: phones in either orientation.
export const SMALL = "(max-width: 560px), (max-height: 500px)";

export function formatAge(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function createPanel(ctx) {
  const panel = document.getElementById("panel");
  const toggle = document.getElementById("panel-toggle");
  const statusDot = document.getElementById("status-connection");
  const statusText = document.getElementById("status-text");
  const small = window.matchMedia(SMALL);

  function setOpen(open) {
    panel.dataset.open = String(open);
    toggle.setAttribute("aria-expanded", String(open));
    const label = ctx.t(open ? "hidePanel" : "showPanel");
    toggle.setAttribute("aria-label", label);
    toggle.title = label;
    ctx.onPanelChanged?.();
  }
  toggle.addEventListener("click", () => setOpen(panel.dataset.open !== "true"));
  setOpen(!small.matches);

  for (const group of document.querySelectorAll("[data-control]")) {
    const key = group.dataset.control;
    group.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-value]");
      if (!button || ctx.settings[key] === button.dataset.value) return;
      ctx.settings[key] = button.dataset.value;
      ctx.saveSettings();
      renderControls();
      ctx.onSettingChanged(key);
    });
  }

  function renderControls() {
    document.documentElement.lang = ctx.settings.locale;
    for (const group of document.querySelectorAll("[data-control]")) {
      const key = group.dataset.control;
      for (const button of group.querySelectorAll("button")) {
        const on = button.dataset.value === ctx.settings[key];
        button.classList.toggle("on", on);
        button.setAttribute("aria-pressed", String(on));
        if (button.dataset.label) button.textContent = ctx.t(button.dataset.label);
      }
    }
    for (const el of document.querySelectorAll("button[data-label]:not([data-value])")) el.textContent = ctx.t(el.dataset.label);
    setOpen(panel.dataset.open === "true");
    renderStatus();
  }

  /// "HH:MM" (local) of the data shown: its fetch time, else when the page kept it.
  function dataClock() {
    const data = ctx.client.set.data;
    const seconds = data && typeof data.fetchedAt === "number" ? data.fetchedAt : ctx.state.keptAt / 1000;
    if (!seconds) return "?";
    const d = new Date(seconds * 1000);
    return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  }

  function renderStatus() {
    const t = ctx.t;
    const client = ctx.client;
    const parts = [];
    if (client.connection === "connected") parts.push(t("connected"));
    else if (client.connection === "reconnecting") parts.push(t("reconnecting", Math.max(0, Math.ceil((client.reconnectAt - Date.now()) / 1000))));
    else parts.push(t("connecting"));
    const d = client.set.data;
    const held = client.set.items.size > 0;
    const offline = client.connection !== "connected" && held;
    if (offline) parts.push(t("offlineFrom", dataClock()));
    if (d && d.snapshot == null) {
      parts.push(t("waiting"));
    } else if (d) {
      const age = dataAge(d, Date.now() / 1000);
      if (age !== null) parts.push(t("age", formatAge(age)));
      if (d.source === "store") parts.push(t("stored"));
    }
    if (ctx.state.feedFailed[ctx.settings.day]) parts.push(t("offline"));
    if (d || held) {
      const { stations, clusters, markers } = client.set.counts();
      parts.push(clusters ? t("clustered", stations, markers) : t("stations", stations));
    }
    if (client.lastError && Date.now() - client.lastError.at < 8000) parts.push(`⚠ ${client.lastError.text}`);
    statusText.textContent = parts.join(" · ");
    ctx.find?.renderText();
    statusDot.className = `dot ${client.connection}${ctx.state.feedFailed[ctx.settings.day] ? " failed" : ""}` +
      `${d && d.source === "store" ? " stored" : ""}${offline ? " offline" : ""}`;
    document.body.classList.toggle("offline", offline);
  }
  setInterval(renderStatus, 1000);

  return { renderControls, renderStatus, setOpen, isOpen: () => panel.dataset.open === "true", small };
}
