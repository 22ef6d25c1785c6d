// Records Tests/web/recorded-stream.ndjson from a running gateway: connects to /ws, sends the
// brief's region, pans, zooms out past the limit (clusters), toggles the field, and writes every
// frame the gateway sends, one per line. Run once against `isobar up --sample` (the recording is
// committed as data): node --experimental-websocket Tests/web/record-stream.mjs ws://127.0.0.1:PORT/ws > FILE
const url = process.argv[2];
const viewport = (latitude, longitude, latitudeDelta, longitudeDelta, extra = {}) =>
  ({ type: "viewport", center: { latitude, longitude }, span: { latitudeDelta, longitudeDelta }, ...extra });
const steps = [
  viewport(40.924, -108.0955, 25, 20),
  viewport(41.5, -104.0, 25, 20),
  viewport(39.0, -100.0, 12, 10),
  viewport(38.0, -98.0, 60, 80, { limit: 40 }),
  viewport(38.0, -98.0, 60, 80, { limit: 40, field: "wind" }),
  viewport(40.924, -108.0955, 25, 20, { field: "precipitation", units: "metric" }),
];
const socket = new WebSocket(url);
socket.onmessage = (event) => process.stdout.write(event.data.trim() + "\n");
socket.onopen = async () => {
  for (const step of steps) {
    socket.send(JSON.stringify(step));
    await new Promise((r) => setTimeout(r, 700));
  }
  socket.close(1000);
};
socket.onclose = () => process.exit(0);
