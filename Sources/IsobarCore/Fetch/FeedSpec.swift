/// One source as given on the command line: a URL or path, optionally prefixed by its format and
/// a `+` (`darksky+https://proxy.example/forecast.json`, `airvisual+feeds/av.json`), so one
/// `fetch` can poll sources of different formats. Without a prefix the source has `fetch
/// --format`'s format. (`+` is legal in a URL scheme, but no real scheme is a format's name.)
public struct FeedSpec: Sendable, Equatable {
    public var format: FeedFormat?
    public var location: String

    public init(format: FeedFormat?, location: String) {
        self.format = format
        self.location = location
    }

    public init(parsing text: String) {
        for format in FeedFormat.allCases where text.hasPrefix(format.rawValue + "+") {
            self.format = format
            location = String(text.dropFirst(format.rawValue.count + 1))
            return
        }
        format = nil
        location = text
    }
}
