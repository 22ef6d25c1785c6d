// The rows of the panel's lists (search results, favorites) and the nearest-station line, as HTML
// strings: the weather icon when the answer carries one (`icon`, PROTOCOL.md's vocabulary; never
// guessed from the other values), the name, the id and the title. Pure (no DOM), so
// Tests/web/views.test.mjs checks them under node.
import { escapeHTML } from "./i18n.mjs";
import { iconSVG } from "./icons.mjs";
import { placeRegion } from "./client.mjs";

/// Size of a list row's icon in px.
export const ROW_ICON = 24;

/// The icon cell of a row, "" when there is no known icon.
export function rowIcon(icon, locale) {
  const svg = iconSVG(icon, ROW_ICON, locale);
  return svg ? `<span class="wx">${svg}</span>` : "";
}

/// A station hit of `results`: icon, name, id, title and how it matched.
export function hitRow(h, locale) {
  return rowIcon(h.icon, locale) +
    `<span class="name">${escapeHTML(h.name || h.id)}</span>` +
    `<span class="id">${escapeHTML(h.id)}</span>` +
    `<span class="title">${escapeHTML(h.title || "–")}</span>` +
    `<span class="match m-${escapeHTML(h.match || "")}">${escapeHTML(h.match || "")}</span>`;
}

/// A gazetteer place of `locations` (listed above the stations): name, "place", its region.
export function placeRow(p, kind) {
  return `<span class="name">${escapeHTML(p.name)}</span>` +
    `<span class="id">${escapeHTML(kind)}</span>` +
    `<span class="title">${escapeHTML(placeRegion(p) || "–")}</span>`;
}

