#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import ServiceLifecycle
import UnixSignals

/// How every long-running isobar process runs its main service: in a `ServiceGroup` whose graceful
/// shutdown the first SIGTERM or SIGINT triggers; a second signal calls `kill`, and a stop that
/// overruns `stopBudget` (nil: no limit) cancels the service.
///
/// Both signals are counted by one listener, swift-service-lifecycle's `UnixSignalsSequence`.
/// (Two listeners, the group's and a counter, raced: a dispatch signal source merges signals that
/// arrive before its handler runs, so under load the counter could see the two signals as one
/// while the group had already acted on the first, and the second never killed.) SIGPIPE is
/// ignored first, so a write to a pipe whose reader died fails with EPIPE instead of ending the
/// process.
public enum SignalledGroup {
    public static func run(_ service: some Service, name: String, logger: Logger, stopBudget: Duration?,
                           kill: @escaping @Sendable () -> Void) async {
        _ = signal(SIGPIPE, SIG_IGN)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)], logger: logger)
        configuration.maximumGracefulShutdownDuration = stopBudget
        let group = ServiceGroup(configuration: configuration)
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let listener = Task {
            var seen = 0
            for await _ in signals {
                seen += 1
                if seen == 1 {
                    await group.triggerGracefulShutdown()
                } else if seen == 2 {
                    kill()
                }
            }
        }
        defer { listener.cancel() }
        do {
            try await group.run()
        } catch {
            logger.error("\(name): \(error)")
        }
    }
}
