import Foundation
import IsobarBus
import Logging

/// Runs `isobar broker`: an XSUB bound at `options.endpoints.frontend` (publishers connect there) and an
/// XPUB bound at `options.endpoints.backend` (subscribers connect there), joined by `zmq_proxy` on the
/// thread of its own, until SIGTERM or SIGINT (a `BlockingService` in a `ServiceGroup`).
///
/// Every stage finds every other only through these two endpoints, so any stage can be restarted or
/// replaced without the others noticing more than a reconnect. Messages are forwarded as-is; ZeroMQ
/// forwards subscriptions upstream, so a publisher only sends what someone subscribed to.
///
/// Sockets use `ZMQSocketOption.defaults`: queues of 100,000 messages per peer, so a snapshot burst
/// passes whole while one stalled subscriber costs bounded memory (beyond that, its messages are dropped
/// rather than stalling everyone; subscribers detect the gap and resync); MAXMSGSIZE 4 MiB, so a
/// publisher sending anything bigger is disconnected before it costs memory.
///
/// With `options.curve`, both sockets are CURVE servers and a ZAP handler admits only the allowlisted
/// client keys (see `BrokerSockets`, `ZAPHandler`): traffic is encrypted and strangers get nothing.
///
/// Refuses (throws `BrokerError.remoteEndpointRefused`) to bind anything but loopback, `ipc://` or
/// `inproc://` unless `options.allowRemote` is set. Returns 0 after a clean shutdown (1 when the proxy
/// failed); throws when an endpoint cannot be bound (for instance a port in use: another broker is
/// running).
public func runBroker(_ options: BrokerOptions, logger: Logger) async throws(BrokerError) -> Int32 {
    let endpoints = options.endpoints
    if !options.allowRemote {
        for (role, endpoint) in [("frontend (ISOBAR_PUB)", endpoints.frontend), ("backend (ISOBAR_SUB)", endpoints.backend)]
        where !BrokerEndpointPolicy.isLocal(endpoint) {
            throw .remoteEndpointRefused(role: role, endpoint: endpoint)
        }
    }

    var binding = options
    binding.endpoints.frontend = BrokerEndpointPolicy.bindable(endpoints.frontend)
    binding.endpoints.backend = BrokerEndpointPolicy.bindable(endpoints.backend)
    let sockets = try BrokerSockets.open(binding, logger: logger)

    Readiness.announce(logger, "publishers connect to \(sockets.boundFrontend), subscribers to \(sockets.boundBackend)")
    if let curve = options.curve {
        logger.info("CURVE on: clients set ISOBAR_CURVE_SERVERKEY=\(curve.keyPair.publicKey); \(curve.allowlist.keys.count) client key(s) allowed from \(curve.allowlist.source)")
    } else if options.allowRemote {
        for endpoint in [endpoints.frontend, endpoints.backend] where !BrokerEndpointPolicy.isLocal(endpoint) {
            logger.warning("\(endpoint) is reachable from other hosts and the bus is not encrypted (see --curve-secret)")
        }
    }

    // The proxy runs on the service's thread, which owns the sockets and closes them; a stop only
    // shuts the context down (thread-safe), which makes zmq_proxy return there.
    let service = BlockingService(name: "broker", body: {
        defer { sockets.close() }
        do {
            try sockets.run()
        } catch {
            logger.error("\(error)")
            return 1
        }
        logger.info("stopped")
        return 0
    }, stop: {
        logger.info("shutting down")
        sockets.context.shutdown()
    }, kill: {
        sockets.context.shutdown()
    })
    return await service.runUntilSignalled(logger: logger)
}
