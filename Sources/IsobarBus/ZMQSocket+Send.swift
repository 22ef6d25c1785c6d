import CLibZMQ

extension ZMQSocket {
    /// Sends one frame (copied by libzmq). `more: true` announces that another frame of the same message
    /// follows; a message is delivered whole or not at all.
    ///
    /// With `blocking: false` a send that cannot be queued returns `false` instead of waiting (XPUB with
    /// `xpubNoDrop` at SNDHWM). PUB never blocks or fails at SNDHWM: it drops, by ZeroMQ's design.
    @discardableResult
    public func send(
        _ frame: UnsafeRawBufferPointer, more: Bool = false, blocking: Bool = true
    ) throws(ZMQError) -> Bool {
        let handle = try openHandle("zmq_send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (blocking ? 0 : ZMQ_DONTWAIT)
        while true {
            if zmq_send(handle, frame.baseAddress, frame.count, flags) >= 0 { return true }
            let error = ZMQError.last("zmq_send(\(kind))")
            if error.isInterrupted { continue }
            if error.isAgain && !blocking { return false }
            throw error
        }
    }

    /// Sends one frame from a byte array. See `send(_:more:blocking:)`.
    @discardableResult
    public func send(_ frame: [UInt8], more: Bool = false, blocking: Bool = true) throws(ZMQError) -> Bool {
        let result = frame.withUnsafeBytes { buffer in
            Result { () throws(ZMQError) -> Bool in try self.send(buffer, more: more, blocking: blocking) }
        }
        return try result.get()
    }

    /// Sends one frame holding the UTF-8 bytes of `string`. See `send(_:more:blocking:)`.
    @discardableResult
    public func send(_ string: String, more: Bool = false, blocking: Bool = true) throws(ZMQError) -> Bool {
        try send(Array(string.utf8), more: more, blocking: blocking)
    }

    /// Sends Isobar's bus message: frame 1 the topic (what subscribers filter on), frame 2 the JSON line
    /// without its newline. Returns `false` only for a non-blocking send that could not be queued, in
    /// which case nothing was sent (the second frame always follows an accepted first).
    @discardableResult
    public func send(
        topic: String, payload: UnsafeRawBufferPointer, blocking: Bool = true
    ) throws(ZMQError) -> Bool {
        // The topic's own UTF-8 bytes when it has them contiguous (a native string), no copy.
        var topic = topic
        let first = topic.withUTF8 { buffer in
            Result { () throws(ZMQError) -> Bool in try self.send(UnsafeRawBufferPointer(buffer), more: true, blocking: blocking) }
        }
        guard try first.get() else { return false }
        return try send(payload, more: false, blocking: blocking)
    }

    /// Sends Isobar's bus message with the topic given as bytes (no String, no allocation).
    @discardableResult
    public func send(
        topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, blocking: Bool = true
    ) throws(ZMQError) -> Bool {
        guard try send(topicBytes, more: true, blocking: blocking) else { return false }
        return try send(payload, more: false, blocking: blocking)
    }

    /// Sends topic + payload from a byte array. See `send(topic:payload:blocking:)`.
    @discardableResult
    public func send(topic: String, payload: [UInt8], blocking: Bool = true) throws(ZMQError) -> Bool {
        let result = payload.withUnsafeBytes { buffer in
            Result { () throws(ZMQError) -> Bool in try self.send(topic: topic, payload: buffer, blocking: blocking) }
        }
        return try result.get()
    }

    /// Sends topic + a JSON line given as a `String` (no trailing newline). See `send(topic:payload:blocking:)`.
    @discardableResult
    public func send(topic: String, line: String, blocking: Bool = true) throws(ZMQError) -> Bool {
        try send(topic: topic, payload: Array(line.utf8), blocking: blocking)
    }
}
