/// `{"type":"lease","gateway":"gw-1","clients":3,"digest":"…"}`: a gateway's once-per-interval
/// word to the filter (topic `lease`).
///
/// It keeps every client the gateway hosts known to the filter without per-client traffic, and
/// lets the filter notice an answer or viewport lost on the way (a broker, filter or formatter
/// restarting): `clients` and `digest` summarise what the gateway holds (``LeaseDigest``); the
/// filter computes the same over what it sent, and when they differ while nothing is in flight it
/// asks the gateway to resend its clients' viewports (``Tally`` with `resend`).
public struct Lease: Sendable, Equatable {
    /// The gateway's name (unique per running gateway).
    public var gateway: String
    /// How many clients the gateway hosts.
    public var clients: Int
    /// ``LeaseDigest`` over those clients, 16 lowercase hex digits.
    public var digest: String

    public init(gateway: String, clients: Int, digest: String) {
        self.gateway = gateway
        self.clients = clients
        self.digest = digest
    }

    public init(from object: JSONObject) throws(MessageError) {
        gateway = try object.requireName("gateway")
        guard let clients = try object.optionalInt("clients"), clients >= 0 else {
            throw MessageError("lease needs \"clients\", a non-negative integer")
        }
        self.clients = clients
        digest = try object.requireString("digest")
        guard LeaseDigest(hex: digest) != nil else { throw MessageError("digest \"\(digest.prefix(40))\" is not 16 hex digits") }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("lease")
        writer.key("gateway"); writer.string(gateway)
        writer.key("clients"); writer.int(clients)
        writer.key("digest"); writer.string(digest)
        writer.objectEnd()
        writer.newline()
    }
}
