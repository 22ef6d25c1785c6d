/// Unix seconds as UTC text for callouts and reports: `14:05 UTC`, or `2026-11-23 14:05 UTC`.
/// UTC because a station line carries no time zone (Dark Sky's `timezone` is not kept).
enum UTCTime {
    static func text(_ seconds: Double, withDate: Bool) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "" }
        let whole = Int(seconds.rounded(.down))
        var days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let inDay = whole - days * 86_400
        let clock = two(inDay / 3600) + ":" + two(inDay % 3600 / 60) + " UTC"
        guard withDate else { return clock }
        var year = 1970
        while true {
            let length = isLeap(year) ? 366 : 365
            if days >= 0 && days < length { break }
            if days < 0 { year -= 1; days += isLeap(year) ? 366 : 365 } else { days -= length; year += 1 }
        }
        var month = 1
        while true {
            let length = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            if days < length { break }
            days -= length
            month += 1
        }
        return String(year) + "-" + two(month) + "-" + two(days + 1) + " " + clock
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
    private static func two(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
}
