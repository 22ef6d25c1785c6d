import Foundation
import IsobarCore
import Logging
import HTTPTypes
import NIOSSL
import WSClient

/// A map client of an Isobar gateway: what an iOS or macOS app imports (docs/client.md).
///
/// It keeps one WebSocket to the gateway open (reconnecting by itself with jittered backoff),
/// applies `annotations` by version into a ``MapState`` (repairing gaps with a `resync`, and
/// reporting the version it holds on every reconnection so nothing goes blank), answers requests
/// as `async` calls, and publishes every change on ``updates``. With an offline file it shows the
/// last set, viewport and favorites before the connection is up.
///
/// Threading: an actor; every method may be called from any task. ``updates`` has one consumer
/// (the app's model, on the main actor); each element carries a copy of the whole state.
public actor IsobarClient {
    public let configuration: Configuration
    private let logger: Logger
    /// Every change, with the state after it. One consumer; the newest 64 are kept for a slow one.
    public nonisolated let updates: AsyncStream<MapUpdate>
    private let continuation: AsyncStream<MapUpdate>.Continuation
    public private(set) var state: MapState

    private enum Phase { case idle, running, stopping, stopped }
    private var phase = Phase.idle
    private var loop: Task<Void, Never>?
    /// The open connection's outgoing frames (nil while not connected).
    private var outbound: AsyncStream<String>.Continuation?
    private var pending: [PendingRequest] = []
    private var nextRequest = 0
    private var saveScheduled = false

    public init(_ configuration: Configuration, logger: Logger = Logger(label: "isobar.client")) {
        self.configuration = configuration
        self.logger = logger
        state = MapState(client: configuration.name)
        (updates, continuation) = AsyncStream.makeStream(of: MapUpdate.self, bufferingPolicy: .bufferingNewest(64))
    }

    // MARK: Lifecycle

    /// Shows the offline file's state (if configured and present) and starts connecting.
    /// Calling it again does nothing.
    public func start() {
        guard phase == .idle else { return }
        phase = .running
        if let path = configuration.offlineFile, let saved = OfflineFile.load(path), state.restore(saved) {
            logger.info("showing \(state.annotationCount) saved annotations from \(path)")
            publish(.annotations)
            if state.favorites != nil { publish(.favorites) }
        }
        loop = Task { await self.run() }
    }

    /// Closes the connection cleanly (a close frame), fails the requests still waiting, saves the
    /// offline file and ends ``updates``.
    public func stop() async {
        guard phase == .running else { return }
        phase = .stopping
        if let outbound {
            outbound.finish()
        } else {
            loop?.cancel()
        }
        await loop?.value
        phase = .stopped
        for request in pending { request.continuation.resume(throwing: IsobarClientError.stopped) }
        pending.removeAll()
        saveNow()
        setConnection(.stopped)
        continuation.finish()
    }

    // MARK: The map

    /// A pan, zoom or toggle: sent now when connected, and on every reconnection.
    public func setViewport(_ viewport: MapViewport) throws(IsobarClientError) {
        send(try state.setViewport(viewport))
    }

    /// Selects a station for its callout (nil clears the selection).
    public func select(_ id: String?) {
        send(state.select(id))
        if id == nil { publish(.callout) }
    }

    // MARK: Requests

    /// The station nearest a point (PROTOCOL.md `nearest`).
    public func nearest(latitude: Double, longitude: Double) async throws -> NearestPlace {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw IsobarClientError.invalidRequest("nearest: latitude must be in [-90, 90] and longitude in [-180, 180]")
        }
        let frame = MapState.frame { NearestRequest(client: configuration.name, point: Coordinate(latitude: latitude, longitude: longitude)).write(to: &$0) }
        guard case .place(let place) = try await request(.nearest, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.nearest.rawValue) }
        return place
    }

    /// Stations by name or id (PROTOCOL.md `search`).
    public func search(_ query: String, limit: Int = 20) async throws -> SearchResults {
        guard query.contains(where: { !$0.isWhitespace }), query.count <= 100, (1...100).contains(limit) else {
            throw IsobarClientError.invalidRequest("search: the query needs 1 to 100 characters, not all spaces, and limit 1 to 100")
        }
        let frame = MapState.frame { SearchRequest(client: configuration.name, query: query, limit: limit).write(to: &$0) }
        guard case .results(let results) = try await request(.search, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.search.rawValue) }
        return results
    }

    /// Everything about one station, with its forecast (PROTOCOL.md `detail`).
    public func detail(_ id: String) async throws -> StationReport {
        guard !id.isEmpty, id.utf8.count <= 256 else { throw IsobarClientError.invalidRequest("detail: the id must be 1 to 256 bytes") }
        let frame = MapState.frame { DetailRequest(client: configuration.name, id: id).write(to: &$0) }
        guard case .report(let report) = try await request(.detail, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.detail.rawValue) }
        return report
    }

    /// Adds (`on`) or removes a favorite; returns the list after it (also on ``updates``).
    public func favorite(_ id: String, on: Bool) async throws -> FavoriteList {
        guard !id.isEmpty, id.utf8.count <= 256 else { throw IsobarClientError.invalidRequest("favorite: the id must be 1 to 256 bytes") }
        let frame = MapState.frame { FavoriteRequest(client: configuration.name, id: id, on: on).write(to: &$0) }
        guard case .favorites(let list) = try await request(.favorite, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.favorite.rawValue) }
        return list
    }

    /// Places by name (PROTOCOL.md `geocode`): `"springfield, il"`, with an optional country or
    /// US state.
    public func geocode(_ query: String, limit: Int = 10, country: String? = nil, state: String? = nil) async throws -> PlaceResults {
        guard query.contains(where: { !$0.isWhitespace }), query.count <= 100, (1...100).contains(limit) else {
            throw IsobarClientError.invalidRequest("geocode: the query needs 1 to 100 characters, not all spaces, and limit 1 to 100")
        }
        let frame = MapState.frame { GeocodeRequest(client: configuration.name, query: query, limit: limit, country: country, state: state).write(to: &$0) }
        guard case .locations(let results) = try await request(.geocode, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.geocode.rawValue) }
        return results
    }

    /// The place nearest a point within `radiusKm` (PROTOCOL.md `reverse`).
    public func reverse(latitude: Double, longitude: Double, radiusKm: Double = 100) async throws -> Vicinity {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), radiusKm > 0, radiusKm <= 20016 else {
            throw IsobarClientError.invalidRequest("reverse: latitude in [-90, 90], longitude in [-180, 180], radiusKm in (0, 20016]")
        }
        let frame = MapState.frame { ReverseRequest(client: configuration.name, point: Coordinate(latitude: latitude, longitude: longitude), radiusKm: radiusKm).write(to: &$0) }
        guard case .vicinity(let vicinity) = try await request(.reverse, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.reverse.rawValue) }
        return vicinity
    }

    /// The current weather at a point from the nearest station within `radiusKm`, named after the
    /// nearest place (PROTOCOL.md `weather`, answered by `conditions`).
    public func weather(latitude: Double, longitude: Double, radiusKm: Double = WeatherRequest.defaultRadiusKm) async throws -> WeatherConditions {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), radiusKm > 0, radiusKm <= 20016 else {
            throw IsobarClientError.invalidRequest("weather: latitude in [-90, 90], longitude in [-180, 180], radiusKm in (0, 20016]")
        }
        let request = WeatherRequest(client: configuration.name, target: .point(Coordinate(latitude: latitude, longitude: longitude)), radiusKm: radiusKm)
        let frame = MapState.frame { request.write(to: &$0) }
        guard case .conditions(let conditions) = try await self.request(.weather, frame) else { throw IsobarClientError.timedOut(PendingRequest.Kind.weather.rawValue) }
        return conditions
    }

    // MARK: Private: requests

    /// Sends a request and waits for the answer of its kind (answers of one kind come in the order
    /// asked). It is sent again after each reconnection until answered: every request is
    /// idempotent, and an answer lost with a connection is not lost to the caller.
    private func request(_ kind: PendingRequest.Kind, _ frame: String) async throws -> MapState.Answer {
        guard phase == .running else { throw IsobarClientError.stopped }
        nextRequest += 1
        let id = nextRequest
        let timeout = configuration.requestTimeout
        return try await withCheckedThrowingContinuation { continuation in
            pending.append(PendingRequest(id: id, kind: kind, frame: frame, continuation: continuation))
            send(frame)
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let request = pending.remove(at: index)
        request.continuation.resume(throwing: IsobarClientError.timedOut(request.kind.rawValue))
    }

    private func answer(_ answer: MapState.Answer) {
        guard let index = pending.firstIndex(where: { $0.kind.isAnswered(by: answer) }) else { return }
        pending.remove(at: index).continuation.resume(returning: answer)
    }

    /// An `error` frame fails the oldest request of the stage that sent it (places for geocode
    /// and reverse; filter or format for the others), if one waits.
    private func fail(_ error: ServerError) {
        guard let index = pending.firstIndex(where: { $0.kind.isRefused(by: error) }) else { return }
        pending.remove(at: index).continuation.resume(throwing: IsobarClientError.refused(error))
    }

    // MARK: Private: the connection

    private func send(_ frame: String) {
        outbound?.yield(frame)
    }

    /// Connects, runs the connection until it ends, waits the backoff, again, until stopped.
    private func run() async {
        var failures = 0
        var lostAt: ContinuousClock.Instant?
        var schedule = ReconnectSchedule(backoff: Backoff(initial: configuration.backoffInitial, maximum: configuration.backoffMaximum),
                                         quickWindow: configuration.quickRetryWindow)
        while phase == .running {
            setConnection(.connecting(attempt: failures + 1))
            let (frames, writer) = AsyncStream.makeStream(of: String.self)
            var reason: String
            do {
                let close = try await WebSocketClient.connect(url: connectURL, configuration: webSocketConfiguration,
                                                              tlsConfiguration: try tlsConfiguration(), logger: logger) { inbound, outbound, _ in
                    await self.opened(writer)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await frame in frames { try await outbound.write(.text(frame)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            if case .text(let text) = message { await self.received(text) }
                        }
                        group.cancelAll()
                    }
                }
                reason = close.map { "the gateway closed the connection (\($0.closeCode)\($0.reason.map { ": " + $0 } ?? ""))" } ?? "the connection ended"
            } catch {
                reason = Self.describe(error, url: configuration.url)
            }
            writer.finish()
            let wasConnected = outbound != nil
            outbound = nil
            guard phase == .running else { break }
            failures = wasConnected ? 1 : failures + 1
            if wasConnected {
                lostAt = .now
                schedule.connected()
            }
            let delay = schedule.next(sinceLost: lostAt.map { .now - $0 }, jitter: Double.random(in: 0..<1))
            logger.notice("\(reason); reconnecting in \(String(format: "%.2f", delay)) s")
            setConnection(.waiting(attempt: failures, retryIn: delay, reason: reason))
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// The connection is up: say where this client is, and ask again what is still unanswered.
    private func opened(_ writer: AsyncStream<String>.Continuation) {
        outbound = writer
        setConnection(.connected)
        for frame in state.helloFrames() { writer.yield(frame) }
        for request in pending { writer.yield(request.frame) }
    }

    private func received(_ text: String) {
        let reaction = state.receive(text)
        for frame in reaction.send { send(frame) }
        for change in reaction.changes {
            if case .error(let error) = change { fail(error) }
            publish(change)
            if change == .annotations || change == .favorites { scheduleSave() }
        }
        if let answer = reaction.answer { self.answer(answer) }
    }

    private func setConnection(_ status: ConnectionStatus) {
        guard state.connection != status else { return }
        state.connection = status
        publish(.connection)
    }

    private func publish(_ change: MapUpdate.Change) {
        continuation.yield(MapUpdate(change: change, state: state))
    }

    // MARK: Private: the offline file

    /// Saves at most once a second while updates arrive (and on ``stop()``).
    private func scheduleSave() {
        guard configuration.offlineFile != nil, !saveScheduled else { return }
        saveScheduled = true
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(1))
            await self?.saveNow()
        }
    }

    private func saveNow() {
        saveScheduled = false
        guard let path = configuration.offlineFile, let saved = state.saved(at: Date().timeIntervalSince1970) else { return }
        do {
            try OfflineFile.save(saved, to: path)
        } catch {
            logger.warning("cannot save the offline file \(path): \(error)")
        }
    }

    // MARK: Private: WebSocket settings

    /// The URL with `?client=NAME` (the gateway's naming rule) added.
    private var connectURL: String {
        let separator = configuration.url.contains("?") ? "&" : "?"
        return configuration.url + separator + "client=" + configuration.name
    }

    private var webSocketConfiguration: WebSocketClientConfiguration {
        var settings = WebSocketClientConfiguration(maxFrameSize: 1 << 24, closeTimeout: .seconds(2),
                                                    autoPing: .enabled(timePeriod: configuration.pingInterval))
        if let token = configuration.token { settings.additionalHeaders[.authorization] = "Bearer \(token)" }
        return settings
    }

    private func tlsConfiguration() throws -> TLSConfiguration? {
        guard let file = configuration.trustRootsFile else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(file)
        return tls
    }

    /// A failed connection in words an app can show.
    static func describe(_ error: any Error, url: String) -> String {
        if let failure = error as? WebSocketClientError, failure == .webSocketUpgradeFailed {
            return "the gateway refused the WebSocket upgrade at \(url): a wrong or missing token (HTTP 401), a name the token does not allow (403), a name already connected (409) or a full gateway (503)"
        }
        return "cannot connect to \(url): \(error)"
    }
}
