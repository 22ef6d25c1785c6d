import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import IsobarNet

/// The sample feed's HTTP/1.1 server (SwiftNIO): serves what `SampleFeedResponder` decides, one task
/// per connection, keep-alive and pipelining handled by NIOHTTP1.
///
/// Start it with `start`, read the bound `port` (useful with port 0), and `stop()` it. Tests run it
/// in-process on port 0; `runSampleFeed` runs it until SIGINT/SIGTERM.
public final class SampleFeedServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The bound address and port.
    public let host: String
    public let port: Int
    public let responder: SampleFeedResponder
    private let channel: any Channel
    private let serving: Task<Void, Never>

    /// Loads the fixtures, binds, and starts accepting connections.
    public static func start(_ options: SampleFeedOptions, clock: @escaping @Sendable () -> Double = UnixClock.now,
                             logger: Logger) async throws -> SampleFeedServer {
        try options.validate()
        let drift = options.drift ? SampleFeedDrift(seed: options.seed) : nil
        let content = try SampleFeedContent(directory: options.fixturesDirectory, drift: drift)
        let responder = SampleFeedResponder(options: options, content: content, origin: clock())
        return try await start(responder: responder, host: options.host, port: options.port, clock: clock, logger: logger)
    }

    static func start(responder: SampleFeedResponder, host: String, port: Int, clock: @escaping @Sendable () -> Double,
                      logger: Logger) async throws -> SampleFeedServer {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SampleFeedError("could not listen on \(host):\(port): \(error)")
        }
        let boundPort = server.channel.localAddress?.port ?? port
        let handler = SampleFeedConnection(responder: responder, clock: clock, logger: logger)
        let serving = Task {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await handler.serve(connection) }
                        }
                    }
                } catch {
                    if !Task.isCancelled { logger.debug("sample feed stopped accepting: \(error)") }
                }
                group.cancelAll()
            }
        }
        return SampleFeedServer(host: host, port: boundPort, responder: responder, channel: server.channel, serving: serving)
    }

    private init(host: String, port: Int, responder: SampleFeedResponder, channel: any Channel, serving: Task<Void, Never>) {
        self.host = host
        self.port = port
        self.responder = responder
        self.channel = channel
        self.serving = serving
    }

    /// `http://host:port`, the prefix of `/today.json` and `/tomorrow.json`.
    public var baseURL: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)"
    }

    /// Stops listening, closes open connections (cancelling slow or delayed answers) and waits.
    public func stop() async {
        serving.cancel()
        try? await channel.close()
        await serving.value
    }
}
