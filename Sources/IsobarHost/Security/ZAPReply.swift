import IsobarBus

/// The answer to one ZAP 1.0 authentication request (RFC 27), and the decision behind it.
///
/// libzmq sends the handler, for every CURVE handshake on a socket with a ZAP domain, the frames
/// `version ("1.0"), request id, domain, address, routing id, mechanism, credentials...`, where a CURVE
/// request has one credential: the client's 32-byte public key. The reply is `version, request id,
/// status code, status text, user id, metadata`; status 200 admits the client, 400 refuses it, 500
/// reports a malformed request (refused too).
struct ZAPReply: Equatable, Sendable {
    /// Echoed from the request so libzmq can match the reply.
    let requestID: [UInt8]
    /// "200", "400" or "500".
    let statusCode: String
    /// Human-readable reason (libzmq passes it on in handshake-failure events).
    let statusText: String
    /// For an admitted client: its public key (Z85), which libzmq attaches to its messages as User-Id.
    let userID: String
    /// The client's public key (Z85), when the request carried a valid one; for logs.
    let clientKey: String?
    /// The client's address as libzmq reported it, for logs.
    let address: String

    /// Whether the client is admitted.
    var allowed: Bool { statusCode == "200" }

    /// The reply frames, as sent on the REP socket.
    var frames: [[UInt8]] {
        [Array("1.0".utf8), requestID, Array(statusCode.utf8), Array(statusText.utf8), Array(userID.utf8), []]
    }

    /// Decides `request` (the frames the REP socket received) against `allowlist`.
    static func answering(_ request: [[UInt8]], allowlist: CurveAllowlist) -> ZAPReply {
        let requestID = request.count > 1 ? request[1] : []
        let address = request.count > 3 ? String(decoding: request[3], as: UTF8.self) : ""
        func reply(_ code: String, _ text: String, key: String? = nil) -> ZAPReply {
            ZAPReply(requestID: requestID, statusCode: code, statusText: text,
                     userID: code == "200" ? (key ?? "") : "", clientKey: key, address: address)
        }
        guard request.count >= 6, request[0] == Array("1.0".utf8) else {
            return reply("500", "malformed ZAP request")
        }
        let mechanism = String(decoding: request[5], as: UTF8.self)
        guard mechanism == "CURVE" else {
            return reply("400", "mechanism \(mechanism) not accepted: CURVE required")
        }
        guard request.count == 7, let key = ZMQCurve.encode(key: request[6]) else {
            return reply("500", "CURVE request without a 32-byte client key")
        }
        guard allowlist.allows(key) else {
            return reply("400", "client key not in the allowlist", key: key)
        }
        return reply("200", "OK", key: key)
    }
}
