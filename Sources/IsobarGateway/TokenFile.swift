import Foundation

/// Parses `--token-file`: one `TOKEN NAME` per line (blank lines and `#` comments skipped). The
/// name becomes the client name of a connection that presents the token, so it must be a valid
/// ``ClientName``.
public enum TokenFile {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public static func load(path: String) throws(Failure) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read token file \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), source: path)
    }

    public static func parse(_ text: String, source: String = "token file") throws(Failure) -> [String: String] {
        var tokens: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2, ClientName.isValid(String(parts[1])) else {
                throw Failure(description: "\(source) line \(number + 1): expected `TOKEN NAME` with NAME of 1-64 [A-Za-z0-9._-]")
            }
            guard tokens[String(parts[0])] == nil else {
                throw Failure(description: "\(source) line \(number + 1): the token is listed twice")
            }
            tokens[String(parts[0])] = String(parts[1])
        }
        guard !tokens.isEmpty else { throw Failure(description: "\(source) has no tokens") }
        return tokens
    }
}
