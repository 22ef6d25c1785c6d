import Foundation
import Synchronization
import IsobarGateway
import IsobarStdio

/// `isobar up` prints the web map's URL on stderr once the gateway listens: when the gateway's own
/// "listening" line (`RunGateway.listeningPrefix`) comes through the supervisor's copy of its
/// output. An event, not a probe: no thread, no timed poll of the port.
final class GatewayReadiness: Sendable {
    /// The supervised gateway's name in `up`'s service list.
    static let service = "gateway"

    private let address: ListenAddress
    /// Printed once per `up` (a restarted gateway says it listens again; the URL is the same).
    private let printed = Mutex(false)

    init(_ address: ListenAddress) { self.address = address }

    /// The line `up` prints: `web map: http://HOST:PORT/`.
    var announcement: String { "web map: http://\(address.host):\(address.port)/" }

    /// The supervisor's line hook: prints ``announcement`` after the gateway's first "listening" line.
    func observe(service: String, line: UnsafeRawBufferPointer) {
        guard service == Self.service, line.starts(with: RunGateway.listeningPrefix.utf8) else { return }
        let first = printed.withLock { printed in
            defer { printed = true }
            return !printed
        }
        guard first else { return }
        LineOutput.standardError.write(Array((announcement + "\n").utf8))
        _ = LineOutput.standardError.flush()
    }
}
