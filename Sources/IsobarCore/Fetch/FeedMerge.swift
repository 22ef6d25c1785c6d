/// Several sources' stations joined into one day's snapshot (`fetch` polling more than one source).
///
/// Ids of different sources could collide (an onX `K1D3` and an OpenWeather city id are unrelated
/// namespaces), so with more than one source every id is prefixed with its source's label: the
/// format's name, numbered when a format appears more than once (`darksky:43.4033,-98.8295`,
/// `onx-1:K1D3`, `onx-2:K1D3`). The labels depend only on the sources' formats and order, so ids
/// are stable across polls. Warnings carry the prefixed id; errors say which source they are from.
public enum FeedMerge {
    /// Each source's id prefix, in order.
    public static func labels(_ formats: [FeedFormat]) -> [String] {
        var seen: [FeedFormat: Int] = [:]
        for format in formats { seen[format, default: 0] += 1 }
        var used: [FeedFormat: Int] = [:]
        return formats.map { format in
            guard (seen[format] ?? 0) > 1 else { return format.rawValue }
            used[format, default: 0] += 1
            return format.rawValue + "-" + String(used[format] ?? 0)
        }
    }

    /// The sources' stations in source order, ids prefixed with their labels.
    public static func merge(_ parts: [(label: String, feed: ParsedFeed)]) -> ParsedFeed {
        var merged = ParsedFeed()
        for (label, feed) in parts {
            for var station in feed.stations {
                station.id = label + ":" + station.id
                merged.stations.append(station)
            }
            merged.warnings += feed.warnings.map { WarningMessage(stage: $0.stage, id: label + ":" + $0.id, message: $0.message) }
            merged.errors += feed.errors.map { ErrorMessage(stage: $0.stage, message: label + ": " + $0.message, excerpt: $0.excerpt, code: $0.code) }
        }
        return merged
    }
}
