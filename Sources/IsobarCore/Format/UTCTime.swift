/// Unix seconds as UTC text for callouts and reports: `14:05 UTC`, or `2026-11-23 14:05 UTC` (a
/// line's `value`, kept in UTC as it always was; its local time comes beside it as data, see
/// `LocalZone`).
enum UTCTime {
    static func text(_ seconds: Double, withDate: Bool) -> String {
        guard let time = CivilTime(unix: seconds, offset: 0) else { return "" }
        return withDate ? time.date + " " + time.clock + " UTC" : time.clock + " UTC"
    }
}
