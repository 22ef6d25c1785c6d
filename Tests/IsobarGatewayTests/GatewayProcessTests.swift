import Testing

/// The tests that run real `isobar` processes. They run one at a time: each blocks a thread while
/// it waits on processes and sockets, and on two cores the Swift concurrency pool (which also runs
/// the test's WebSocket client) has only two threads.
@Suite(.serialized) enum GatewayProcessTests {}
