import Foundation

/// WebSocket frames written and read by hand over a socket from ``HTTPProbe/openWebSocket``, for
/// what a library client cannot be made to send: fragments, pings with data, bad sequences.
enum RawFrames {
    struct Frame: Equatable {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code (nil when it has none).
        var closeCode: Int? { payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    /// One client frame (masked, as RFC 6455 requires of clients, unless `masked` is false; `rsv`
    /// the reserved bits RSV1-3 as 0x40, 0x20, 0x10).
    static func encode(fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, masked: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else {
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += mask
        for (k, byte) in payload.enumerated() { bytes.append(byte ^ mask[k % 4]) }
        return bytes
    }

    static func send(_ fd: Int32, fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, masked: Bool = true, _ payload: [UInt8]) {
        sendAll(fd, encode(fin: fin, rsv: rsv, opcode: opcode, masked: masked, payload))
    }

    /// Writes every byte (blocking), or stops at the first error (the peer closed).
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            sent += n
        }
    }

    /// The next server frame, or nil at the end of the stream (or the socket's 10 s timeout).
    static func read(_ fd: Int32) -> Frame? {
        guard let head = exactly(fd, 2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let more = exactly(fd, 2) else { return nil }
            length = Int(more[0]) << 8 | Int(more[1])
        } else if length == 127 {
            guard let more = exactly(fd, 8) else { return nil }
            length = more.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = exactly(fd, length) else { return nil }
        return Frame(fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, payload: payload)
    }

    /// The next frame that is not a ping (pings from the gateway may come at any time).
    static func readSkippingPings(_ fd: Int32) -> Frame? {
        while let frame = read(fd) {
            if frame.opcode != 0x9 { return frame }
        }
        return nil
    }

    /// True when the peer closed the TCP connection (recv gives 0) before the socket's timeout.
    static func atEnd(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    private static func exactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            guard n > 0 else { return nil }
            got += n
        }
        return bytes
    }
}
