/// Why CURVE keys could not be loaded, written or used. Each description names the variable, flag or
/// file involved and what to do about it.
public enum BusSecurityError: Error, CustomStringConvertible, Sendable, Equatable {
    /// libzmq was built without CURVE (libsodium).
    case curveUnavailable
    /// Some of the client's CURVE variables are set, but not all that are needed.
    case incompleteClientKeys(missing: [String])
    /// A key file (or allowlist file or directory) could not be read.
    case unreadableKeyFile(path: String, reason: String)
    /// Text that should be a 40-character Z85 key is not one. `source` names the variable or `file:line`.
    case invalidKey(source: String, reason: String)
    /// The configured public key is not the one that belongs to the configured secret key.
    case keyMismatch(publicSource: String, secretSource: String)
    /// The allowlist names no client key at all, so nobody could connect.
    case emptyAllowlist(path: String)
    /// `isobar keygen` could not write a key file.
    case cannotWriteKeyFile(path: String, reason: String)
    /// A key file base name that is empty or contains a `/`.
    case invalidKeyName(String)

    public var description: String {
        switch self {
        case .curveUnavailable:
            "CURVE is not available: this libzmq was built without libsodium (install Debian's libzmq5 / libzmq3-dev)"
        case .incompleteClientKeys(let missing):
            "CURVE client keys are only partly configured: \(missing.joined(separator: " and ")) "
                + "\(missing.count == 1 ? "is" : "are") not set; set \(BusSecurity.serverKeyVariable) and "
                + "\(BusSecurity.secretKeyVariable) (and optionally \(BusSecurity.publicKeyVariable)), or none of them"
        case .unreadableKeyFile(let path, let reason):
            "cannot read the key file \(path): \(reason)"
        case .invalidKey(let source, let reason):
            "\(source): \(reason); a key is 40 Z85 characters as written by `isobar keygen`, or the path of such a file"
        case .keyMismatch(let publicSource, let secretSource):
            "\(publicSource) is not the public key of \(secretSource); use the .pub and .key files of one `isobar keygen` run "
                + "(or leave \(BusSecurity.publicKeyVariable) unset: it is derived from the secret key)"
        case .emptyAllowlist(let path):
            "the CURVE allowlist \(path) holds no client public keys (one Z85 key per line, or a directory of *.pub files), "
                + "so no client could connect"
        case .cannotWriteKeyFile(let path, let reason):
            "cannot write the key file \(path): \(reason)"
        case .invalidKeyName(let name):
            "invalid key name \"\(name)\": use a plain file name without '/', such as the host's name"
        }
    }
}
