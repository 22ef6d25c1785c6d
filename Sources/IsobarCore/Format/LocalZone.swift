import Foundation

/// The time zone a station's or place's times are shown in (PROTOCOL.md, "Local time"): an IANA
/// zone (`Asia/Seoul`, with its daylight-saving rules from the system's tz database), a fixed
/// offset when a feed gives only that (`UTC+09:00`), or `UTC` when nothing is known.
public struct LocalZone: Sendable, Equatable {
    /// The name written beside every time: the IANA name, `UTC+HH:MM` / `UTC-HH:MM`, or `UTC`.
    public let name: String
    private let rules: TimeZone?
    private let fixedOffset: Int

    public static let utc = LocalZone(name: "UTC", rules: nil, fixedOffset: 0)

    private init(name: String, rules: TimeZone?, fixedOffset: Int) {
        self.name = name
        self.rules = rules
        self.fixedOffset = fixedOffset
    }

    /// The IANA zone `identifier`, or nil when the system's tz database does not know it.
    /// (`UTC` and `Etc/UTC` are zones too.)
    public init?(identifier: String) {
        guard StationDetails.isZoneName(identifier), let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(name: identifier, rules: zone, fixedOffset: 0)
    }

    /// A fixed offset from UTC in whole seconds (nil beyond ±18 hours); 0 is `UTC`.
    public init?(offsetSeconds: Int) {
        guard abs(offsetSeconds) <= Int(StationDetails.maxUTCOffset) else { return nil }
        if offsetSeconds == 0 {
            self = .utc
        } else {
            self.init(name: "UTC" + CivilTime.offsetText(offsetSeconds), rules: nil, fixedOffset: offsetSeconds)
        }
    }

    /// Seconds ahead of UTC at the moment `unix` (daylight saving included).
    public func offset(at unix: Double) -> Int {
        guard let rules else { return fixedOffset }
        guard unix.isFinite, abs(unix) < 1e12 else { return 0 }
        return rules.secondsFromGMT(for: Date(timeIntervalSince1970: unix.rounded(.down)))
    }

    /// The moment `unix` on this zone's clock, with the offset used; nil for a time no clock shows.
    func civil(_ unix: Double) -> (time: CivilTime, offset: Int)? {
        let offset = offset(at: unix)
        return CivilTime(unix: unix, offset: offset).map { ($0, offset) }
    }

    /// ISO 8601 local time with its offset (`2026-11-23T07:03:00+01:00`), or nil.
    public func iso(_ unix: Double) -> String? {
        civil(unix).map { $0.time.iso(offset: $0.offset) }
    }

    public static func == (a: LocalZone, b: LocalZone) -> Bool { a.name == b.name }
}
