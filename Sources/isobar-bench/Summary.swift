/// Median, minimum and maximum of one measurement repeated over several runs.
///
/// Benchmarks report all three so noise on a shared machine is visible rather than hidden
/// behind a single number.
struct Summary {
    let median: Double
    let min: Double
    let max: Double
    let count: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        min = sorted.first ?? .nan
        max = sorted.last ?? .nan
        median = Summary.percentile(sorted: sorted, 50)
    }

    /// The `p`th percentile (0...100) of already sorted values, by the nearest-rank method.
    static func percentile(sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
    }

    /// "median (min–max)" with `digits` decimals.
    func text(_ digits: Int = 0, scale: Double = 1) -> String {
        "\(Format.number(median * scale, digits)) (\(Format.number(min * scale, digits))–\(Format.number(max * scale, digits)))"
    }
}
