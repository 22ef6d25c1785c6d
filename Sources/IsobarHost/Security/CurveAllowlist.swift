import Foundation
import IsobarBus

/// The client public keys the broker lets in when CURVE is on (checked by its ZAP handler).
///
/// Loaded from a file with one Z85 key per line (`#` comments and blank lines ignored), or from a
/// directory whose `*.pub` files (as `isobar keygen` writes them) each hold a client's key. Loaded once
/// at start: restart the broker after changing it. An empty allowlist is an error, not a broker that
/// silently refuses everyone.
public struct CurveAllowlist: Sendable, Equatable {
    /// The allowed keys, Z85.
    public let keys: Set<String>
    /// Where they came from, for logs.
    public let source: String

    /// An allowlist of `keys` (Z85). Fails on an invalid key or an empty list.
    public init(keys: [String], source: String = "(given keys)") throws(BusSecurityError) {
        for key in keys where !ZMQCurve.isValidKey(key) {
            throw .invalidKey(source: source, reason: "not a Z85 key: \(key)")
        }
        guard !keys.isEmpty else { throw .emptyAllowlist(path: source) }
        self.keys = Set(keys)
        self.source = source
    }

    /// Loads `path`: a key-per-line file, or a directory of `*.pub` files.
    public static func load(from path: String) throws(BusSecurityError) -> CurveAllowlist {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadableKeyFile(path: path, reason: "no such file or directory")
        }
        guard isDirectory.boolValue else {
            return try CurveAllowlist(keys: CurveKeyFile.keys(inFile: path), source: path)
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .unreadableKeyFile(path: path, reason: error.localizedDescription)
        }
        var keys: [String] = []
        for entry in entries.sorted() where entry.hasSuffix(".pub") {
            keys += try CurveKeyFile.keys(inFile: URL(fileURLWithPath: path).appendingPathComponent(entry).path)
        }
        return try CurveAllowlist(keys: keys, source: path)
    }

    /// Whether the Z85 key `z85` is allowed.
    public func allows(_ z85: String) -> Bool {
        keys.contains(z85)
    }
}
