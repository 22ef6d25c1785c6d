// A minimal WebSocket server on loopback for the client tests (RFC 6455: handshake, unmasked
// text frames out, masked text frames in, close), so Web/client.mjs is tested over a real socket
// with Node's own WebSocket client. Text frames under 64 KiB only: what these tests send.
import { createServer } from "node:http";
import { createHash } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export async function startServer(onConnection) {
  const sockets = new Set();
  const server = createServer((req, res) => res.writeHead(426).end());
  server.on("upgrade", (req, socket) => {
    const accept = createHash("sha1").update(req.headers["sec-websocket-key"] + GUID).digest("base64");
    socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sockets.add(socket);
    const peer = {
      url: req.url,
      received: [],
      send(message) {
        const body = Buffer.from(JSON.stringify(message));
        const head = body.length < 126 ? Buffer.from([0x81, body.length]) : Buffer.from([0x81, 126, body.length >> 8, body.length & 255]);
        socket.write(Buffer.concat([head, body]));
      },
      drop() {
        socket.destroy();
      },
      onMessage: null,
    };
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 6) {
        const opcode = buffer[0] & 15;
        let length = buffer[1] & 127;
        let offset = 2;
        if (length === 126) {
          length = buffer.readUInt16BE(2);
          offset = 4;
        }
        if (buffer.length < offset + 4 + length) return;
        const mask = buffer.subarray(offset, offset + 4);
        const body = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
        for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
        buffer = buffer.subarray(offset + 4 + length);
        if (opcode === 8) {
          socket.end(Buffer.from([0x88, 0]));
          return;
        }
        if (opcode === 1) {
          const message = JSON.parse(body.toString("utf8"));
          peer.received.push(message);
          peer.onMessage?.(message);
        }
      }
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    onConnection(peer);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
