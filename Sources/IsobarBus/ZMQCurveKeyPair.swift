/// A CurveZMQ long-term keypair, both halves as 40-character Z85 text.
///
/// The public key identifies a peer and may be shared freely (the broker's allowlist holds clients'
/// public keys; clients hold the broker's). The secret key never leaves its host. `description` leaves
/// the secret out, so logging a keypair by accident does not leak it.
public struct ZMQCurveKeyPair: Sendable, Equatable, CustomStringConvertible {
    /// The public half (Z85).
    public let publicKey: String
    /// The secret half (Z85).
    public let secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    public var description: String { "CURVE keypair (public \(publicKey))" }
}
