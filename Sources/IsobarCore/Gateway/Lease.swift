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
    /// The same count and digest per client partition holding any client (ascending), so each
    /// filter shard checks the partitions it owns (``Shard``); nil from a gateway that does not
    /// send them (then only an unsharded filter can check its lease).
    public var partitions: [Part]?

    /// One partition's share of a lease.
    public struct Part: Sendable, Equatable {
        public var partition: Int
        public var clients: Int
        public var digest: LeaseDigest

        public init(partition: Int, clients: Int, digest: LeaseDigest) {
            self.partition = partition
            self.clients = clients
            self.digest = digest
        }
    }

    public init(gateway: String, clients: Int, digest: String, partitions: [Part]? = nil) {
        self.gateway = gateway
        self.clients = clients
        self.digest = digest
        self.partitions = partitions
    }

    /// The count and digest over the partitions `shard` owns: all of them for the whole layout;
    /// nil when a sharded filter cannot tell (no `partitions`).
    public func share(of shard: Shard) -> (clients: Int, digest: LeaseDigest)? {
        if shard.isWhole {
            let total = clients
            return LeaseDigest(hex: digest).map { (total, $0) }
        }
        guard let partitions else { return nil }
        var count = 0
        var combined = LeaseDigest()
        for part in partitions where shard.owns(partition: part.partition) {
            count += part.clients
            combined.toggle(part.digest.value)
        }
        return (count, combined)
    }

    public init(from object: JSONObject) throws(MessageError) {
        gateway = try object.requireName("gateway")
        guard let clients = try object.optionalInt("clients"), clients >= 0 else {
            throw MessageError("lease needs \"clients\", a non-negative integer")
        }
        self.clients = clients
        digest = try object.requireString("digest")
        guard LeaseDigest(hex: digest) != nil else { throw MessageError("digest \"\(digest.prefix(40))\" is not 16 hex digits") }
        guard let field = object.field("partitions") else { return }
        guard field.kind == .array else { throw MessageError("lease \"partitions\" must be an array") }
        var parts: [Part] = []
        var failure: MessageError?
        object.forEachElement(field) { element, _ in
            guard failure == nil else { return }
            do throws(MessageError) {
                guard let element else { throw MessageError("each of a lease's \"partitions\" is an object") }
                guard let partition = try element.optionalInt("partition"), (0..<ClientPartition.count).contains(partition) else {
                    throw MessageError("a lease partition needs \"partition\", an integer 0 to \(ClientPartition.count - 1)")
                }
                guard let clients = try element.optionalInt("clients"), clients >= 0 else {
                    throw MessageError("a lease partition needs \"clients\", a non-negative integer")
                }
                let text = try element.requireString("digest")
                guard let digest = LeaseDigest(hex: text) else { throw MessageError("digest \"\(text.prefix(40))\" is not 16 hex digits") }
                parts.append(Part(partition: partition, clients: clients, digest: digest))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        partitions = parts
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("lease")
        writer.key("gateway"); writer.string(gateway)
        writer.key("clients"); writer.int(clients)
        writer.key("digest"); writer.string(digest)
        if let partitions {
            writer.key("partitions")
            writer.arrayStart()
            for part in partitions {
                writer.objectStart()
                writer.key("partition"); writer.int(part.partition)
                writer.key("clients"); writer.int(part.clients)
                writer.key("digest"); writer.string(part.digest.hex)
                writer.objectEnd()
            }
            writer.arrayEnd()
        }
        writer.objectEnd()
        writer.newline()
    }
}
