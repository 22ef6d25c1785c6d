#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarNet
import Testing

/// A feed served with `Content-Encoding: gzip` is inflated, within the body limit (issue 27,
/// item 9: a valid gzip-encoded feed was refused).
@Suite(.serialized) struct GzipFeedTests {
    /// `bytes` compressed by the system's gzip.
    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let writer = Thread { input.fileHandleForWriting.write(Data(bytes)); try? input.fileHandleForWriting.close() }
        writer.start()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(compressed)
    }

    /// A one-shot HTTP server on loopback answering each connection with `response`; returns its
    /// port. Each request's head goes to `received` when given.
    static func serve(_ response: [UInt8], connections: Int, received: ReceivedRequests? = nil) throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        try #require(bound == 0 && listen(listener, 8) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let thread = Thread {
            for _ in 0..<connections {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { break }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                var request: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
                    let n = read(connection, &buffer, buffer.count)
                    if n <= 0 { break }
                    request += buffer[0..<n]
                }
                received?.append(String(decoding: request, as: UTF8.self))
                _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                close(connection)
            }
            close(listener)
        }
        thread.start()
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func response(gzipped body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }

    @Test func aGzipEncodedFeedIsInflatedAndParsed() async throws {
        let plain = try TestSupport.fixtureBytes(.today)
        let port = try Self.serve(Self.response(gzipped: try Self.gzip(plain)), connections: 1)
        try await TestSupport.withClient(timeout: 30) { client throws in
            let response = await client.fetch(.http("http://127.0.0.1:\(port)/today.json"), validators: ConditionalValidators(),
                                              logger: TestSupport.quiet, streamingOnX: true)
            guard case .parsed(let feed, _) = response else { Issue.record("not parsed: \(response)"); return }
            #expect(feed.stations.count == 181)
        }
    }

    @Test func aGzipBodyInflatingPastTheLimitIsRefused() async throws {
        let bomb = try Self.gzip([UInt8](repeating: 0x20, count: 4 << 20))  // 4 MiB of spaces, ~4 KB compressed
        let port = try Self.serve(Self.response(gzipped: bomb), connections: 1)
        try await TestSupport.withClient(timeout: 30, maxBodyBytes: 1 << 20) { client throws in
            let response = await client.fetch(.http("http://127.0.0.1:\(port)/today.json"), validators: ConditionalValidators(),
                                              logger: TestSupport.quiet, streamingOnX: true)
            guard case .failed(let reason) = response else { Issue.record("not refused: \(response)"); return }
            #expect(reason.contains("1048576-byte limit"))
        }
    }
}
