import CLibZMQ

/// What to wait for, and what happened, in `ZMQPoll.poll`.
public struct ZMQPollEvents: OptionSet, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// A message can be received (socket) or data read (file descriptor).
    public static let readable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// A message can be sent without blocking.
    public static let writable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// File descriptors only: an error condition.
    public static let error = ZMQPollEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// One thing `ZMQPoll.poll` watches: a libzmq socket or a plain file descriptor (a pipe, a signal pipe).
public enum ZMQPollItem {
    case socket(ZMQSocket, ZMQPollEvents)
    case fileDescriptor(Int32, ZMQPollEvents)
}

/// `zmq_poll`: wait until any of several sockets or file descriptors is ready.
public enum ZMQPoll {
    /// Waits up to `timeout` (`nil`: forever) for any item to become ready and returns, per item in the
    /// same order, the events that occurred (empty for items that are not ready, all empty on timeout).
    /// A signal interrupting the wait returns early with nothing ready.
    /// Throws `isTerminated` once the context is shut down. Blocks the thread: not for concurrency tasks.
    public static func poll(_ items: [ZMQPollItem], timeout: Duration?) throws(ZMQError) -> [ZMQPollEvents] {
        var raw: [zmq_pollitem_t] = []
        raw.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .socket(let socket, let events):
                let handle = try socket.openHandle("zmq_poll")
                raw.append(zmq_pollitem_t(socket: handle, fd: -1, events: events.rawValue, revents: 0))
            case .fileDescriptor(let fd, let events):
                raw.append(zmq_pollitem_t(socket: nil, fd: fd, events: events.rawValue, revents: 0))
            }
        }
        let milliseconds = timeout.map { $0.zmqMilliseconds } ?? -1
        let rc = zmq_poll(&raw, Int32(raw.count), milliseconds)
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.isInterrupted { return Array(repeating: [], count: items.count) }
            throw error
        }
        return raw.map { ZMQPollEvents(rawValue: $0.revents) }
    }
}
