import Testing
@testable import IsobarTestSupport

/// The tests that run real `isobar` processes. They run one at a time: each awaits its processes
/// (`ProcessHarness`) but may block a thread of the Swift concurrency pool while it waits on a
/// socket (two threads on two cores), and they share the machine's ports and CPU. Their WebSocket clients run on a thread of their own
/// (`TestThreadExecutor`), so a blocked pool never stalls them. Each takes one of the process tests'
/// slots (`ProcessTestSlots`), shared with the process tests when one run holds both.
@Suite(.serialized, .processSlot) enum GatewayProcessTests {}
