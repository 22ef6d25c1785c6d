import Testing
@testable import IsobarTestSupport

/// The tests that run real `isobar` processes. They run one at a time: each awaits its processes
/// (`ProcessHarness`) but may block a thread of the Swift concurrency pool while it waits on a
/// socket (two threads on two cores), and they share the machine's ports and CPU. Their WebSocket clients run on a thread of their own
/// (`TestThreadExecutor`), so a blocked pool never stalls them.
@Suite(.serialized) enum GatewayProcessTests {}
