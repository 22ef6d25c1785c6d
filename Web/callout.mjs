// The callout: a Leaflet popup for the selected station (placeholder at once, the pipeline's
// `callout` when it arrives), with the favorite star, the weather icon and the Details button.
// It pans the map so the callout stays clear of the panel and the detail screen.
import { escapeHTML } from "./i18n.mjs";
import { iconSVG } from "./icons.mjs";

const L = globalThis.L;

export function createCallout(ctx) {
  const { map } = ctx;
  const popup = L.popup({ className: "callout", maxWidth: 320, minWidth: 200, offset: [0, -8], autoPanPadding: [16, 16], closeOnClick: false });
  let closingProgrammatically = false;

  // The map's own click (not a marker's) closes the callout; a click on another marker only moves it.
  map.on("click", (e) => {
    // Alt-click asks for the station nearest the point (a right click / long press drops a pin: find.mjs).
    if (e.originalEvent && e.originalEvent.altKey) return ctx.askNearest(e.latlng);
    if (popup.isOpen()) map.closePopup(popup);
  });
  map.on("popupclose", (e) => {
    if (e.popup !== popup || closingProgrammatically) return;
    if (ctx.state.selected) {
      setSelected(null);
      ctx.send({ type: "select", id: null });
    }
  });

  function close() {
    closingProgrammatically = true;
    map.closePopup(popup);
    closingProgrammatically = false;
  }

  function setSelected(id) {
    if (ctx.state.selected) ctx.mapView.setSelectedClass(ctx.state.selected, false);
    ctx.state.selected = id;
    if (id) ctx.mapView.setSelectedClass(id, true);
  }

  /// Autopan padding from what covers the map now: the zoom and location buttons (their column on
  /// the left), the panel (a side panel: its width on the right; a bottom sheet: its height; a
  /// collapsed line at the top: its height) and an open detail screen.
  function fitOptions() {
    const w = window.innerWidth;
    const h = window.innerHeight;
    // Never over the zoom and location buttons: keep clear of their column on the left.
    const controls = document.querySelector(".leaflet-top.leaflet-left")?.getBoundingClientRect();
    let topLeft = [controls && controls.width ? controls.right + 8 : 16, 16];
    let bottomRight = [16, 16];
    const element = document.getElementById("panel");
    const panel = element.getBoundingClientRect();
    if (panel.width > 0 && panel.height > 0) {
      if (panel.bottom >= h - 1 && panel.width > w * 0.6) bottomRight = [16, Math.max(16, h - panel.top + 12)]; // bottom sheet
      else if (element.dataset.open === "true") bottomRight = [Math.max(16, w - panel.left + 12), 16]; // side panel
      else topLeft = [16, Math.max(16, panel.bottom + 12)]; // collapsed to a line at the top
    }
    const detail = document.getElementById("detail");
    if (!detail.hidden) {
      const r = detail.getBoundingClientRect();
      if (r.width < w * 0.6) topLeft = [Math.max(topLeft[0], r.right + 12), topLeft[1]];
    }
    popup.options.autoPanPaddingTopLeft = topLeft;
    popup.options.autoPanPaddingBottomRight = bottomRight;
    popup.options.maxWidth = Math.max(180, Math.min(320, w - topLeft[0] - bottomRight[0] - 40));
    popup.options.minWidth = Math.min(200, popup.options.maxWidth);
    popup.options.maxHeight = Math.max(140, h - topLeft[1] - bottomRight[1] - 40);
  }

  function show(coordinate, html) {
    const latlng = L.latLng(coordinate.latitude, ctx.mapView.nearLongitude(coordinate.longitude));
    ctx.beforeCallout?.();
    fitOptions();
    popup.setLatLng(latlng).setContent(html);
    if (!popup.isOpen()) {
      closingProgrammatically = true; // opening closes any other popup
      popup.openOn(map);
      closingProgrammatically = false;
    }
  }

  function starHTML(id) {
    const on = ctx.favoriteIds().has(id);
    return `<button type="button" class="star${on ? " on" : ""}" data-id="${escapeHTML(id)}" aria-pressed="${on}" ` +
      `aria-label="${escapeHTML(ctx.t(on ? "unstar" : "star"))}" title="${escapeHTML(ctx.t(on ? "unstar" : "star"))}">${on ? "★" : "☆"}</button>`;
  }

  function placeholderHTML(id, name) {
    return `<div class="callout-body">${starHTML(id)}<h3>${escapeHTML(name)}</h3>` +
      `<div class="sub">${escapeHTML(id)}</div><div class="loading">${escapeHTML(ctx.t("loading"))}</div></div>`;
  }

  /// Shows the station at once; the pipeline's callout replaces the placeholder when it arrives.
  function open(id, coordinate, name) {
    setSelected(id);
    ctx.send({ type: "select", id });
    show(coordinate, placeholderHTML(id, name || id));
  }

  function apply(c) {
    if (c.clear) {
      if (!c.id || c.id === ctx.state.selected) {
        setSelected(null);
        close();
      }
      return;
    }
    if (c.id !== ctx.state.selected) return; // an answer for an older selection
    const details = (c.details || []).map((d) => `<dt>${escapeHTML(d.label)}</dt><dd>${escapeHTML(d.value)}</dd>`).join("");
    const icon = iconSVG(c.icon, 36, ctx.settings.locale);
    const html = `<div class="callout-body" data-id="${escapeHTML(c.id)}" data-reason="${escapeHTML(c.reason || "")}">` +
      `${starHTML(c.id)}${icon ? `<span class="callout-icon">${icon}</span>` : ""}<h3>${escapeHTML(c.title || c.id)}</h3>` +
      (c.subtitle ? `<div class="sub">${escapeHTML(c.subtitle)}</div>` : "") +
      (details ? `<dl>${details}</dl>` : `<div class="loading">${escapeHTML(ctx.t("unknown"))}</div>`) +
      (c.stale ? `<div class="stale-note">${escapeHTML(ctx.t("stale"))}</div>` : "") +
      `<button type="button" class="detail-open" data-id="${escapeHTML(c.id)}">${escapeHTML(ctx.t("details"))}</button>` +
      `</div>`;
    const coordinate = c.coordinate || ctx.annotations().get(c.id)?.coordinate;
    if (coordinate) show(coordinate, html);
  }

  /// The open callout's star follows the favorites list.
  function refreshStar() {
    const star = document.querySelector(".leaflet-popup .star");
    if (!star) return;
    const on = ctx.favoriteIds().has(star.dataset.id);
    star.classList.toggle("on", on);
    star.setAttribute("aria-pressed", String(on));
    star.textContent = on ? "★" : "☆";
    star.title = ctx.t(on ? "unstar" : "star");
    star.setAttribute("aria-label", star.title);
  }

  // The star and Details buttons: Leaflet stops clicks at the popup, so listen in the capture phase.
  document.addEventListener("click", (e) => {
    const star = e.target.closest && e.target.closest(".leaflet-popup .star");
    if (star) {
      e.preventDefault();
      ctx.send({ type: "favorite", id: star.dataset.id, on: !ctx.favoriteIds().has(star.dataset.id) });
      return;
    }
    const button = e.target.closest && e.target.closest(".leaflet-popup .detail-open");
    if (button) {
      e.preventDefault();
      ctx.openDetail(button.dataset.id);
    }
  }, true);

  return { popup, open, apply, close, setSelected, refreshStar, placeholderHTML, show };
}
