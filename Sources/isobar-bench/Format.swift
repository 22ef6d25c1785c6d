import Foundation

/// Number formatting for tables: thousands separators, fixed decimals.
enum Format {
    static func number(_ value: Double, _ digits: Int = 0) -> String {
        guard value.isFinite else { return "-" }
        let fixed = String(format: "%.\(digits)f", value)
        let parts = fixed.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        let negative = whole.hasPrefix("-")
        if negative { whole.removeFirst() }
        var grouped = ""
        for (i, ch) in whole.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { grouped.append(",") }
            grouped.append(ch)
        }
        let result = (negative ? "-" : "") + String(grouped.reversed())
        return parts.count > 1 ? result + "." + parts[1] : result
    }

    static func int(_ value: Int) -> String { number(Double(value)) }

    /// Milliseconds with two decimals from seconds.
    static func ms(_ seconds: Double) -> String { number(seconds * 1000, 2) }
}
