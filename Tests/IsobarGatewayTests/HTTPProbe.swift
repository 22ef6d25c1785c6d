#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import IsobarTestSupport

/// A minimal HTTP/1.1 client over a raw TCP socket, for checking status codes the WebSocket client
/// cannot report (a refused upgrade) and for plain GETs. Blocking; call from tests only.
enum HTTPProbe {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `GET path` (with WebSocket upgrade headers when `upgrade`); reads until the server closes
    /// (plain requests) or until the head arrived (upgrades).
    static func get(port: Int, path: String, headers: [String: String] = [:], upgrade: Bool = false,
                    receiveBuffer: Int32? = nil) throws -> Reply {
        let fd = try connect(port: port, receiveBuffer: receiveBuffer)
        defer { close(fd) }
        try send(fd, request(path: path, headers: headers, upgrade: upgrade))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            if upgrade, let head = headEnd(data), head > 0 { break }
            if let reply = parse(data), reply.complete { return reply.reply }
        }
        guard let reply = parse(data) else { throw Failure(description: "no HTTP reply from port \(port) for \(path)") }
        return reply.reply
    }

    /// Upgrades to a WebSocket by hand and returns the open socket and the status code (101 when it
    /// upgraded); the caller closes the socket.
    static func openWebSocket(port: Int, path: String, headers: [String: String] = [:]) throws -> (fd: Int32, status: Int) {
        let fd = try connect(port: port, receiveBuffer: nil)
        try send(fd, request(path: path, headers: headers, upgrade: true))
        var data: [UInt8] = []
        var byte: UInt8 = 0
        while headEnd(data) == nil, recv(fd, &byte, 1, 0) == 1 { data.append(byte) }
        return (fd, parse(data)?.reply.status ?? 0)
    }

    /// Opens a WebSocket by hand and never reads from it: a client that stops reading.
    static func openSilentWebSocket(port: Int, path: String) throws -> Int32 {
        let fd = try connect(port: port, receiveBuffer: 4096)
        try send(fd, request(path: path, headers: [:], upgrade: true))
        return fd
    }

    static func request(path: String, headers: [String: String], upgrade: Bool) -> String {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if upgrade {
            text += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        } else {
            text += "Connection: close\r\n"
        }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    static func connect(port: Int, receiveBuffer: Int32?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure(description: "send failed") }
    }

    static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    static func parse(_ data: [UInt8]) -> (reply: Reply, complete: Bool)? {
        guard let end = headEnd(data) else { return nil }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = Array(data[end...])
        var complete = false
        if let length = headers["content-length"].flatMap(Int.init) {
            complete = body.count >= length
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            complete = String(decoding: body.suffix(7), as: UTF8.self).hasSuffix("0\r\n\r\n")
            if complete { return (Reply(status: status, headers: headers, body: dechunk(body)), true) }
        }
        return (Reply(status: status, headers: headers, body: String(decoding: body, as: UTF8.self)), complete)
    }

    static func dechunk(_ body: [UInt8]) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < body.count {
            guard let lineEnd = (index..<(body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                  let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self), radix: 16) else { break }
            if size == 0 { break }
            let start = lineEnd + 2
            guard start + size <= body.count else { break }
            out.append(contentsOf: body[start..<(start + size)])
            index = start + size + 2
        }
        return String(decoding: out, as: UTF8.self)
    }
}
