import Foundation
import HummingbirdTLS
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// `--tls-cert/--tls-key` and the name race (close code 4009), against a real gateway process.
    @Suite(.serialized) struct TLSAndNames {
        static let view = #"{"type":"viewport","center":{"latitude":40,"longitude":-100},"span":{"latitudeDelta":2,"longitudeDelta":3}}"#

        /// A self-signed certificate for 127.0.0.1 and localhost (subject alternative names) made by
        /// the openssl command line, in a temporary directory: (certificate, key, directory).
        static func selfSignedCertificate() async throws -> (certificate: String, key: String, directory: String) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-tls-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let certificate = directory + "/cert.pem", key = directory + "/key.pem"
            let openssl = try await ProcessHarness("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                                                         "-keyout", key, "-out", certificate])
            openssl.closeStdin()
            try #require(await openssl.waitForExit(timeout: .seconds(60)) == .exited(0), "openssl: \(openssl.stderrText)")
            return (certificate, key, directory)
        }

        /// The HTTP side over TLS (curl, verifying against the certificate) and a `wss://` map
        /// client both ways through the bus; plain HTTP on the same port gets no HTTP reply.
        @Test func tlsServesHTTPSAndSecureWebSockets() async throws {
            let tls = try await Self.selfSignedCertificate()
            defer { try? FileManager.default.removeItem(atPath: tls.directory) }
            let gw = try await GatewayAlone(["--tls-cert", tls.certificate, "--tls-key", tls.key])
            #expect(gw.gateway.stderrText.contains("gateway: listening on https://127.0.0.1:\(gw.port)/"))
            #expect(gw.waitFor(topic: "lease", timeout: 10) != nil)
            gw.publishTally(today: "today-x")

            // curl verifies the chain and the name; /healthz is 200 once the tally arrived.
            var health = ""
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && health != "ok 200" {
                gw.publishTally(today: "today-x")
                let curl = try await ProcessHarness("curl", ["--silent", "--show-error", "--cacert", tls.certificate, "--write-out", "\\n%{http_code}",
                                                       "--max-time", "5", "https://127.0.0.1:\(gw.port)/healthz"])
                curl.closeStdin()
                _ = await curl.waitForExit(timeout: .seconds(10))
                health = curl.allStdoutLines.filter { !$0.isEmpty }.joined(separator: " ")
                if health != "ok 200" { try? await Task.sleep(for: .seconds(0.2)) }
            }
            #expect(health == "ok 200")
            // Plain HTTP to the TLS port: no HTTP reply (the TLS handshake fails).
            #expect((try? HTTPProbe.get(port: gw.port, path: "/healthz")) == nil)

            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(tls.certificate)
            let client = WSTestClient(port: gw.port, query: "?client=secure", tls: configuration)
            let mark = gw.seenCount
            client.send(Self.view)
            let viewport = gw.waitFor(topic: Topic.of(type: "viewport", client: "secure"), from: mark, timeout: 15)
            #expect(viewport?.contains(#""client":"secure""#) == true, "\(client.failure ?? "") \(gw.gateway.stderrText)")
            gw.bus.publish(#"{"type":"annotations","client":"secure","version":1,"full":true,"day":"today","upsert":[],"remove":[]}"#)
            let annotations = client.next(timeout: 15) { $0["type"] as? String == "annotations" }
            #expect(annotations?["version"] as? Int == 1)
            client.close()
            #expect(client.waitForEnd(timeout: 10))
            await gw.stop()
        }

        /// What each of several simultaneous upgrades with one `?client=` name got.
        enum Outcome: Equatable {
            /// Refused before the upgrade, with this HTTP status.
            case refused(Int)
            /// Upgraded, then closed at once with this WebSocket close code.
            case closed(Int)
            /// Upgraded and still open.
            case open
        }

        /// The race's results, one slot per socket, written from the racing threads.
        final class Outcomes: @unchecked Sendable {
            // @unchecked: `slots` only under `lock`.
            private let lock = NSLock()
            private var slots: [Outcome]
            init(count: Int) { slots = Array(repeating: .refused(0), count: count) }
            func set(_ index: Int, _ outcome: Outcome) { lock.withLock { slots[index] = outcome } }
            var values: [Outcome] { lock.withLock { slots } }
        }

        /// Sends one upgrade on each socket at the same moment; reads each reply and, after a 101,
        /// the first frame within `wait` seconds.
        static func race(_ sockets: [Int32], path: String, wait: Int) -> [Outcome] {
            let request = HTTPProbe.request(path: path, headers: [:], upgrade: true)
            let outcomes = Outcomes(count: sockets.count)
            DispatchQueue.concurrentPerform(iterations: sockets.count) { i in
                let fd = sockets[i]
                guard (try? HTTPProbe.send(fd, request)) != nil else { return }
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while HTTPProbe.headEnd(head) == nil, recv(fd, &byte, 1, 0) == 1 { head.append(byte) }
                let status = HTTPProbe.parse(head)?.reply.status ?? 0
                guard status == 101 else { outcomes.set(i, .refused(status)); return }
                var timeout = timeval(tv_sec: wait, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                // A server frame is not masked: opcode byte, a length byte (< 126 for a close),
                // then for a close the 2-byte code.
                var frame = [UInt8](repeating: 0, count: 4)
                let n = frame.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 4, Int32(MSG_WAITALL)) }
                if n == 4, frame[0] & 0x0F == 0x8 {
                    outcomes.set(i, .closed(Int(frame[2]) << 8 | Int(frame[3])))
                } else {
                    outcomes.set(i, .open)
                }
            }
            return outcomes.values
        }

        /// Eight upgrades with the same name at once, ten rounds: the upgrade check claims the
        /// name it accepts, so exactly one is upgraded and every other is refused with 409 before
        /// any upgrade (before the claim, some were upgraded and then closed with 4009).
        @Test func simultaneousUpgradesWithOneNameLeaveExactlyOneAndRefuseTheRestWith409() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()
            for round in 1...10 {
                let sockets = try (0..<8).map { _ in try HTTPProbe.connect(port: gw.port, receiveBuffer: nil) }
                let outcomes = Self.race(sockets, path: "/ws?client=race\(round)", wait: 1)
                sockets.forEach { close($0) }
                #expect(outcomes.filter { $0 == .open }.count == 1, "round \(round): \(outcomes)")
                #expect(outcomes.filter { $0 == .refused(409) }.count == 7, "round \(round): \(outcomes)")
            }
            await gw.stop()
        }
    }
}
