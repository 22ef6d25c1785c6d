/// A moment as a wall clock shows it: Unix seconds plus an offset from UTC, split into the
/// proleptic Gregorian date, the time of day and the weekday. Integer arithmetic only, so the
/// text is the same on every platform (`UTCTime` and `LocalZone` write from it).
struct CivilTime: Equatable {
    var year: Int, month: Int, day: Int
    var hour: Int, minute: Int, second: Int
    /// 0 Monday ... 6 Sunday (ISO 8601).
    var weekday: Int

    /// Whole seconds since 1970-01-01 00:00 on the wall clock (Unix seconds plus the offset),
    /// rounded down.
    init(wallSeconds: Int) {
        let days = wallSeconds >= 0 ? wallSeconds / 86_400 : (wallSeconds - 86_399) / 86_400
        let inDay = wallSeconds - days * 86_400
        hour = inDay / 3600
        minute = inDay % 3600 / 60
        second = inDay % 60
        weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (3)
        // Days to a date: eras of 400 years (146,097 days) from 0000-03-01.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Unix seconds shown `offset` seconds ahead of UTC; nil for a time no clock shows (not
    /// finite, or beyond ±1e12 s, ~31,700 years).
    init?(unix: Double, offset: Int) {
        guard unix.isFinite, abs(unix) < 1e12 else { return nil }
        self.init(wallSeconds: Int(unix.rounded(.down)) + offset)
    }

    /// `YYYY-MM-DD` (the year as a plain integer, as callouts always wrote it).
    var date: String { String(year) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2) }
    /// `HH:MM`.
    var clock: String { Self.padded(hour, 2) + ":" + Self.padded(minute, 2) }

    /// ISO 8601 with the offset: `2026-11-23T07:03:00+01:00` (`Z` never: the offset is always written).
    func iso(offset: Int) -> String {
        date + "T" + clock + ":" + Self.padded(second, 2) + Self.offsetText(offset)
    }

    /// `+01:00`, `-05:30`, `+00:00`.
    static func offsetText(_ offset: Int) -> String {
        let minutes = abs(offset) / 60
        return (offset < 0 ? "-" : "+") + padded(minutes / 60, 2) + ":" + padded(minutes % 60, 2)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
