import Foundation
import IsobarBus
import Logging

/// The broker's bound sockets: the XSUB frontend, the XPUB backend and, with CURVE, the ZAP handler,
/// in one context. `runBroker` uses it, and so do tests that need a real broker in-process.
///
/// Every socket is created with `ZMQSocketOption.defaults`, so MAXMSGSIZE bounds what each accepts
/// (XSUB: published messages; XPUB: subscriptions), plus the CURVE server options when configured.
///
/// Both sockets have a ZAP domain even without CURVE (`zapOptions`): libzmq then refuses peers
/// speaking ZMTP 1.0 or 2.0 (every Isobar process speaks 3.x). Without it, libzmq 4.3.4 hands a
/// ZMTP 1.0 peer of the XPUB a phantom subscription to everything, and aborts the whole broker
/// (`Resource temporarily unavailable (src/zmtp_engine.cpp:463)`) when that injection finds the
/// peer's pipe full (seen once under extreme load). With no ZAP handler bound (no CURVE) and
/// ZMQ_ZAP_ENFORCE_DOMAIN off (libzmq's default), a ZMTP 3 peer with the NULL mechanism is
/// admitted exactly as before: the domain only turns the refusal of old protocol versions on.
///
/// `@unchecked Sendable`: the sockets are used by one thread at a time (the proxy thread while `run`
/// runs, then the thread calling `close`, after joining it); the context is thread-safe.
public final class BrokerSockets: @unchecked Sendable {
    /// The context; `shutdown()` on it stops `run` (and the ZAP handler) from any thread.
    public let context: ZMQContext
    /// The XSUB publishers connect to.
    public let frontend: ZMQSocket
    /// The XPUB subscribers connect to.
    public let backend: ZMQSocket
    private let zap: ZAPHandler?

    private init(context: ZMQContext, frontend: ZMQSocket, backend: ZMQSocket, zap: ZAPHandler?) {
        self.context = context
        self.frontend = frontend
        self.backend = backend
        self.zap = zap
    }

    /// Creates the sockets and binds them at `options.endpoints` (no endpoint policy check here: see
    /// `runBroker`). With `options.curve`, the ZAP handler is bound first, so no client is ever admitted
    /// unchecked.
    public static func open(_ options: BrokerOptions, logger: Logger) throws(BrokerError) -> BrokerSockets {
        let context: ZMQContext
        do {
            context = try ZMQContext()
        } catch {
            throw .bus(error)
        }
        do {
            var zap: ZAPHandler?
            var socketOptions = ZMQSocketOption.defaults
            if let curve = options.curve {
                zap = try ZAPHandler.start(context: context, allowlist: curve.allowlist, logger: logger)
                socketOptions += curve.serverOptions
            } else {
                socketOptions += zapOptions
            }
            let frontend = try ZMQSocket(context, .xsub, options: socketOptions)
            let backend = try ZMQSocket(context, .xpub, options: socketOptions)
            try frontend.bind(options.endpoints.frontend)
            try backend.bind(options.endpoints.backend)
            return BrokerSockets(context: context, frontend: frontend, backend: backend, zap: zap)
        } catch {
            // Stops a ZAP handler already started; the sockets made so far close as they go out of scope.
            context.shutdown()
            throw .bus(error)
        }
    }

    /// Without CURVE: the ZAP domain alone, which makes libzmq refuse ZMTP 1.0/2.0 peers (see the
    /// type's comment); CURVE's `serverOptions` set the same domain.
    static let zapOptions: [ZMQSocketOption] = [.zapDomain(BrokerCurve.zapDomain)]

    /// The endpoint the frontend actually bound (the real port after `tcp://host:*`).
    public var boundFrontend: String { (try? frontend.lastEndpoint()) ?? "?" }
    /// The endpoint the backend actually bound.
    public var boundBackend: String { (try? backend.lastEndpoint()) ?? "?" }

    /// Forwards messages (frontend -> backend) and subscriptions (backend -> frontend) on the calling
    /// thread until `context.shutdown()`.
    public func run() throws(ZMQError) {
        try ZMQProxy.run(frontend: frontend, backend: backend)
    }

    /// Closes the sockets and waits (briefly) for the ZAP handler to stop. Call after `run` returned,
    /// or instead of it.
    public func close() {
        context.shutdown()
        frontend.close()
        backend.close()
        // timer: a teardown grace: the handler's only blocking call ends with ETERM on shutdown; the bound only guards exit.
        _ = zap?.waitUntilStopped(timeout: .seconds(2))
    }
}
