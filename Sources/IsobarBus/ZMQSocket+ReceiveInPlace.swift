import CLibZMQ

extension ZMQSocket {
    /// Receives one message and shows its first two frames to `body` in libzmq's own buffers, with
    /// no copy and no heap allocation: the hot path of a plug, which only moves bytes on to a pipe.
    /// Frames past the second are received and discarded (`frameCount` says how many there were).
    /// The buffers are valid only during the call.
    ///
    /// Returns nil when `blocking` is false and nothing is waiting; otherwise `body`'s result.
    /// Throws `ZMQError.isTerminated` when the context is shut down.
    public func receiveInPlace<Result>(
        blocking: Bool,
        _ body: (_ frameCount: Int, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Result
    ) throws(ZMQError) -> Result? {
        let handle = try openHandle("zmq_msg_recv")
        // The three messages live at fixed addresses for the whole call (libzmq keeps frames of up
        // to 33 bytes inside the zmq_msg_t itself, so the frame pointers point into this memory).
        let outcome = withUnsafeTemporaryAllocation(of: zmq_msg_t.self, capacity: 3) { messages -> Swift.Result<Result?, ZMQError> in
            guard let first = messages.baseAddress else { return .success(nil) }
            let second = first + 1
            let extra = first + 2
            for k in 0..<3 { zmq_msg_init(first + k) }
            defer { for k in 0..<3 { zmq_msg_close(first + k) } }
            do throws(ZMQError) {
                guard try receivePart(first, handle, flags: blocking ? 0 : ZMQ_DONTWAIT) else { return .success(nil) }
                var count = 1
                if zmq_msg_more(first) != 0 {
                    // The rest of a message is delivered atomically with its first part: these never wait.
                    guard try receivePart(second, handle, flags: 0) else { return .success(nil) }
                    count = 2
                    var more = zmq_msg_more(second) != 0
                    while more {
                        guard try receivePart(extra, handle, flags: 0) else { break }
                        count += 1
                        more = zmq_msg_more(extra) != 0
                    }
                }
                let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                return .success(body(count, Self.bytes(of: first), count > 1 ? Self.bytes(of: second) : empty))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// One `zmq_msg_recv`, retried on EINTR; false on EAGAIN.
    private func receivePart(_ message: UnsafeMutablePointer<zmq_msg_t>, _ handle: UnsafeMutableRawPointer, flags: Int32) throws(ZMQError) -> Bool {
        while true {
            if zmq_msg_recv(message, handle, flags) >= 0 { return true }
            let error = ZMQError.last("zmq_msg_recv(\(kind))")
            if error.isInterrupted { continue }
            if error.isAgain { return false }
            throw error
        }
    }

    private static func bytes(of message: UnsafeMutablePointer<zmq_msg_t>) -> UnsafeRawBufferPointer {
        let size = zmq_msg_size(message)
        guard size > 0, let data = zmq_msg_data(message) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: size)
    }
}
