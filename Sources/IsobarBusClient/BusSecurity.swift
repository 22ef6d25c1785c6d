import Foundation
import IsobarBus

/// The CURVE client settings of every process that connects to the broker (plug, attach, any bus
/// client), read from the environment so every command supports an authenticated, encrypted bus
/// without flags of its own:
///
/// - `ISOBAR_CURVE_SERVERKEY`: the broker's public key (Z85, or the path of its `.pub` file);
/// - `ISOBAR_CURVE_SECRETKEY`: this client's secret key (Z85, or the path of its `.key` file);
/// - `ISOBAR_CURVE_PUBLICKEY` (optional): this client's public key; derived from the secret key when
///   unset, and checked against it when set.
///
/// None set: the plain bus (no CURVE), as on a single host. Some but not all: an error, never a silent
/// fall-back to plain text.
public struct BusSecurity: Sendable, Equatable {
    /// The broker's public key (Z85): the client refuses to talk to a server without its secret key.
    public var serverKey: String
    /// This client's keypair; the broker admits it only if `keyPair.publicKey` is in its allowlist.
    public var keyPair: ZMQCurveKeyPair

    public static let serverKeyVariable = "ISOBAR_CURVE_SERVERKEY"
    public static let publicKeyVariable = "ISOBAR_CURVE_PUBLICKEY"
    public static let secretKeyVariable = "ISOBAR_CURVE_SECRETKEY"

    public init(serverKey: String, keyPair: ZMQCurveKeyPair) {
        self.serverKey = serverKey
        self.keyPair = keyPair
    }

    /// The settings in `environment` (by default the process's), or nil when no CURVE variable is set.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BusSecurityError) -> BusSecurity? {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        let server = value(serverKeyVariable)
        let secret = value(secretKeyVariable)
        let publicKey = value(publicKeyVariable)
        if server == nil && secret == nil && publicKey == nil { return nil }
        guard let server, let secret else {
            let missing = [(serverKeyVariable, server), (secretKeyVariable, secret)].filter { $0.1 == nil }.map(\.0)
            throw .incompleteClientKeys(missing: missing)
        }
        guard ZMQCurve.isAvailable else { throw .curveUnavailable }
        let serverKey = try CurveKeyFile.resolve(server, source: serverKeyVariable)
        let secretKey = try CurveKeyFile.resolve(secret, source: secretKeyVariable)
        let derived: String
        do {
            derived = try ZMQCurve.publicKey(forSecretKey: secretKey)
        } catch {
            throw .invalidKey(source: secretKeyVariable, reason: "\(error)")
        }
        if let publicKey, try CurveKeyFile.resolve(publicKey, source: publicKeyVariable) != derived {
            throw .keyMismatch(publicSource: publicKeyVariable, secretSource: secretKeyVariable)
        }
        return BusSecurity(serverKey: serverKey, keyPair: ZMQCurveKeyPair(publicKey: derived, secretKey: secretKey))
    }

    /// Socket options that make a connecting socket a CURVE client of the broker. Add them to
    /// `ZMQSocketOption.defaults` at creation: libzmq applies them only to connections made afterwards.
    public var clientOptions: [ZMQSocketOption] {
        [
            .curveServerKey(Array(serverKey.utf8)),
            .curvePublicKey(Array(keyPair.publicKey.utf8)),
            .curveSecretKey(Array(keyPair.secretKey.utf8)),
        ]
    }

    /// `ZMQSocketOption.defaults`, plus the CURVE client options when the environment configures CURVE:
    /// the options for every socket that connects to the broker. A configuration error becomes an
    /// `EINVAL` `ZMQError` whose operation carries the explanation, for APIs that throw only `ZMQError`.
    public static func connectingSocketOptions(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ZMQError) -> [ZMQSocketOption] {
        do {
            return ZMQSocketOption.defaults + (try fromEnvironment(environment)?.clientOptions ?? [])
        } catch {
            throw error.asZMQError
        }
    }
}

extension BusSecurityError {
    /// This error as a `ZMQError` (EINVAL) whose description still says what is wrong.
    public var asZMQError: ZMQError {
        ZMQError(operation: "CURVE client setup (\(description))", errno: EINVAL)
    }
}
