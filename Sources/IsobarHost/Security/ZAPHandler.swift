import Foundation
import IsobarBus
import IsobarBusClient
import Logging

/// The broker's ZAP handler: a REP socket bound at `inproc://zeromq.zap.01` in the broker's context, on
/// its own thread, that answers libzmq's authentication request for every CURVE handshake (see
/// `ZAPReply`): a client whose public key is in the allowlist is admitted, any other is refused and
/// never receives or delivers a message.
///
/// Fail closed: libzmq admits every CURVE client when no handler is bound (the DRAFT option
/// ZMQ_ZAP_ENFORCE_DOMAIN, which would refuse instead, is not available in this libzmq). So the handler
/// is bound before the broker's sockets, and if it ever fails for any reason but shutdown it shuts the
/// whole context down, stopping the broker rather than leaving it open.
///
/// Each refused key is logged once (a refused client reconnects, and retries, every few seconds); at
/// most `maxLoggedKeys` distinct keys are remembered, so a flood of random keys cannot grow memory.
///
/// Its thread is one a blocking C call needs: it waits in `zmq_recv` on the REP socket (the broker's
/// other thread is inside `zmq_proxy`, which serves no third socket). The broker's stop wakes it at
/// once: `zmq_ctx_shutdown` makes that receive fail with ETERM.
///
/// `Sendable`: after `start` the socket is used only by the handler thread; the handle only
/// exposes the thread's completion signal (a pipe), which is thread-safe.
final class ZAPHandler: Sendable {
    /// Where libzmq looks for the handler (RFC 27).
    static let endpoint = "inproc://zeromq.zap.01"
    /// How many distinct refused keys are remembered to log each only once.
    static let maxLoggedKeys = 10_000

    /// Signalled by the thread once it has closed its socket.
    private let done: WakePipe

    private init(done: WakePipe) { self.done = done }

    /// Binds the handler in `context` and starts its thread. It stops when the context is shut down.
    /// The thread is there for one blocking C call: `zmq_msg_recv` on the ZAP REP socket (libzmq
    /// asks and waits for each answer synchronously; the socket belongs to the thread that uses it).
    static func start(context: ZMQContext, allowlist: CurveAllowlist, logger: Logger) throws(ZMQError) -> ZAPHandler {
        // Same defaults as every socket: MAXMSGSIZE included (inproc carries no wire decoder, and the
        // only peer is libzmq itself, but the bound costs nothing).
        let socket = try ZMQSocket(context, .rep)
        try socket.bind(endpoint)
        guard let done = WakePipe() else { throw ZMQError(operation: "pipe (the ZAP handler's completion signal)", errno: EMFILE) }
        let handler = ZAPHandler(done: done)
        let thread = Thread {
            serve(socket: socket, context: context, allowlist: allowlist, logger: logger)
            socket.close()
            done.signal()
        }
        thread.name = "isobar-zap"
        thread.start()
        return handler
    }

    /// Waits up to `timeout` for the thread to end (after the context was shut down).
    func waitUntilStopped(timeout: Duration) -> Bool {
        // timer: the stop's grace for the thread to close its socket; its end signals `done` at once.
        done.wait(timeout: timeout)
    }

    private static func serve(socket: ZMQSocket, context: ZMQContext, allowlist: CurveAllowlist, logger: Logger) {
        var loggedRefusals = Set<String>()
        var loggedAdmissions = Set<String>()
        var unlogged = false
        while true {
            do {
                guard let request = try socket.receiveMessage() else { continue }
                let reply = ZAPReply.answering(request.frames, allowlist: allowlist)
                let frames = reply.frames
                for (index, frame) in frames.enumerated() {
                    try socket.send(frame, more: index < frames.count - 1)
                }
                let who = reply.clientKey ?? "(no key)"
                if reply.allowed {
                    if loggedAdmissions.insert(who).inserted {
                        logger.info("admitted CURVE client \(who) from \(reply.address)")
                    }
                } else if loggedRefusals.count < maxLoggedKeys {
                    if loggedRefusals.insert(who).inserted {
                        logger.warning("refused client \(who) from \(reply.address): \(reply.statusText) (logged once per key)")
                    }
                } else if !unlogged {
                    unlogged = true
                    logger.warning("\(maxLoggedKeys) distinct client keys refused; further refusals are not logged")
                }
            } catch {
                if error.isTerminated { return }
                logger.critical("the ZAP authentication handler failed (\(error)); stopping the broker rather than admitting unauthenticated clients")
                context.shutdown()
                return
            }
        }
    }
}
