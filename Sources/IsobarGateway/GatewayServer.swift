import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import IsobarCore
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// The gateway's HTTP side: the routes (web map, Leaflet, outlines, /healthz, /metrics) and the
/// `/ws` upgrade (``GatewayChannel``), as a Hummingbird `Application` (a swift-service-lifecycle
/// `Service`).
public enum GatewayServer {
    /// Connections the kernel may hold accepted-but-not-yet-taken (`listen(2)`'s backlog; Linux caps it
    /// at `net.core.somaxconn`, 4096 by default). Hummingbird's 256 overflows when thousands of clients
    /// reconnect at once after a gateway restart: the kernel then drops their handshakes' last ACKs and
    /// each waits out SYN-ACK retransmits (1, 2, 4 ... s) before it is served.
    static let listenBacklog = 4096

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Builds the application. `onReady` gets the URL once the server listens (with the real port
    /// when `options.port` is 0).
    public static func makeApplication(hub: GatewayHub, logger: Logger,
                                       onReady: @escaping @Sendable (String) -> Void) throws(Failure) -> some ApplicationProtocol {
        let options = hub.options
        let router = Router()
        addRoutes(to: router, hub: hub)
        let plain = HTTPServerBuilder { responder in GatewayChannel(responder: responder, hub: hub) }
        let server: HTTPServerBuilder
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
                let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
                let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
                server = try HTTPServerBuilder.tls(plain, tlsConfiguration: tls)
            } catch {
                throw Failure(description: "cannot use --tls-cert \(certificate) / --tls-key \(key): \(error)")
            }
        } else {
            server = plain
        }
        let scheme = options.tlsCertificate == nil ? "http" : "https"
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil, backlog: listenBacklog),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                onReady("\(scheme)://\(host):\(port)/")
            },
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup(numberOfThreads: options.threads)),
            logger: logger)
    }

    static func isWebSocketPath(_ target: String) -> Bool {
        target == "/ws" || target.hasPrefix("/ws?")
    }

    static func addRoutes(to router: Router<BasicRequestContext>, hub: GatewayHub) {
        let options = hub.options
        let files = FileIO()
        router.get("/") { _, context in
            guard let index = StaticFiles.regularFile(root: options.webRoot, relative: "index.html") else {
                return text("not found\n", status: .notFound)
            }
            return try await serveFile(index, files: files, context: context)
        }
        // The service worker must be served at the root: a worker controls only pages at or
        // under its own path, and the page is `/`.
        router.get("/sw.js") { _, context in
            try await serveFile(options.webRoot + "/sw.js", files: files, context: context)
        }
        router.get("/web/**") { request, context in
            try await serveUnder(options.webRoot, prefix: "/web/", request: request, files: files, context: context)
        }
        router.get("/leaflet/**") { request, context in
            try await serveUnder(options.leafletRoot, prefix: "/leaflet/", request: request, files: files, context: context)
        }
        router.get("/countries.geojson") { _, context in
            guard StaticFiles.isRegularFile(options.countries) else { return text("not found\n", status: .notFound) }
            return try await serveFile(options.countries, files: files, context: context)
        }
        router.get("/healthz") { _, _ in
            switch hub.health() {
            case .ok: return text("ok\n", status: .ok)
            case .degraded(let reason): return text("degraded: \(reason)\n", status: .ok)
            case .down(let reason): return text(reason + "\n", status: .serviceUnavailable)
            }
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: hub.metrics.exposition())))
        }
        // Reached only when the upgrade was refused (or the request was no upgrade at all): says why.
        router.get("/ws") { request, _ in
            let (decision, _) = hub.admit(target: request.uri.description, authorization: request.headers[.authorization],
                                          origin: request.headers[.origin])
            switch decision {
            case .reject(let status, let reason):
                return text(reason + "\n", status: HTTPResponse.Status(code: status))
            case .accept:
                return text("GET /ws must be a WebSocket upgrade\n", status: .upgradeRequired)
            }
        }
    }

    static func text(_ body: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func serveUnder(_ root: String, prefix: String, request: Request, files: FileIO,
                           context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(prefix), let file = StaticFiles.regularFile(root: root, relative: String(path.dropFirst(prefix.count))) else {
            return text("not found\n", status: .notFound)
        }
        return try await serveFile(file, files: files, context: context)
    }

    static func serveFile(_ path: String, files: FileIO, context: BasicRequestContext) async throws -> Response {
        let body = try await files.loadFile(path: path, context: context)
        return Response(status: .ok, headers: [.contentType: StaticFiles.contentType(for: path)], body: body)
    }
}
