#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarBus

/// Reading and writing CURVE key files.
///
/// Format: one 40-character Z85 key per line; blank lines and lines starting with `#` are ignored,
/// surrounding whitespace (and a CR) is trimmed. `isobar keygen` writes `NAME.key` (the secret key, mode
/// 0600) and `NAME.pub` (the public key), each holding just the key, so `$(cat NAME.pub)` is the key too.
public enum CurveKeyFile {
    /// A key file is tiny; anything bigger than this is not one (and is not read whole).
    static let maxFileSize = 1 << 20

    /// Every key in the file at `path`, in order. Fails on an unreadable file or an invalid line.
    public static func keys(inFile path: String) throws(BusSecurityError) -> [String] {
        let text = try read(path)
        var keys: [String] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard ZMQCurve.isValidKey(line) else {
                throw .invalidKey(source: "\(path):\(index + 1)", reason: "not a Z85 key (\(line.count) characters)")
            }
            keys.append(line)
        }
        return keys
    }

    /// The first key in the file at `path` (a `.key` or `.pub` file holds exactly one).
    public static func key(inFile path: String) throws(BusSecurityError) -> String {
        guard let key = try keys(inFile: path).first else {
            throw .invalidKey(source: path, reason: "the file holds no key")
        }
        return key
    }

    /// A key given either as Z85 text or as the path of a key file (an existing file wins, so a key can
    /// never be mistaken for a path by accident). `source` names where `value` came from, for errors.
    public static func resolve(_ value: String, source: String) throws(BusSecurityError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: trimmed, isDirectory: &isDirectory), !isDirectory.boolValue {
            return try key(inFile: trimmed)
        }
        if ZMQCurve.isValidKey(trimmed) { return trimmed }
        if trimmed.contains("/") {
            throw .invalidKey(source: source, reason: "no such file: \(trimmed)")
        }
        throw .invalidKey(source: source, reason: "neither a Z85 key nor an existing file")
    }

    /// Writes `pair` as `DIRECTORY/NAME.key` (secret, created with mode 0600, so it is never readable by
    /// others, not even for a moment) and `DIRECTORY/NAME.pub` (public, 0644), creating `directory` if
    /// needed. Refuses to replace existing files unless `overwrite`.
    public static func write(
        _ pair: ZMQCurveKeyPair, directory: String, name: String, overwrite: Bool = false
    ) throws(BusSecurityError) -> (secretPath: String, publicPath: String) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { throw .invalidKeyName(name) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotWriteKeyFile(path: directory, reason: "cannot create the directory: \(error.localizedDescription)")
        }
        let base = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        let secretPath = base + ".key"
        let publicPath = base + ".pub"
        if !overwrite {
            for path in [secretPath, publicPath] where FileManager.default.fileExists(atPath: path) {
                throw .cannotWriteKeyFile(path: path, reason: "it already exists (pass --force to replace it)")
            }
        }
        try writeFile(secretPath, contents: pair.secretKey + "\n", mode: 0o600, overwrite: overwrite)
        try writeFile(publicPath, contents: pair.publicKey + "\n", mode: 0o644, overwrite: overwrite)
        return (secretPath, publicPath)
    }

    private static func writeFile(_ path: String, contents: String, mode: mode_t, overwrite: Bool) throws(BusSecurityError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL)
        let fd = open(path, flags, mode)
        guard fd >= 0 else { throw .cannotWriteKeyFile(path: path, reason: String(cString: strerror(errno))) }
        defer { _ = close(fd) }
        // An existing file keeps its old mode through O_TRUNC: set it explicitly.
        guard fchmod(fd, mode) == 0 else { throw .cannotWriteKeyFile(path: path, reason: String(cString: strerror(errno))) }
        do {
            try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: Array(contents.utf8))
        } catch {
            throw .cannotWriteKeyFile(path: path, reason: error.localizedDescription)
        }
    }

    private static func read(_ path: String) throws(BusSecurityError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadableKeyFile(path: path, reason: "no such file")
        }
        if isDirectory.boolValue { throw .unreadableKeyFile(path: path, reason: "it is a directory") }
        let data: Data?
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxFileSize + 1)
        } catch {
            throw .unreadableKeyFile(path: path, reason: error.localizedDescription)
        }
        let bytes = data ?? Data()
        if bytes.count > maxFileSize { throw .unreadableKeyFile(path: path, reason: "larger than \(maxFileSize) bytes: not a key file") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
