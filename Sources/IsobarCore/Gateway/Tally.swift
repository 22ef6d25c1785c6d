/// `{"type":"tally","gateway":"gw-1","clients":3,"digest":"…","resend":false,"today":"today-…","tomorrow":null,"shard":"0/1"}`:
/// the filter's answer to each ``Lease`` (topic `tally`).
///
/// `clients`/`digest` are the filter's own view of that gateway's clients; `resend: true` asks the
/// gateway to publish every client's current viewport again (with `version` and `ref`), because
/// the two views differ while nothing is in flight. `today`/`tomorrow` name the snapshots the
/// filter holds (null: none yet), which is how a gateway knows the pipeline can answer (healthz);
/// `acceptance` what the filter's snapshot rule refused or holds back (``AcceptanceReport``; absent
/// from filters older than it), which the gateway reports as degraded health and metrics.
public struct Tally: Sendable, Equatable {
    public var gateway: String
    public var clients: Int
    public var digest: String
    public var resend: Bool
    public var today: String?
    public var tomorrow: String?
    /// The filter shard that answers (``Shard``; `0/1` when not sharded): a resend it asks for
    /// concerns only the clients in the partitions it owns.
    public var shard: Shard
    public var acceptance: AcceptanceReport?

    public init(gateway: String, clients: Int, digest: String, resend: Bool, today: String?, tomorrow: String?,
                shard: Shard = .whole, acceptance: AcceptanceReport? = nil) {
        self.gateway = gateway
        self.clients = clients
        self.digest = digest
        self.resend = resend
        self.today = today
        self.tomorrow = tomorrow
        self.shard = shard
        self.acceptance = acceptance
    }

    public init(from object: JSONObject) throws(MessageError) {
        gateway = try object.requireName("gateway")
        clients = try object.optionalInt("clients") ?? 0
        digest = try object.optionalString("digest") ?? ""
        resend = try object.optionalBool("resend") ?? false
        today = try object.optionalString("today")
        tomorrow = try object.optionalString("tomorrow")
        if let text = try object.optionalString("shard") {
            guard let shard = Shard(parsing: text) else { throw MessageError("tally \"shard\" must be k/N with 0 <= k < N <= 64, not \"\(text.prefix(20))\"") }
            self.shard = shard
        } else {
            shard = .whole
        }
        if let field = object.field("acceptance"), field.kind != .null {
            guard let report = object.object(field) else { throw MessageError("field \"acceptance\" must be an object, found \(field.kind)") }
            acceptance = try AcceptanceReport(from: report)
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("tally")
        writer.key("gateway"); writer.string(gateway)
        writer.key("clients"); writer.int(clients)
        writer.key("digest"); writer.string(digest)
        writer.key("resend"); writer.bool(resend)
        writer.key("today"); writer.string(today)
        writer.key("tomorrow"); writer.string(tomorrow)
        writer.key("shard"); writer.string(shard.description)
        if let acceptance {
            writer.key("acceptance"); acceptance.write(to: &writer)
        }
        writer.objectEnd()
        writer.newline()
    }
}
