import Foundation
@testable import IsobarGateway
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// Attacks on the HTTP side of a real gateway over raw sockets (issue 27): slowloris, huge
    /// heads, requests that are not HTTP/1, connections beyond the limit, links and directories in
    /// the web root.
    @Suite struct GatewayHTTPAttackTests {
        /// Everything the gateway sends on `fd` until it closes (or the socket's 10 s timeout):
        /// `closed` says whether the stream ended (recv gave 0 or a reset) rather than timing out.
        static func readAll(_ fd: Int32) -> (text: String, closed: Bool) {
            var data: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                if n > 0 { data.append(contentsOf: buffer[0..<n]); continue }
                let closed = n == 0 || errno == ECONNRESET
                return (String(decoding: data, as: UTF8.self), closed)
            }
        }

        static func status(_ text: String) -> Int? {
            guard text.hasPrefix("HTTP/1.1 ") else { return nil }
            return Int(text.dropFirst(9).prefix(3))
        }

        @Test func aHalfOpenRequestIsAnswered408AfterTheHeaderTimeout() async throws {
            let gw = try await GatewayAlone(["--header-timeout", "1", "--request-timeout", "2"])
            // A head that never ends, one header line at a time (slowloris).
            let fd = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(fd) }
            try HTTPProbe.send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            try HTTPProbe.send(fd, "X-Drip: 1\r\n")
            let reply = Self.readAll(fd)
            #expect(Self.status(reply.text) == 408, "\(reply.text.prefix(200))")
            #expect(reply.closed)
            // A connection that sends nothing at all is closed without an answer.
            let idle = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(idle) }
            let silent = Self.readAll(idle)
            #expect(silent.text.isEmpty && silent.closed)
            // A head that came, with a body that never does: the request timeout.
            let body = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(body) }
            try HTTPProbe.send(body, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc")
            let cut = Self.readAll(body)
            #expect(cut.closed, "\(cut.text.prefix(200))")
            let metrics = try HTTPProbe.get(port: gw.port, path: "/metrics").body
            #expect(metrics.contains(#"isobar_gateway_errors_total{reason="request_timeout"}"#), "\(metrics)")
            // Still serving.
            #expect(try HTTPProbe.get(port: gw.port, path: "/").status == 200)
            await gw.stop()
        }

        @Test func aHugeHeadIsAnswered431AndOddRequestsGetAnAnswerOrAClose() async throws {
            let gw = try await GatewayAlone([])
            let big = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(big) }
            let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "a", count: 200_000) + "\r\n\r\n"
            RawFrames.sendAll(big, Array(head.utf8))
            let reply = Self.readAll(big)
            #expect(Self.status(reply.text) == 431, "\(reply.text.prefix(200))")
            // Not HTTP/1 (HTTP/0.9, the HTTP/2 preface) and a method no one knows: 400 at once.
            for request in ["GET /\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "BREW / HTTP/1.1\r\nHost: x\r\n\r\n"] {
                let fd = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
                defer { close(fd) }
                try HTTPProbe.send(fd, request)
                let answer = Self.readAll(fd)
                #expect(answer.closed, "\(request.debugDescription): no close")
                #expect(Self.status(answer.text).map { $0 >= 400 } == true, "\(request.debugDescription): \(answer.text.prefix(200))")
            }
            #expect(try HTTPProbe.get(port: gw.port, path: "/").status == 200)
            await gw.stop()
        }

        @Test func halfOpenRequestsCountAgainstMaxConnections() async throws {
            // One event loop: connections are set up in the order they were accepted.
            let gw = try await GatewayAlone(["--max-connections", "2", "--threads", "1"])
            let one = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(one) }
            let two = try HTTPProbe.connect(port: gw.port, receiveBuffer: nil)
            defer { close(two) }
            try HTTPProbe.send(one, "GET / HTTP/1.1\r\n")
            try HTTPProbe.send(two, "GET / HTTP/1.1\r\n")
            let third = try HTTPProbe.get(port: gw.port, path: "/")
            #expect(third.status == 503 && third.body.contains("full"), "\(third)")
            close(one)
            // Once one half-open request is gone, a request is served again.
            let deadline = Date().addingTimeInterval(10)
            var status = 0
            while Date() < deadline {
                status = (try? HTTPProbe.get(port: gw.port, path: "/"))?.status ?? 0
                if status == 200 { break }
                try? await Task.sleep(for: .seconds(0.1))
            }
            #expect(status == 200)
            await gw.stop()
        }

        @Test func maxConnectionsIsLoweredToTheDescriptorLimit() async throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { return }
            let gateway = try await ProcessHarness("/usr/bin/prlimit", ["--nofile=300:300", "--", ProcessHarness.isobarBinary, "gateway",
                                                                   "--listen", "127.0.0.1:0", "--max-connections", "20000"])
            let warning = await gateway.waitForStderr(containing: "serving at most 172 connections", timeout: .seconds(20))
            #expect(warning != nil, "\(gateway.stderrText)")
            gateway.signal(SIGTERM)
            _ = await gateway.waitForExit(timeout: .seconds(10))
        }

        @Test func descriptorBudgetPlans() {
            #expect(DescriptorBudget.plan(maxConnections: 1_000, soft: 65_536, hard: 65_536)
                == .init(softLimit: 65_536, maxConnections: 1_000, warning: nil))
            #expect(DescriptorBudget.plan(maxConnections: 20_000, soft: 1_024, hard: 1_048_576)
                == .init(softLimit: 20_128, maxConnections: 20_000, warning: nil))
            let lowered = DescriptorBudget.plan(maxConnections: 20_000, soft: 1_024, hard: 20_000)
            #expect(lowered.softLimit == 20_000 && lowered.maxConnections == 19_872 && lowered.warning != nil)
            #expect(DescriptorBudget.plan(maxConnections: 20_000, soft: 64, hard: 64).maxConnections == 1)
        }

        @Test func linksAndDirectoriesInTheWebRootAreNotServed() async throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-links-\(UUID().uuidString)")
            let root = base.appendingPathComponent("web")
            let outside = base.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: base) }
            try "<html>map</html>".write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
            try "inside".write(to: root.appendingPathComponent("sub/ok.txt"), atomically: true, encoding: .utf8)
            try "secret".write(to: outside.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.txt").path,
                                                       withDestinationPath: outside.appendingPathComponent("secret.txt").path)
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("dir").path, withDestinationPath: outside.path)
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("passwd").path, withDestinationPath: "/etc/passwd")
            let gw = try await GatewayAlone([], webRoot: root.path)
            #expect(try HTTPProbe.get(port: gw.port, path: "/web/sub/ok.txt").body == "inside")
            for path in ["/web/link.txt", "/web/dir/secret.txt", "/web/passwd", "/web/sub", "/web/dir"] {
                let reply = try HTTPProbe.get(port: gw.port, path: path)
                #expect(reply.status == 404, "\(path): \(reply.status)")
                #expect(!reply.body.contains("secret") && !reply.body.contains("root:"), "\(path)")
            }
            // The --countries file being a directory: 404, not 200 and a cut.
            let dirGW = try await GatewayAlone(["--countries", root.appendingPathComponent("sub").path], webRoot: root.path)
            #expect(try HTTPProbe.get(port: dirGW.port, path: "/countries.geojson").status == 404)
            await dirGW.stop()
            await gw.stop()
        }
    }
}
