import Foundation

/// Where the broker listens, and so where every other process connects.
///
/// - `frontend` (environment `ISOBAR_PUB`, default `tcp://127.0.0.1:5559`): the broker's XSUB.
///   Publishers connect here: every stage's output, every client that sends viewports.
/// - `backend` (environment `ISOBAR_SUB`, default `tcp://127.0.0.1:5560`): the broker's XPUB.
///   Subscribers connect here: every stage's input, every client that receives annotations.
///
/// The environment variables apply to every command (broker, plug, up, attach), so one `export` moves
/// a whole pipeline to other ports or to `ipc://` paths. The defaults are loopback only: nothing is
/// reachable from another host unless asked for (see `BrokerOptions.allowRemote`).
public struct BrokerEndpoints: Sendable, Equatable {
    /// The XSUB endpoint publishers connect to.
    public var frontend: String
    /// The XPUB endpoint subscribers connect to.
    public var backend: String

    /// `tcp://127.0.0.1:5559`.
    public static let defaultFrontend = "tcp://127.0.0.1:5559"
    /// `tcp://127.0.0.1:5560`.
    public static let defaultBackend = "tcp://127.0.0.1:5560"
    /// Name of the variable that overrides `frontend`.
    public static let frontendVariable = "ISOBAR_PUB"
    /// Name of the variable that overrides `backend`.
    public static let backendVariable = "ISOBAR_SUB"

    public init(frontend: String = Self.defaultFrontend, backend: String = Self.defaultBackend) {
        self.frontend = frontend
        self.backend = backend
    }

    /// The defaults, overridden by `ISOBAR_PUB` / `ISOBAR_SUB` when they are set and not empty.
    /// Pass the environment explicitly in tests; by default the process environment is read.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> BrokerEndpoints {
        var endpoints = BrokerEndpoints()
        if let value = environment[frontendVariable], !value.isEmpty { endpoints.frontend = value }
        if let value = environment[backendVariable], !value.isEmpty { endpoints.backend = value }
        return endpoints
    }
}
