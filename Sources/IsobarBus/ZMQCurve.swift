#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibZMQ

/// CurveZMQ key handling: generating keypairs, deriving a public key from a secret key, and converting
/// between the 40-character Z85 text that key files and environment variables hold and the 32 raw bytes
/// a ZAP request carries.
///
/// Keys are passed around as Z85 `String`s: `ZMQSocketOption.curveSecretKey(Array(key.utf8))` and the
/// other CURVE options accept that form directly.
public enum ZMQCurve {
    /// Characters in a Z85-encoded key.
    public static let z85KeyLength = 40
    /// Bytes in a raw key.
    public static let keyByteCount = 32

    /// Whether this libzmq was built with CURVE support (libsodium). Without it every CURVE call fails
    /// with `ENOTSUP`.
    public static var isAvailable: Bool { ZMQContext.has("curve") }

    /// A new random keypair (`zmq_curve_keypair`).
    public static func generateKeyPair() throws(ZMQError) -> ZMQCurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: z85KeyLength + 1)
        var secretKey = [CChar](repeating: 0, count: z85KeyLength + 1)
        if zmq_curve_keypair(&publicKey, &secretKey) != 0 { throw ZMQError.last("zmq_curve_keypair") }
        return ZMQCurveKeyPair(publicKey: text(publicKey), secretKey: text(secretKey))
    }

    /// The public key that belongs to `secretKey` (both Z85), via `zmq_curve_public`. Fails with
    /// `EINVAL` when `secretKey` is not a valid Z85 key.
    public static func publicKey(forSecretKey secretKey: String) throws(ZMQError) -> String {
        guard isValidKey(secretKey) else { throw ZMQError(operation: "zmq_curve_public", errno: EINVAL) }
        var publicKey = [CChar](repeating: 0, count: z85KeyLength + 1)
        if zmq_curve_public(&publicKey, secretKey) != 0 { throw ZMQError.last("zmq_curve_public") }
        return text(publicKey)
    }

    /// The 32 bytes of a Z85 key, or nil when `z85` is not exactly 40 valid Z85 characters.
    public static func decode(z85: String) -> [UInt8]? {
        let characters = Array(z85.utf8)
        // A NUL would end the C string early and decode a shorter key.
        guard characters.count == z85KeyLength, !characters.contains(0) else { return nil }
        var key = [UInt8](repeating: 0, count: keyByteCount)
        guard zmq_z85_decode(&key, z85) != nil else { return nil }
        return key
    }

    /// The Z85 text of a 32-byte key, or nil when `key` is not 32 bytes.
    public static func encode(key: [UInt8]) -> String? {
        guard key.count == keyByteCount else { return nil }
        var z85 = [CChar](repeating: 0, count: z85KeyLength + 1)
        guard zmq_z85_encode(&z85, key, key.count) != nil else { return nil }
        return text(z85)
    }

    /// Whether `z85` is a well-formed Z85 key (40 characters that decode to 32 bytes).
    public static func isValidKey(_ z85: String) -> Bool {
        decode(z85: z85) != nil
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
