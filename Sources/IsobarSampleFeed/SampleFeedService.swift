import Logging
import ServiceLifecycle
import IsobarNet

/// The sample feed's HTTP server as a swift-service-lifecycle `Service`: serves until the group's
/// graceful shutdown (SIGINT/SIGTERM), then stops the server and returns.
struct SampleFeedService: Service {
    let server: SampleFeedServer
    let logger: Logger

    func run() async throws {
        // Returns at graceful shutdown (or throws when cancelled); either way the server stops.
        try? await gracefulShutdown()
        logger.info("shutdown requested; stopping the sample feed")
        await server.stop()
    }
}
