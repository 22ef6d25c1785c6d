import CLibZMQ

/// `zmq_proxy`: the broker's forwarding loop between an XSUB frontend and an XPUB backend.
public enum ZMQProxy {
    /// Forwards messages frontend -> backend and subscriptions backend -> frontend (copying both to
    /// `capture`, if given) on the calling thread, until the context is shut down; then returns normally.
    /// Any other failure throws. The sockets must not be used by another thread meanwhile.
    public static func run(frontend: ZMQSocket, backend: ZMQSocket, capture: ZMQSocket? = nil) throws(ZMQError) {
        let front = try frontend.openHandle("zmq_proxy")
        let back = try backend.openHandle("zmq_proxy")
        let tap = try capture.map { socket throws(ZMQError) in try socket.openHandle("zmq_proxy") }
        while true {
            _ = zmq_proxy(front, back, tap)
            // zmq_proxy only ever returns -1: ETERM is the requested stop.
            let error = ZMQError.last("zmq_proxy")
            if error.isTerminated { return }
            if error.isInterrupted { continue }
            throw error
        }
    }
}
