// The web map's client of the gateway, with no DOM: the connection (reconnect with backoff), the
// annotation set applied by version (PROTOCOL.md "annotations": full sets, diffs, gaps answered
// with a resync), and the request messages of the client contract. Node runs it as it is
// (Tests/web/*.test.mjs); the page gives it the browser's WebSocket and timers.

export const RECONNECT_MIN_MS = 500;
export const RECONNECT_MAX_MS = 10000;
export const RESYNC_RETRY_MS = 2000;
export const RESYNC_MAX_MS = 16000;

/// The units control's three choices, as the viewport's `units` + `windUnit`.
export const UNIT_CHOICES = {
  imperial: { units: "imperial", windUnit: "mph" },
  metric: { units: "metric", windUnit: "kmh" },
  knots: { units: "metric", windUnit: "knots" },
};

export const round6 = (x) => Math.round(x * 1e6) / 1e6;
/// Longitude into [-180, 180).
export const normalizeLongitude = (x) => ((((x + 180) % 360) + 360) % 360) - 180;

/// The delay after `delay` when a connection fails again: doubled, at most RECONNECT_MAX_MS.
export function nextBackoff(delay) {
  return Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_MIN_MS, delay * 2));
}

/// Pixels a marker needs on the map, with a margin: the page asks for at most as many
/// annotations as fit its map (the filter clusters the rest), so labels do not pile up.
export const MARKER_CELL = { width: 56, height: 34 };

/// The `limit` for a map of `width` x `height` CSS pixels: how many marker cells fit, in [20, 1000].
export function fittingLimit(width, height) {
  if (!(width > 0 && height > 0)) return 20;
  const cells = Math.floor(width / MARKER_CELL.width) * Math.floor(height / MARKER_CELL.height);
  return Math.max(20, Math.min(1000, cells));
}

/// The viewport message (PROTOCOL.md `viewport`) for map bounds in degrees. Leaflet's bounds are
/// unwrapped (they pass ±180 after panning across the date line): the span is east - west, 360 or
/// more means every longitude, and the centre is normalised into [-180, 180).
export function viewportMessage(bounds, settings, limit) {
  const south = Math.max(-90, bounds.south);
  const north = Math.min(90, bounds.north);
  const latitudeDelta = Math.min(180, Math.max(1e-6, round6(north - south)));
  const longitudeDelta = Math.min(360, Math.max(1e-6, round6(bounds.east - bounds.west)));
  let centerLongitude = round6(normalizeLongitude((bounds.west + bounds.east) / 2));
  if (centerLongitude >= 180) centerLongitude -= 360; // rounding can reach 180
  const choice = UNIT_CHOICES[settings.units] || UNIT_CHOICES.imperial;
  const message = {
    type: "viewport",
    center: { latitude: round6((north + south) / 2), longitude: centerLongitude },
    span: { latitudeDelta, longitudeDelta },
    day: settings.day,
    field: settings.field,
    units: choice.units,
    windUnit: choice.windUnit,
    locale: settings.locale,
  };
  if (Number.isInteger(limit)) message.limit = limit;
  return message;
}

/// A point as `nearest` asks for it: latitude clamped, longitude normalised, both to 1e-6.
export function nearestMessage(latitude, longitude) {
  let lon = round6(normalizeLongitude(longitude));
  if (lon >= 180) lon -= 360;
  return { type: "nearest", latitude: round6(Math.max(-90, Math.min(90, latitude))), longitude: lon };
}

/// `detail` for a station in the page's presentation.
export function detailMessage(id, settings) {
  const units = UNIT_CHOICES[settings.units] || UNIT_CHOICES.imperial;
  return { type: "detail", id, day: settings.day, units: units.units, windUnit: units.windUnit, locale: settings.locale };
}

/// `search`: null when the query is blank or longer than the gateway takes (100 characters).
export function searchMessage(query, limit = 20) {
  if (typeof query !== "string" || !query.trim() || query.length > 100) return null;
  return { type: "search", query, limit };
}

/// `geocode` (the places stage, PROTOCOL.md "Places"): null when the query is blank or too long.
export function geocodeMessage(query, limit = 5) {
  if (typeof query !== "string" || !query.trim() || query.length > 100) return null;
  return { type: "geocode", query, limit };
}

/// `reverse` for a point, rounded and normalised as `nearest` is (so both answers echo the same
/// point and a pin can match them); the radius clamped into the stage's (0, 20016] km.
export function reverseMessage(latitude, longitude, radiusKm = 100) {
  const p = nearestMessage(latitude, longitude);
  const radius = Math.min(20016, Math.max(1, Number(radiusKm) || 100));
  return { type: "reverse", latitude: p.latitude, longitude: p.longitude, radiusKm: radius };
}

/// Where a gazetteer place is: its admin-1 name (when the data has one) and country, comma-separated.
export function placeRegion(place) {
  if (!place) return "";
  return [place.admin1, place.country || place.countryCode].filter((s) => typeof s === "string" && s).join(", ");
}

const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];

/// A bearing in degrees as "95° E" (rounded degrees, the nearest of 16 compass points).
export function compassBearing(bearing) {
  const b = ((Number(bearing) % 360) + 360) % 360;
  const degrees = Math.round(b) % 360;
  return `${degrees}° ${COMPASS[Math.round(b / 22.5) % 16]}`;
}

/// True when an answer's echoed point is the point asked (both rounded to 1e-6 by the client).
export function samePoint(a, b) {
  return !!a && !!b && Math.abs(a.latitude - b.latitude) < 5e-7 && Math.abs(a.longitude - b.longitude) < 5e-7;
}

/// The WebSocket URL for a page URL: /ws beside the page, `client`/`token` from the page's query,
/// else `clientName` (the page's stored name, so favorites survive a reload).
export function socketURL(pageHref, clientName) {
  const page = new URL(pageHref);
  const url = new URL("ws", page);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  for (const key of ["client", "token"]) if (page.searchParams.has(key)) url.searchParams.set(key, page.searchParams.get(key));
  if (!page.searchParams.has("client") && !page.searchParams.has("token") && clientName) url.searchParams.set("client", clientName);
  return url.toString();
}

/// The annotations a client holds, applied by version (PROTOCOL.md "annotations"). `apply` returns
/// what happened, so a view redraws exactly the markers that changed:
/// - `full`: the set replaced (`removed`: ids no longer held); taken when a full set is awaited
///   (after connecting or a gap) or newer than what is held; an older or repeated one is a `duplicate`.
/// - `diff`: the next version, applied (`removed`, `upserted`).
/// - `duplicate`: a version already applied (a replay): nothing changes.
/// - `waiting`: a diff while a full set is awaited: dropped, the full set will carry it.
/// - `gap`: a version skipped: nothing applied, a full set is awaited (the caller sends `resync`).
/// - `invalid`: no numeric version.
export class AnnotationSet {
  constructor() {
    this.items = new Map(); // id -> annotation as received
    this.version = 0; // the version of the last message applied on this connection (0: none)
    this.awaitingFull = true;
    this.data = null; // { source, snapshot, fetchedAt, ageSeconds, receivedAt } of the last message that said
    this.shown = { field: "temperature", units: "imperial" }; // what the held titles show
  }

  /// A new connection: versions start over with a full set; the items stay shown until it comes.
  reset() {
    this.version = 0;
    this.awaitingFull = true;
  }

  /// Items kept from an earlier page (offline start): shown, replaced by the first full set.
  restore(items, shown) {
    this.items.clear();
    for (const a of items || []) if (a && typeof a.id === "string" && a.coordinate) this.items.set(a.id, a);
    if (shown) this.shown = { field: shown.field || this.shown.field, units: shown.units || this.shown.units };
    this.awaitingFull = true;
  }

  apply(m, nowSeconds = Date.now() / 1000) {
    if (!m || typeof m.version !== "number") return { kind: "invalid", removed: [], upserted: [] };
    const upsert = Array.isArray(m.upsert) ? m.upsert.filter((a) => a && typeof a.id === "string" && a.coordinate) : [];
    let result;
    if (m.full) {
      if (!this.awaitingFull && m.version <= this.version) return { kind: "duplicate", removed: [], upserted: [] };
      const next = new Map(upsert.map((a) => [a.id, a]));
      const removed = [...this.items.keys()].filter((id) => !next.has(id));
      this.items.clear();
      for (const [id, a] of next) this.items.set(id, a);
      this.awaitingFull = false;
      result = { kind: "full", removed, upserted: upsert };
    } else {
      if (this.awaitingFull) return { kind: "waiting", removed: [], upserted: [] };
      if (m.version <= this.version) return { kind: "duplicate", removed: [], upserted: [] };
      if (m.version !== this.version + 1) {
        const from = this.version;
        this.awaitingFull = true;
        return { kind: "gap", from, to: m.version, removed: [], upserted: [] };
      }
      const removed = Array.isArray(m.remove) ? m.remove.filter((id) => typeof id === "string") : [];
      for (const id of removed) this.items.delete(id);
      for (const a of upsert) this.items.set(a.id, a);
      result = { kind: "diff", removed, upserted: upsert };
    }
    this.version = m.version;
    if ("source" in m || "fetchedAt" in m) {
      const changed = !this.data || this.data.snapshot !== m.snapshot;
      this.data = {
        source: m.source,
        snapshot: m.snapshot,
        fetchedAt: m.fetchedAt,
        ageSeconds: m.ageSeconds,
        receivedAt: changed ? nowSeconds : this.data.receivedAt,
      };
    }
    const shown = { field: m.field || this.shown.field, units: m.units || this.shown.units };
    result.restyle = shown.field !== this.shown.field || shown.units !== this.shown.units;
    this.shown = shown;
    return result;
  }

  /// Stations and clusters held: { stations, clusters, markers }.
  counts() {
    let stations = 0;
    let clusters = 0;
    for (const a of this.items.values()) {
      if (a.cluster) clusters += 1;
      stations += a.cluster ? a.count || 0 : 1;
    }
    return { stations, clusters, markers: this.items.size };
  }
}

/// Age in seconds of the data shown at `nowSeconds`: by the local clock and `fetchedAt` when the
/// clocks agree with the message's own `ageSeconds`; else `ageSeconds` plus the time since arrival.
export function dataAge(data, nowSeconds) {
  if (!data || typeof data.fetchedAt !== "number") return null;
  const byMessage = (data.ageSeconds || 0) + (nowSeconds - data.receivedAt);
  const byClock = nowSeconds - data.fetchedAt;
  return byClock >= (data.ageSeconds || 0) - 5 ? byClock : byMessage;
}

/// One connection to the gateway at a time, reconnecting with exponential backoff and jitter, and
/// the annotation set it feeds. `env`: { WebSocket, setTimeout, clearTimeout, random, now, url() }.
/// `on`: { state(connection), open(), annotations(result, message), message(message), warn(text) }.
/// States: `connecting` -> `connected` -> (dropped) `reconnecting` -> `connecting` ...; `stopped`
/// after stop() (the page is going), until connect().
export class Client {
  constructor(env, on = {}) {
    this.env = env;
    this.on = on;
    this.set = new AnnotationSet();
    this.connection = "connecting";
    this.socket = null;
    this.opens = 0;
    this.reconnectDelay = RECONNECT_MIN_MS;
    this.reconnectAt = 0;
    this.reconnectTimer = null;
    this.resyncTimer = null;
    this.resyncs = 0;
    this.lastError = null;
  }

  get awaitingFull() {
    return this.set.awaitingFull;
  }

  setConnection(c) {
    this.connection = c;
    this.on.state?.(c);
  }

  connect() {
    this.env.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.setConnection("connecting");
    let socket;
    try {
      socket = new this.env.WebSocket(this.env.url());
    } catch (e) {
      this.on.warn?.(`cannot open the WebSocket: ${e}`);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.reconnectDelay = RECONNECT_MIN_MS;
      this.opens += 1;
      // A new connection is a new client to the pipeline: versions start over with a full set.
      this.set.reset();
      this.setConnection("connected");
      this.on.open?.();
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        this.on.warn?.(`a frame that is not JSON: ${String(event.data).slice(0, 80)}`);
        return;
      }
      this.receive(message);
    };
    // A browser fires error then close; Node's client fires only error when it cannot connect.
    const dropped = (code, reason) => {
      if (this.socket !== socket) return;
      // 1000/1001: a normal close or the gateway stopping; 1005/1006: the connection simply dropped.
      if (![1000, 1001, 1005, 1006].includes(code)) {
        this.lastError = { text: `closed ${code}${reason ? ": " + reason : ""}`, at: this.env.now() };
      }
      this.socket = null;
      this.env.clearTimeout(this.resyncTimer);
      this.scheduleReconnect();
    };
    socket.onclose = (event) => dropped(event.code, event.reason);
    socket.onerror = () => {
      if (socket.readyState !== 1) dropped(1006, "");
    };
  }

  scheduleReconnect() {
    const delay = this.reconnectDelay;
    this.reconnectDelay = nextBackoff(delay);
    this.reconnectAt = this.env.now() + delay;
    this.setConnection("reconnecting");
    this.env.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = this.env.setTimeout(() => this.connect(), delay * (0.8 + 0.4 * this.env.random()));
  }

  /// Closes the socket and schedules nothing (the page is hidden or going).
  stop() {
    this.env.clearTimeout(this.reconnectTimer);
    this.env.clearTimeout(this.resyncTimer);
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000, "page hidden");
    this.setConnection("stopped");
  }

  /// Sends one message; false when no connection is open.
  send(message) {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  receive(message) {
    if (!message || typeof message.type !== "string") return;
    if (message.type === "annotations") {
      const result = this.set.apply(message, this.env.now() / 1000);
      if (result.kind === "gap") {
        this.on.warn?.(`version gap (${result.from} -> ${result.to}); resync`);
        this.requestResync(RESYNC_RETRY_MS);
      } else if (result.kind === "full") {
        this.env.clearTimeout(this.resyncTimer);
        this.resyncTimer = null;
      }
      this.on.annotations?.(result, message);
      return;
    }
    if (message.type === "error") this.lastError = { text: message.message || message.reason || "error", at: this.env.now() };
    this.on.message?.(message);
  }

  /// Asks for the whole set again; repeats (delays doubling to RESYNC_MAX_MS) while no full arrives.
  requestResync(delay) {
    this.env.clearTimeout(this.resyncTimer);
    this.resyncs += 1;
    this.send({ type: "resync", reason: "version gap" });
    const next = Math.min(RESYNC_MAX_MS, delay);
    this.resyncTimer = this.env.setTimeout(() => {
      if (this.set.awaitingFull) this.requestResync(next * 2);
    }, next);
  }
}
