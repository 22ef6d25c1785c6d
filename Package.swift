// swift-tools-version:6.2
import PackageDescription

/// The project's own targets build with zero warnings: a warning is an error. SwiftPM 6.2's warning
/// control, not an unsafe flag: it applies to this package's targets only (dependencies build with
/// their warnings suppressed) and leaves the package usable as a dependency.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "Isobar",
    // The server (every target but IsobarClient) is Linux software: it calls Glibc, reads /proc and
    // is built and tested on Linux only; Linux takes no version here. These are the deployment
    // minimums of the app's library, `IsobarClient`, the one target meant for Apple platforms.
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        // What an iOS/macOS app adds: the map client over the gateway's WebSocket (docs/client.md).
        .library(name: "IsobarClient", targets: ["IsobarClient"]),
        .executable(name: "isobar", targets: ["isobar"]),
        .executable(name: "isobar-bench", targets: ["isobar-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.25.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        // One spawner for supervised commands: process groups, teardown sequences, async pipes.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        // The only target that sees <zmq.h>.
        .systemLibrary(
            name: "CLibZMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // zlib's inflate, for gzip files fetched as they are (the METAR cache file); only IsobarNet imports it.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Safe Swift API over libzmq; the only importer of CLibZMQ.
        .target(name: "IsobarBus", dependencies: ["CLibZMQ"], swiftSettings: strict),
        // Pure logic: JSON, messages, geometry, the stage engines. No I/O.
        .target(name: "IsobarCore", swiftSettings: strict),
        // NDJSON on stdin/stdout: the line loops every stage runs (LineInput, LineOutput) and one
        // small lock type, and the readiness line every long-running process writes. What IsobarNet,
        // IsobarStore and IsobarGateway need of the process layer, without libzmq.
        .target(name: "IsobarStdio", dependencies: [
            "IsobarCore",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // Joining the bus as a client: the broker's endpoints, the CURVE client settings, `BusClient`
        // (one thread owns its SUB socket, woken by a descriptor) and the wake descriptor itself.
        // What the gateway needs of the bus, without the process layer (plug, supervision, broker).
        .target(name: "IsobarBusClient", dependencies: ["IsobarCore", "IsobarBus"], swiftSettings: strict),
        // Process-level plumbing: child processes, broker, plug, supervisor; each
        // long-running process a swift-service-lifecycle service (BlockingService).
        .target(name: "IsobarHost", dependencies: [
            "IsobarCore", "IsobarBus", "IsobarBusClient", "IsobarStdio",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Subprocess", package: "swift-subprocess"),
        ], swiftSettings: strict),
        // HTTP: the feed fetcher (AsyncHTTPClient) and the sample feed server (SwiftNIO).
        .target(name: "IsobarNet", dependencies: [
            "IsobarCore", "IsobarStdio", "CZlib",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], swiftSettings: strict),
        // SQLite snapshot store (GRDB).
        // The sample feed (`isobar sample-feed`): an HTTP server for demos and tests, apart from the
        // fetcher it serves (it reads its fixture files with the fetcher's file reader).
        .target(name: "IsobarSampleFeed", dependencies: [
            "IsobarCore", "IsobarStdio", "IsobarNet",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], swiftSettings: strict),
        .target(name: "IsobarStore", dependencies: [
            "IsobarCore", "IsobarStdio",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // The WebSocket/HTTP gateway (Hummingbird): the door for apps and browsers. Reaches the bus
        // through IsobarBusClient's BusClient (not the process layer); serves the web map, /healthz
        // and /metrics.
        .target(name: "IsobarGateway", dependencies: [
            "IsobarCore", "IsobarStdio", "IsobarBusClient",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], swiftSettings: strict),
        // The app's client library: the gateway's WebSocket (swift-websocket: NIOPosix + NIOSSL on
        // Linux, Network.framework on Apple platforms), reconnecting, the map state applied by
        // version (IsobarCore's AnnotationSet), requests as async calls, an offline file. Nothing
        // that links libzmq, SQLite or the server (docs/client.md lists the graph).
        .target(name: "IsobarClient", dependencies: [
            "IsobarCore",
            .product(name: "WSClient", package: "swift-websocket"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .executableTarget(name: "isobar", dependencies: [
            "IsobarCore", "IsobarBus", "IsobarBusClient", "IsobarStdio", "IsobarHost", "IsobarNet", "IsobarSampleFeed", "IsobarStore", "IsobarGateway",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // Benchmark programs that print tables (BENCHMARKS.md); never run as timed tests.
        .executableTarget(name: "isobar-bench", dependencies: [
            "IsobarCore", "IsobarBus", "IsobarHost", "IsobarClient", "IsobarGateway",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ], swiftSettings: strict),
        // Test helpers shared by the process and gateway tests (real child processes, free ports).
        .target(name: "IsobarTestSupport", dependencies: ["IsobarHost"], path: "Tests/IsobarTestSupport", swiftSettings: strict),
        .testTarget(name: "IsobarCoreTests", dependencies: ["IsobarCore"], swiftSettings: strict),
        .testTarget(name: "IsobarClientTests", dependencies: ["IsobarClient", "IsobarCore"], swiftSettings: strict),
        .testTarget(name: "IsobarBusTests", dependencies: ["IsobarBus"], swiftSettings: strict),
        .testTarget(name: "IsobarNetTests", dependencies: [
            "IsobarNet", "IsobarSampleFeed", "IsobarCore", "IsobarStdio",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], swiftSettings: strict),
        .testTarget(name: "IsobarStoreTests", dependencies: ["IsobarStore", "IsobarCore", .product(name: "Logging", package: "swift-log")],
                    swiftSettings: strict),
        .testTarget(name: "IsobarHostTests", dependencies: ["IsobarHost", "IsobarCore", "IsobarBus", .product(name: "Logging", package: "swift-log")],
                    swiftSettings: strict),
        .testTarget(name: "IsobarGatewayTests", dependencies: [
            "IsobarGateway", "IsobarCore", "IsobarHost", "IsobarTestSupport", "IsobarClient",
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
        ], swiftSettings: strict),
        .testTarget(name: "IsobarProcessTests", dependencies: ["IsobarCore", "IsobarBus", "IsobarHost", "IsobarStore", "IsobarNet", "IsobarTestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
