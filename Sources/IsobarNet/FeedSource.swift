import Foundation

/// Where one feed comes from: an http(s) URL fetched with AsyncHTTPClient, or a local file.
///
/// Files make the fetcher usable offline and in pipes (`isobar fetch --once --today Fixtures/today.json`).
/// Any other scheme (ftp:, unix:, ...) is refused up front rather than handed to the HTTP client.
public enum FeedSource: Sendable, Equatable, CustomStringConvertible {
    case http(String)
    case file(String)

    public init(_ text: String) throws(FetchOptionsError) {
        guard !text.isEmpty else { throw FetchOptionsError("a feed source must not be empty: give an http(s) URL or a file path") }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
              Self.isScheme(text[..<colon]) else {
            self = .file(text)
            return
        }
        switch text[..<colon].lowercased() {
        case "http", "https":
            guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
                throw FetchOptionsError("\"\(text)\" is not a valid http(s) URL")
            }
            self = .http(text)
        case "file":
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                throw FetchOptionsError("\"\(text)\" is not a valid file:// URL; use file:///absolute/path or a plain path")
            }
            self = .file(url.path)
        default:
            throw FetchOptionsError("unsupported scheme in \"\(text)\": use http://, https://, file:// or a plain file path")
        }
    }

    /// The source as given (a URL or a path), for status messages and logs.
    public var description: String {
        switch self {
        case .http(let url): url
        case .file(let path): path
        }
    }

    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
