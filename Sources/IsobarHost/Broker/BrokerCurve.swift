import IsobarBus

/// The broker's CURVE configuration: its own keypair (clients pin its public key) and the allowlist of
/// client public keys its ZAP handler admits. With it, both broker sockets are CURVE servers: every
/// connection is encrypted, and only listed clients can publish or subscribe.
public struct BrokerCurve: Sendable, Equatable {
    /// The broker's keypair; `keyPair.publicKey` is what clients put in `ISOBAR_CURVE_SERVERKEY`.
    public let keyPair: ZMQCurveKeyPair
    /// The client keys admitted.
    public let allowlist: CurveAllowlist

    /// The ZAP domain the broker's sockets authenticate in (logged by the handler).
    public static let zapDomain = "isobar"

    /// A configuration from the broker's secret key (Z85); the public key is derived from it.
    public init(secretKey: String, allowlist: CurveAllowlist) throws(BusSecurityError) {
        guard ZMQCurve.isAvailable else { throw .curveUnavailable }
        let publicKey: String
        do {
            publicKey = try ZMQCurve.publicKey(forSecretKey: secretKey)
        } catch {
            throw .invalidKey(source: "the broker's secret key", reason: "\(error)")
        }
        self.keyPair = ZMQCurveKeyPair(publicKey: publicKey, secretKey: secretKey)
        self.allowlist = allowlist
    }

    /// Loads `--curve-secret FILE` and `--curve-allow FILE_OR_DIRECTORY`.
    public static func load(secretKeyFile: String, allowlist: String) throws(BusSecurityError) -> BrokerCurve {
        try BrokerCurve(secretKey: CurveKeyFile.key(inFile: secretKeyFile), allowlist: CurveAllowlist.load(from: allowlist))
    }

    /// Options that make a binding socket a CURVE server whose peers are checked by the ZAP handler.
    /// Add them to `ZMQSocketOption.defaults` at creation, before binding.
    public var serverOptions: [ZMQSocketOption] {
        [
            .curveServer(true),
            .curveSecretKey(Array(keyPair.secretKey.utf8)),
            .zapDomain(Self.zapDomain),
        ]
    }
}
