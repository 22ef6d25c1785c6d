/// Which vectors a run takes: `--only` globs on `SECTION/NAME` (a stage that implements part of
/// the contract) and whether `disputed` vectors run.
public struct ConformanceSelection: Sendable, Equatable {
    /// Globs: `*` matches any run of characters (`/` included), `?` one character.
    public var only: [String]
    public var includeDisputed: Bool

    public init(only: [String] = [], includeDisputed: Bool = false) {
        self.only = only
        self.includeDisputed = includeDisputed
    }

    /// Whether `name` (`SECTION/NAME`) is selected by the globs (every name when there are none).
    public func matches(_ name: String) -> Bool {
        only.isEmpty || only.contains { Self.glob(Array($0), Array(name)) }
    }

    static func glob(_ pattern: [Character], _ text: [Character]) -> Bool {
        // Iterative wildcard matching with one backtrack point for the last `*`.
        var p = 0, t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let s = star {
                p = s + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
