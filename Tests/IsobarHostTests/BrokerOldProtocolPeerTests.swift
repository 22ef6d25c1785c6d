import Foundation
import IsobarBus
import IsobarBusClient
import Synchronization
import Testing
@testable import IsobarHost

/// A peer speaking ZMTP 1.0 to the broker's XPUB (first byte not 0xFF) is refused: the broker
/// closes the connection (libzmq hands such a peer a phantom subscription to everything, and
/// 4.3.4 aborted the broker once when that failed; `BrokerSockets.zapOptions`), and keeps serving
/// its ordinary clients.
@Suite(.serialized) struct BrokerOldProtocolPeerTests {
    /// A TCP connection to `endpoint` (`tcp://127.0.0.1:PORT`), or nil.
    static func connect(_ endpoint: String) -> Int32? {
        guard let portText = endpoint.split(separator: ":").last, let port = UInt16(portText) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { Glibc.close(fd); return nil }
        return fd
    }

    /// Reads until the peer closes the connection (true) or `seconds` pass with it open (false).
    static func closedByPeer(_ fd: Int32, within seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var item = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = ContinuousClock.now.duration(to: deadline)
            let ready = poll(&item, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready < 0 { if errno == EINTR { continue }; return false }
            if ready == 0 { continue }
            let n = read(fd, &buffer, buffer.count)
            if n == 0 { return true }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return errno == ECONNRESET }
        }
        return false
    }

    @Test func aZMTP1PeerIsRefusedAndTheBrokerKeepsServing() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let fd = try #require(Self.connect(broker.backend))
        defer { Glibc.close(fd) }
        // ZMTP 1.0: the peer's identity as a first message (length 1, flags 0, empty body); no
        // 0xFF signature, so libzmq takes it for an unversioned peer.
        let hello: [UInt8] = [0x01, 0x00]
        #expect(write(fd, hello, hello.count) == hello.count)
        #expect(Self.closedByPeer(fd, within: 5))

        // Ordinary clients still get through the broker.
        let endpoints = BrokerEndpoints(frontend: broker.frontend, backend: broker.backend)
        let heard = Mutex<[String]>([])
        let listener = try BusClient(endpoints: endpoints, topics: ["probe"])
        defer { listener.close() }
        listener.start { topic, line in heard.withLock { $0.append(topic + " " + String(decoding: line, as: UTF8.self)) } }
        let publisher = try BusClient(endpoints: endpoints, topics: [])
        defer { publisher.close() }
        let line = #"{"type":"probe","n":1}"#
        #expect(AttachHeldInputTests.eventually(10) {
            publisher.publish(line)
            return !heard.withLock { $0.isEmpty }
        })
        #expect(heard.withLock { $0.first } == "probe " + line)
    }
}
