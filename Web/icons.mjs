// Weather icons for PROTOCOL.md's `icon` vocabulary, drawn here as inline SVG (no icon download):
// clear-day, clear-night, partly-cloudy-day, partly-cloudy-night, cloudy, rain, sleet, snow, wind,
// fog, thunderstorm, hail. Each is a 32x32 drawing with a <title> for screen readers.

export const ICONS = ["clear-day", "clear-night", "partly-cloudy-day", "partly-cloudy-night", "cloudy", "rain",
  "sleet", "snow", "wind", "fog", "thunderstorm", "hail"];

const NAMES = {
  en: { "clear-day": "Clear", "clear-night": "Clear night", "partly-cloudy-day": "Partly cloudy",
    "partly-cloudy-night": "Partly cloudy night", cloudy: "Cloudy", rain: "Rain", sleet: "Sleet", snow: "Snow",
    wind: "Windy", fog: "Fog", thunderstorm: "Thunderstorm", hail: "Hail" },
  sk: { "clear-day": "Jasno", "clear-night": "Jasná noc", "partly-cloudy-day": "Polojasno",
    "partly-cloudy-night": "Polojasná noc", cloudy: "Zamračené", rain: "Dážď", sleet: "Dážď so snehom", snow: "Sneh",
    wind: "Veterno", fog: "Hmla", thunderstorm: "Búrka", hail: "Krupobitie" },
};

const SUN = '<circle cx="16" cy="16" r="6" fill="#f6b21b"/>' +
  [0, 45, 90, 135, 180, 225, 270, 315].map((d) =>
    `<line x1="16" y1="4" x2="16" y2="7.5" stroke="#f6b21b" stroke-width="2" stroke-linecap="round" transform="rotate(${d} 16 16)"/>`).join("");
const SMALL_SUN = '<g transform="translate(-4 -5) scale(0.8)">' + SUN + "</g>";
const MOON = '<path d="M20 6a10 10 0 1 0 6 16A8 8 0 0 1 20 6z" fill="#8a9bb8"/>';
const SMALL_MOON = '<g transform="translate(-3 -4) scale(0.8)">' + MOON + "</g>";
const CLOUD = (fill = "#b9c4cf", y = 0) =>
  `<path transform="translate(0 ${y})" d="M9 24h15a5 5 0 0 0 0-10 7 7 0 0 0-13-1 5.5 5.5 0 0 0-2 11z" fill="${fill}" stroke="#7d8b98" stroke-width="1"/>`;
const DROPS = (color = "#2f7fd0") => [10, 16, 22].map((x) =>
  `<line x1="${x}" y1="25" x2="${x - 2}" y2="30" stroke="${color}" stroke-width="2" stroke-linecap="round"/>`).join("");
const FLAKES = [10, 16, 22].map((x) => `<circle cx="${x}" cy="28" r="1.8" fill="#6aa5d8"/>`).join("");

const DRAWINGS = {
  "clear-day": SUN,
  "clear-night": MOON,
  "partly-cloudy-day": SMALL_SUN + CLOUD("#d5dde5", 3),
  "partly-cloudy-night": SMALL_MOON + CLOUD("#d5dde5", 3),
  cloudy: CLOUD("#aab6c2", 0),
  rain: CLOUD("#9fabb8", -3) + DROPS(),
  sleet: CLOUD("#9fabb8", -3) + '<line x1="10" y1="25" x2="8" y2="30" stroke="#2f7fd0" stroke-width="2" stroke-linecap="round"/>' +
    '<circle cx="16" cy="28" r="1.8" fill="#6aa5d8"/><line x1="22" y1="25" x2="20" y2="30" stroke="#2f7fd0" stroke-width="2" stroke-linecap="round"/>',
  snow: CLOUD("#aab6c2", -3) + FLAKES,
  wind: '<path d="M4 12h15a4 4 0 1 0-4-4M4 18h20a4 4 0 1 1-4 4M4 24h9" fill="none" stroke="#5b7b99" stroke-width="2" stroke-linecap="round"/>',
  fog: CLOUD("#c4ccd4", -4) + [22, 26, 30].map((y) =>
    `<line x1="6" y1="${y}" x2="26" y2="${y}" stroke="#8e9aa6" stroke-width="2" stroke-linecap="round"/>`).join(""),
  thunderstorm: CLOUD("#8796a5", -3) + '<path d="M17 20l-5 7h4l-2 5 6-8h-4l2-4z" fill="#f6c21b" stroke="#b8860b" stroke-width="0.6"/>',
  hail: CLOUD("#9fabb8", -3) + [10, 16, 22].map((x, i) => `<circle cx="${x}" cy="${27 + (i % 2) * 2}" r="2.2" fill="#fff" stroke="#6f8aa3"/>`).join(""),
};

/// The icon's name in the locale, or null for a name outside the vocabulary.
export function iconName(icon, locale = "en") {
  return DRAWINGS[icon] ? (NAMES[locale] || NAMES.en)[icon] : null;
}

/// Inline SVG for `icon` at `size` px, "" for a name outside the vocabulary (never guessed).
export function iconSVG(icon, size = 32, locale = "en") {
  const drawing = DRAWINGS[icon];
  if (!drawing) return "";
  return `<svg class="wx-icon" data-icon="${icon}" width="${size}" height="${size}" viewBox="0 0 32 32" role="img" ` +
    `aria-label="${iconName(icon, locale)}"><title>${iconName(icon, locale)}</title>${drawing}</svg>`;
}
