#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore
import IsobarStdio
import IsobarNet
import Synchronization

/// The two feeds the sample server serves: the fixtures, loaded once at start, and the drifted body
/// of the current epoch, rendered once per epoch and day and then reused with its ETag.
public final class SampleFeedContent: Sendable {
    /// One day's body at one epoch and its strong ETag (a hash of exactly these bytes).
    public struct Body: Sendable, Equatable {
        public var epoch: Int
        public var bytes: [UInt8]
        public var etag: String
    }

    public let fixtures: [Day: [OnXRecord]]
    private let fixtureBytes: [Day: [UInt8]]
    /// The other formats' fixtures (served as they are, without drift), by format.
    public let formats: [FeedFormat: Body]

    /// Where each other format's fixture is, under the fixtures directory.
    public static let formatFiles: [FeedFormat: String] = [
        .openweather: "feeds/openweather-group.json", .darksky: "feeds/darksky.json", .airvisual: "feeds/airvisual.json",
        .metar: "feeds/metar.json", .openmeteo: "feeds/openmeteo.json", .nws: "feeds/nws.json",
    ]
    /// The NWS stations list's pages (`feeds/nws-stations.json`, `feeds/nws-stations-2.json`), in
    /// order, and each station's latest observation (the Features of `feeds/nws.json` by id):
    /// what `/stations` and `/stations/{id}/observations/latest` serve.
    public let nwsStationPages: [Body]
    public let nwsObservations: [String: Body]
    /// The NWS stations list's pages, in order, under the fixtures directory.
    public static let nwsStationFiles = ["feeds/nws-stations.json", "feeds/nws-stations-2.json"]
    /// nil when drift is off.
    public let drift: SampleFeedDrift?
    /// The last body rendered per day.
    private let cache = Mutex<[Day: Body]>([:])

    public init(fixtures: [Day: [UInt8]], drift: SampleFeedDrift?, formats: [FeedFormat: [UInt8]] = [:],
                nwsStationPages: [[UInt8]] = []) throws(SampleFeedError) {
        var records: [Day: [OnXRecord]] = [:]
        for day in Day.allCases {
            guard let bytes = fixtures[day] else { throw SampleFeedError("no fixture for \(day.rawValue)") }
            do {
                records[day] = try OnXRecord.parseArray(bytes)
            } catch {
                throw SampleFeedError("fixture \(day.rawValue).json is not an onX feed: \(error)")
            }
        }
        self.fixtures = records
        self.fixtureBytes = fixtures
        self.drift = drift
        self.formats = formats.mapValues { Body(epoch: 0, bytes: $0, etag: Self.etag($0)) }
        self.nwsStationPages = nwsStationPages.map { Body(epoch: 0, bytes: $0, etag: Self.etag($0)) }
        self.nwsObservations = formats[.nws].map { NWSFeed.observationsByStation($0).mapValues { Body(epoch: 0, bytes: $0, etag: Self.etag($0)) } } ?? [:]
    }

    /// Loads `today.json` and `tomorrow.json` from `directory`, and each other format's fixture
    /// (`formatFiles`) that is there.
    public convenience init(directory: String, drift: SampleFeedDrift?) throws(SampleFeedError) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var files: [Day: [UInt8]] = [:]
        for day in Day.allCases {
            files[day] = try Self.read(base + day.rawValue + ".json")
        }
        var formats: [FeedFormat: [UInt8]] = [:]
        for (format, file) in Self.formatFiles {
            if case .body(let bytes, _) = FeedClient.readFile(base + file, validators: ConditionalValidators(), limit: 64 << 20) {
                formats[format] = bytes
            }
        }
        var pages: [[UInt8]] = []
        for file in Self.nwsStationFiles {
            guard case .body(let bytes, _) = FeedClient.readFile(base + file, validators: ConditionalValidators(), limit: 64 << 20) else { break }
            pages.append(bytes)
        }
        try self.init(fixtures: files, drift: drift, formats: formats, nwsStationPages: pages)
    }

    private static func read(_ path: String) throws(SampleFeedError) -> [UInt8] {
        switch FeedClient.readFile(path, validators: ConditionalValidators(), limit: 64 << 20) {
        case .body(let bytes, _): return bytes
        case .failed(let reason): throw SampleFeedError("\(reason) (set the fixtures directory with --fixtures DIR)")
        case .notModified, .parsed, .throttled: throw SampleFeedError("could not read \(path)")
        }
    }

    /// The records served for `day` at `epoch`.
    public func records(_ day: Day, epoch: Int) -> [OnXRecord] {
        let base = fixtures[day] ?? []
        guard let drift else { return base }
        return drift.records(base, day: day, epoch: epoch)
    }

    /// The body served for `day` at `epoch`: the fixture file's own bytes at epoch 0 or with drift
    /// off, otherwise the drifted records rendered.
    public func body(_ day: Day, epoch: Int) -> Body {
        let epoch = drift == nil ? 0 : epoch
        if let cached = cache.withLock({ $0[day] }), cached.epoch == epoch { return cached }
        let bytes = epoch == 0 ? (fixtureBytes[day] ?? []) : OnXRecord.render(records(day, epoch: epoch))
        let body = Body(epoch: epoch, bytes: bytes, etag: Self.etag(bytes))
        cache.withLock { $0[day] = body }
        return body
    }

    static func etag(_ bytes: [UInt8]) -> String {
        var hash = FNV1a()
        for byte in bytes { hash.add(byte: byte) }
        return "\"" + hash.hex + "\""
    }
}
