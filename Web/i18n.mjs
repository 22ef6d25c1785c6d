// The page's own words in English and Slovak (the pipeline words the values: titles, callouts,
// reports). `translator(settings)` gives t(key, ...args) for the locale chosen now.

export const TEXT = {
  en: {
    today: "Today", tomorrow: "Tomorrow", temperature: "Temperature", wind: "Wind",
    precipitation: "Precipitation", conditions: "Conditions", imperial: "°F · mph", metric: "°C · km/h", knots: "°C · kn",
    connecting: "connecting…", connected: "live", reconnecting: (s) => `reconnecting in ${s} s`,
    stations: (n) => `${n} ${n === 1 ? "station" : "stations"}`,
    age: (a) => `data ${a} old`, stored: "stored data", offline: "feed offline",
    offlineFrom: (hhmm) => `offline, data from ${hhmm}`,
    waiting: "waiting for data", loading: "loading…", unknown: "no data",
    clustered: (n, m) => `${n} stations in ${m} markers`,
    search: "Search places and stations", nearestCentre: "Nearest to centre", favorites: "My places",
    pinKind: "pin", humidity: "Humidity", remove: "Remove from My places",
    noHits: (q) => `no station matches “${q}”`, noPlace: "no station (no data for this day)",
    nearestTo: "Nearest", placeKind: "place", pinLooking: "looking up…", atPlace: "here",
    noPlaceNearby: (km) => `no place within ${km} km`, weatherFrom: "Weather at",
    unknownStation: "unknown station", star: "Add to favorites",
    unstar: "Remove from favorites", noFavorites: "none yet: ☆ on a station, a place found or a dropped pin (right click or long press) adds it", stale: "stale data",
    searchTooLong: "at most 100 characters", searchTimeout: "no answer from the server",
    details: "Details", close: "Close", hourly: "Next hours", daily: "Next days", noForecast: "no forecast in this feed",
    forecastPending: "loading the forecast…", forecastFailed: (reason) => `no forecast: ${reason}`,
    showPanel: "Show controls", hidePanel: "Hide controls", controls: "Controls",
    legend: "Legend", legendStale: "faded: data older than the filter's stale limit (1 h by default)",
    legendCluster: "circle: several stations, their count and mean", legendUnknown: "no value",
    legendPrecip: "fill height: chance of precipitation", legendWindArrow: "arrow: where the wind blows to",
    legendCalm: "calm: no wind", legendNoConditions: "no conditions: this station's feed reports none",
    legendClusterIcon: "circle: several stations, their count and most common conditions", legendDot: "dot: a station whose label would cover another's (zoom in)",
    myLocation: "My location", locating: "finding your location…",
    locationDenied: "Location not shown: permission denied. Allow location for this site to use it.",
    locationUnavailable: "Location not available on this device or browser.",
    locationTimeout: "Location not found in time. Try again.",
    youAreHere: "You are here", accuracy: (m) => `within ${m} m`,
    about: "About and data sources", aboutTitle: "About Isobar",
    timesIn: (zone, whose) => `Times in ${zone} (${whose === "station" ? "the station's time zone" : "this browser's time zone"})`,
    low: "low", high: "high", chartLabel: "Temperature and chance of precipitation for the next hours",
    mapStyle: "Map style", light: "Light", dark: "Dark",
  },
  sk: {
    today: "Dnes", tomorrow: "Zajtra", temperature: "Teplota", wind: "Vietor",
    precipitation: "Zrážky", conditions: "Počasie", imperial: "°F · mph", metric: "°C · km/h", knots: "°C · kn",
    connecting: "pripájam…", connected: "naživo", reconnecting: (s) => `nové pripojenie o ${s} s`,
    stations: (n) => `${n} ${n === 1 ? "stanica" : n >= 2 && n <= 4 ? "stanice" : "staníc"}`,
    age: (a) => `údaje staré ${a}`, stored: "uložené údaje", offline: "zdroj nedostupný",
    offlineFrom: (hhmm) => `offline, údaje z ${hhmm}`,
    waiting: "čakám na údaje", loading: "načítavam…", unknown: "bez údajov",
    clustered: (n, m) => `${n} staníc v ${m} značkách`,
    search: "Hľadať miesta a stanice", nearestCentre: "Najbližšia k stredu", favorites: "Moje miesta",
    pinKind: "špendlík", humidity: "Vlhkosť", remove: "Odobrať z Mojich miest",
    noHits: (q) => `žiadna stanica nezodpovedá „${q}“`, noPlace: "žiadna stanica (bez údajov pre tento deň)",
    nearestTo: "Najbližšia", placeKind: "miesto", pinLooking: "hľadám…", atPlace: "tu",
    noPlaceNearby: (km) => `žiadne miesto do ${km} km`, weatherFrom: "Počasie na stanici",
    unknownStation: "neznáma stanica", star: "Pridať k obľúbeným",
    unstar: "Odobrať z obľúbených", noFavorites: "zatiaľ žiadne: ☆ pri stanici, nájdenom mieste alebo špendlíku (pravý klik alebo dlhé podržanie) ho pridá", stale: "neaktuálne údaje",
    searchTooLong: "najviac 100 znakov", searchTimeout: "server neodpovedá",
    details: "Podrobnosti", close: "Zavrieť", hourly: "Najbližšie hodiny", daily: "Najbližšie dni", noForecast: "tento zdroj nemá predpoveď",
    forecastPending: "načítava sa predpoveď…", forecastFailed: (reason) => `bez predpovede: ${reason}`,
    showPanel: "Zobraziť ovládanie", hidePanel: "Skryť ovládanie", controls: "Ovládanie",
    legend: "Legenda", legendStale: "vyblednuté: údaje staršie ako limit filtra (predvolene 1 h)",
    legendCluster: "kruh: viac staníc, ich počet a priemer", legendUnknown: "bez hodnoty",
    legendPrecip: "výška výplne: pravdepodobnosť zrážok", legendWindArrow: "šípka: kam vietor fúka",
    legendCalm: "bezvetrie", legendNoConditions: "bez počasia: zdroj tejto stanice ho neuvádza",
    legendClusterIcon: "kruh: viac staníc, ich počet a najčastejšie počasie", legendDot: "bodka: stanica, ktorej popis by prekryl iný (priblížte)",
    myLocation: "Moja poloha", locating: "zisťujem polohu…",
    locationDenied: "Poloha sa nezobrazí: povolenie zamietnuté. Povoľte polohu pre túto stránku.",
    locationUnavailable: "Poloha nie je na tomto zariadení alebo prehliadači dostupná.",
    locationTimeout: "Polohu sa nepodarilo včas zistiť. Skúste znova.",
    youAreHere: "Tu ste", accuracy: (m) => `s presnosťou ${m} m`,
    about: "O aplikácii a zdroje údajov", aboutTitle: "O aplikácii Isobar",
    timesIn: (zone, whose) => `Časy v ${zone} (${whose === "station" ? "časové pásmo stanice" : "časové pásmo prehliadača"})`,
    low: "min.", high: "max.", chartLabel: "Teplota a pravdepodobnosť zrážok na najbližšie hodiny",
    mapStyle: "Štýl mapy", light: "Svetlý", dark: "Tmavý",
  },
};

export const LOCALES = Object.keys(TEXT);

export function translator(settings) {
  return (key, ...args) => {
    const entry = (TEXT[settings.locale] || TEXT.en)[key] ?? TEXT.en[key];
    return typeof entry === "function" ? entry(...args) : entry;
  };
}

export function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
