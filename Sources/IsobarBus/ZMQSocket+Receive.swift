import CLibZMQ

extension ZMQSocket {
    /// Receives one whole multipart message, waiting at most `timeout` (`nil`: wait until one arrives or
    /// the context is shut down). Returns `nil` when the timeout passes with nothing to receive.
    ///
    /// Blocks the calling thread: run receive loops on a dedicated `Thread`. A loop ends when this throws
    /// `ZMQError.isTerminated` (the context was shut down).
    public func receiveMessage(timeout: Duration? = nil) throws(ZMQError) -> ZMQMessage? {
        if let timeout {
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while true {
                if let message = try receiveMessageNonBlocking() { return message }
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return nil }
                _ = try ZMQPoll.poll([.socket(self, .readable)], timeout: remaining)
            }
        }
        return try receiveFrames(flags: 0)
    }

    /// Receives one whole multipart message if one is waiting, else returns `nil` at once.
    public func receiveMessageNonBlocking() throws(ZMQError) -> ZMQMessage? {
        try receiveFrames(flags: ZMQ_DONTWAIT)
    }

    /// Reads the first frame with `flags`, then the rest of the message (which libzmq delivers
    /// atomically, so those reads never wait).
    private func receiveFrames(flags: Int32) throws(ZMQError) -> ZMQMessage? {
        let handle = try openHandle("zmq_msg_recv")
        var frames: [[UInt8]] = []
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        while true {
            let rc = zmq_msg_recv(&message, handle, frames.isEmpty ? flags : 0)
            if rc < 0 {
                let error = ZMQError.last("zmq_msg_recv(\(kind))")
                if error.isInterrupted { continue }
                if error.isAgain && frames.isEmpty { return nil }
                throw error
            }
            let size = zmq_msg_size(&message)
            if size == 0 {
                frames.append([])
            } else if let data = zmq_msg_data(&message) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            }
            if zmq_msg_more(&message) == 0 { return ZMQMessage(frames: frames) }
        }
    }
}
