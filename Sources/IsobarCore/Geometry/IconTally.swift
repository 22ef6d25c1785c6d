/// How many stations of a set report each icon of the vocabulary: what a cluster's `icon` is taken
/// from (PROTOCOL.md "Formatting rules, exactly": the most common icon among the members that
/// report one, a tie going to the icon listed first in the vocabulary; none when no member reports
/// one). Summed like the values, so a whole grid cell joins a cluster in one `add`.
struct IconTally: Sendable {
    /// Members that report an icon (0: the 12 counts are all 0 and are not read).
    var total: Int32 = 0
    var counts = InlineArray<12, Int32>(repeating: 0)

    @inline(__always)
    mutating func add(_ icon: WeatherIcon) {
        counts[icon.ordinal] += 1
        total += 1
    }

    @inline(__always)
    mutating func add(_ other: IconTally) {
        guard other.total > 0 else { return }  // most feeds report no icon: one comparison
        total += other.total
        for i in 0..<12 { counts[i] += other.counts[i] }
    }

    /// The most common icon, ties to the earlier in the vocabulary; nil when none was reported.
    var mostCommon: WeatherIcon? {
        guard total > 0 else { return nil }
        var best = 0
        for i in 1..<12 where counts[i] > counts[best] { best = i }
        return WeatherIcon.allCases[best]
    }
}
