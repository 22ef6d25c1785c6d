extension IsobarClient {
    /// How to reach the gateway and what to keep.
    public struct Configuration: Sendable, Hashable, Codable {
        /// The gateway's WebSocket endpoint: `ws://host:port/ws`, or `wss://host/ws` for a gateway
        /// with `--tls-cert` (or behind a TLS proxy).
        public var url: String
        /// The client's name (1-64 of `[A-Za-z0-9._-]`): favorites belong to it, so keep it stable
        /// per user or device. With a token, the name the gateway's token file maps it to.
        public var name: String
        /// The gateway's token (`--token-file`), sent as `Authorization: Bearer`.
        public var token: String?
        /// A PEM file of certificates to trust for `wss://` instead of the system's (a gateway
        /// with a self-signed certificate); nil: the system's trust roots.
        public var trustRootsFile: String?
        /// A file to keep the last set, viewport and favorites in, shown (marked offline, with
        /// their age) before the connection is up; nil: nothing is kept.
        public var offlineFile: String?
        /// The reconnection backoff: after the n-th failed attempt in a row the client waits a
        /// uniform draw in [0, min(initial · 2^(n-1), maximum)) ("full jitter", so clients
        /// dropped together do not return together).
        public var backoffInitial: Duration
        public var backoffMaximum: Duration
        /// For this long after losing a connection that was up, the client retries every 50-300 ms
        /// (uniform) instead: a restarted gateway is back within a second, and the client with it
        /// (the backoff above applies after this window, and before the first connection).
        public var quickRetryWindow: Duration
        /// The client pings the gateway this often and drops a connection whose pong does not come
        /// by the next ping (a dead network path is noticed within two intervals; a request
        /// notices sooner, by its `requestTimeout`). 45 s: just under the gateway's own 50 s
        /// `--ping`, so the gateway never needs to ping an app that runs this library and each
        /// connection costs it one read and one pong per 45 s (15 s cost three times that, which
        /// at 100,000 apps is a quarter of a core); lower it for a faster verdict on a silent screen.
        public var pingInterval: Duration
        /// How long an `async` request waits for its answer (it is sent again after each
        /// reconnection meanwhile).
        public var requestTimeout: Duration

        public init(url: String, name: String, token: String? = nil, trustRootsFile: String? = nil, offlineFile: String? = nil,
                    backoffInitial: Duration = .milliseconds(250), backoffMaximum: Duration = .seconds(15), quickRetryWindow: Duration = .seconds(5),
                    pingInterval: Duration = .seconds(45), requestTimeout: Duration = .seconds(10)) {
            self.url = url
            self.name = name
            self.token = token
            self.trustRootsFile = trustRootsFile
            self.offlineFile = offlineFile
            self.backoffInitial = backoffInitial
            self.backoffMaximum = backoffMaximum
            self.quickRetryWindow = quickRetryWindow
            self.pingInterval = pingInterval
            self.requestTimeout = requestTimeout
        }
    }
}
