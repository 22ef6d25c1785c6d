#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files the gateway serves and how: path checks and content types.
///
/// A request path is joined to a root only when every segment is a plain name: no empty, `.`,
/// `..` or hidden segment, no backslash or NUL, and only `[A-Za-z0-9._-]` characters, so a URL can
/// never name a file outside the directory (`/web/../../etc/passwd`, `%2e%2e`, `/web//etc`); only a
/// regular file reached without a symbolic link is served (``regularFile(root:relative:)``).
public enum StaticFiles {
    /// The file under `root` that `relative` (the part of the URL after the route's prefix, still
    /// percent-encoded) names, or nil when it is not a safe relative path.
    public static func resolve(root: String, relative: String) -> String? {
        guard !relative.isEmpty, relative.utf8.count <= 512 else { return nil }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard let first = segment.utf8.first, first != UInt8(ascii: ".") else { return nil }
            let plain = segment.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
            guard plain else { return nil }
        }
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        return base + "/" + relative
    }

    /// The regular file under `root` that `relative` names (``resolve(root:relative:)``), or nil
    /// when it is missing, is not a regular file (a directory, a device, a socket), or when it or
    /// any directory between it and `root` is a symbolic link: a link placed in the web root must
    /// never serve `/etc/passwd`, nor a linked directory `/etc/shadow`. Each step is checked with
    /// `lstat`, which looks at the link itself. `root` itself may be a link (the operator chose it).
    public static func regularFile(root: String, relative: String) -> String? {
        guard let path = resolve(root: root, relative: relative) else { return nil }
        var current = root.hasSuffix("/") ? String(root.dropLast()) : root
        let segments = relative.split(separator: "/")
        for (index, segment) in segments.enumerated() {
            current += "/" + segment
            var info = stat()
            guard lstat(current, &info) == 0 else { return nil }
            let wanted = index == segments.count - 1 ? S_IFREG : S_IFDIR
            guard info.st_mode & S_IFMT == wanted else { return nil }
        }
        return path
    }

    /// Whether `path` (an operator's choice, links followed) is a regular file: a directory there
    /// is answered 404, not served as a file.
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The Content-Type for a file name.
    public static func contentType(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "geojson": return "application/geo+json"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "ico": return "image/x-icon"
        case "txt", "md": return "text/plain; charset=utf-8"
        case "map": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
