import IsobarStdio
import Logging
import ServiceLifecycle

/// The polling fetcher as a swift-service-lifecycle `Service`: runs until stdout's reader goes
/// away, or until the group's graceful shutdown (SIGINT/SIGTERM) cancels the polling.
struct FetchService: Service {
    let fetcher: FeedFetcher
    let logger: Logger

    func run() async throws {
        let stoppedByShutdown = await cancelWhenGracefulShutdown {
            await fetcher.run()
            return Task.isCancelled
        }
        logger.info(stoppedByShutdown ? "shutdown requested; stopping" : "stdout closed; stopping")
    }
}
