import CLibZMQ

extension ZMQSocket {
    /// ZMQ_EVENTS: what the socket can do now (`.readable`: a message waits; `.writable`: a send
    /// would not block). Processes the commands libzmq's I/O thread left for the socket first, so
    /// it costs a `poll` system call: not for a per-message path. Use it on the socket's thread
    /// (or under the lock that guards the socket).
    public func pendingEvents() throws(ZMQError) -> ZMQPollEvents {
        let handle = try openHandle("zmq_getsockopt(ZMQ_EVENTS)")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        while zmq_getsockopt(handle, ZMQ_EVENTS, &value, &size) != 0 {
            let error = ZMQError.last("zmq_getsockopt(ZMQ_EVENTS)")
            if !error.isInterrupted { throw error }
        }
        return ZMQPollEvents(rawValue: Int16(truncatingIfNeeded: value))
    }

    /// ZMQ_FD: a descriptor that becomes readable when the socket's state may have changed (a
    /// message arrived, a peer came or went). Edge-triggered: it says "look", not "readable";
    /// after it fires, `pendingEvents()` says what is there (and re-arms it). Another thread may
    /// wait on it (it is a plain descriptor) while the socket's own thread keeps using the socket.
    public func signalDescriptor() throws(ZMQError) -> Int32 {
        let handle = try openHandle("zmq_getsockopt(ZMQ_FD)")
        var value: Int32 = -1
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(handle, ZMQ_FD, &value, &size) != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_FD)") }
        return value
    }
}
