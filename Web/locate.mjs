// "My location": a map button that asks the browser's Geolocation API for the position, centres
// the map on it and marks it; pressed again it returns there. Denied or unavailable: a message
// that says so (and what to do), never a silent failure.
const L = globalThis.L;

export function createLocate(ctx) {
  const { map, t } = ctx;
  const message = document.getElementById("locate-message");
  const layer = L.layerGroup().addTo(map);
  const state = { position: null, error: null, pending: false };
  let hideTimer = null;

  function say(text, sticky) {
    clearTimeout(hideTimer);
    message.textContent = text || "";
    message.hidden = !text;
    if (text && !sticky) hideTimer = setTimeout(() => (message.hidden = true), 8000);
  }

  function mark(p) {
    layer.clearLayers();
    const at = [p.latitude, ctx.mapView.nearLongitude(p.longitude)];
    if (p.accuracy > 0) L.circle(at, { radius: p.accuracy, color: "#2a7de1", weight: 1, fillOpacity: 0.12, interactive: false }).addTo(layer);
    L.circleMarker(at, { radius: 8, color: "#fff", weight: 3, fillColor: "#2a7de1", fillOpacity: 1, interactive: false, className: "my-location" })
      .addTo(layer);
  }

  function centre(p) {
    map.setView([p.latitude, ctx.mapView.nearLongitude(p.longitude)], Math.max(map.getZoom(), 8), { animate: false });
    mark(p);
  }

  function locate() {
    if (state.position) centre(state.position); // back to it at once, and refresh it below
    if (!("geolocation" in navigator)) {
      state.error = "unavailable";
      window.isobar.location = { error: state.error };
      return say(t("locationUnavailable"));
    }
    state.pending = true;
    if (!state.position) say(t("locating"), true);
    navigator.geolocation.getCurrentPosition((pos) => {
      state.pending = false;
      state.error = null;
      state.position = { latitude: pos.coords.latitude, longitude: pos.coords.longitude, accuracy: pos.coords.accuracy || 0 };
      window.isobar.location = { ...state.position };
      say(null);
      centre(state.position);
    }, (err) => {
      state.pending = false;
      state.error = err.code === 1 ? "denied" : err.code === 3 ? "timeout" : "unavailable";
      window.isobar.location = { error: state.error };
      say(t(err.code === 1 ? "locationDenied" : err.code === 3 ? "locationTimeout" : "locationUnavailable"));
    }, { enableHighAccuracy: false, timeout: 10000, maximumAge: 60000 });
  }

  const Control = L.Control.extend({
    options: { position: "topleft" },
    onAdd() {
      const bar = L.DomUtil.create("div", "leaflet-bar locate-control");
      const button = L.DomUtil.create("a", "locate-button", bar);
      button.href = "#";
      button.setAttribute("role", "button");
      button.innerHTML = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><circle cx="12" cy="12" r="4" fill="currentColor"/>' +
        '<circle cx="12" cy="12" r="8" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 1v4M12 19v4M1 12h4M19 12h4" stroke="currentColor" stroke-width="2"/></svg>';
      L.DomEvent.disableClickPropagation(bar);
      L.DomEvent.on(button, "click", (e) => {
        L.DomEvent.preventDefault(e);
        locate();
      });
      this.button = button;
      return bar;
    },
  });
  const control = new Control().addTo(map);

  function renderText() {
    control.button.title = t("myLocation");
    control.button.setAttribute("aria-label", t("myLocation"));
  }
  renderText();

  return { locate, state, renderText };
}
