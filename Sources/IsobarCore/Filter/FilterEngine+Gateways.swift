/// Gateways: clients kept alive by one lease per gateway instead of per-client heartbeats, and
/// lost answers or viewports found by comparing digests (PROTOCOL.md, "Gateways").
extension FilterEngine {
    /// Answers a gateway's lease with a tally; asks for a resend of its clients' viewports when the
    /// two views differ and nothing has been in flight for `tallyGrace`.
    func lease(_ lease: Lease, now: Double, into out: inout JSONWriter) {
        var tally = gateways[lease.gateway] ?? GatewayTally()
        tally.lastLease = now
        // A sharded filter checks only its partitions' share; without one it cannot check.
        let same = lease.share(of: options.shard).map { $0.clients == tally.clients && $0.digest == tally.digest } ?? true
        let quiet = now - max(tally.lastSentAt, tally.lastViewportAt) >= options.tallyGrace
        let resend = !same && quiet && now - tally.lastResendAsk >= options.resendInterval
        if resend { tally.lastResendAsk = now }
        gateways[lease.gateway] = tally
        Tally(gateway: lease.gateway, clients: tally.clients, digest: tally.digest.hex, resend: resend,
              today: snapshot(for: .today)?.id, tomorrow: snapshot(for: .tomorrow)?.id, shard: options.shard,
              acceptance: acceptance.report).write(to: &out)
    }

    /// Refuses a viewport for a name another gateway hosts (PROTOCOL.md, "Client names across
    /// gateways"): while that gateway still leases, the name is its client's, so a second gateway's
    /// client cannot take over its set (each would flip the other's map, and receive its answers).
    /// A holder whose gateway stopped leasing for `claimGrace` (crashed, restarted under a new
    /// name) gives the name up; a refused claim that is still wanted comes back through its
    /// gateway's lease (a digest that differs asks for its viewports again).
    func checkClaim(_ viewport: Viewport, now: Double) throws(MessageError) {
        guard let holder = clients[viewport.client]?.gateway, viewport.gateway != holder,
              let tally = gateways[holder], now - max(tally.lastLease, tally.lastViewportAt) < options.claimGrace else { return }
        claimsRefused += 1
        throw MessageError("client name \"\(viewport.client)\" is in use on another gateway; connect with another name")
    }

    /// Forgets a client whose connection closed (unless another gateway hosts it by now).
    func leave(_ leave: Leave) {
        guard let client = clients[leave.client] else { return }
        if let gateway = leave.gateway, client.gateway != gateway { return }
        remove(client)
    }

    /// Moves a client to `gateway` (or none) with viewport number `ref`, keeping both tallies right.
    func attach(_ client: ClientState, to gateway: String?, ref: Int) {
        if let old = client.gateway {
            gateways[old]?.clients -= 1
            gateways[old]?.digest.toggle(client.tallyEntry)
        }
        client.gateway = gateway
        client.ref = ref
        client.tallyEntry = 0
        clientsWithoutGateway[client.viewport.client] = gateway == nil ? client : nil
        guard let gateway else { return }
        let entry = LeaseDigest.entry(client: client.viewport.client, ref: ref, version: client.version)
        gateways[gateway, default: GatewayTally()].clients += 1
        gateways[gateway, default: GatewayTally()].digest.toggle(entry)
        client.tallyEntry = entry
    }

    /// Sets the version the client was last sent (or reported), keeping its gateway's digest right.
    func setVersion(_ client: ClientState, _ version: Int) {
        client.version = version
        guard let gateway = client.gateway else { return }
        let entry = LeaseDigest.entry(client: client.viewport.client, ref: client.ref, version: version)
        gateways[gateway]?.digest.replace(client.tallyEntry, with: entry)
        gateways[gateway]?.lastSentAt = clock
        client.tallyEntry = entry
    }

    /// Forgets a client.
    func remove(_ client: ClientState) {
        attach(client, to: nil, ref: 0)
        clients[client.viewport.client] = nil
        clientsWithoutGateway[client.viewport.client] = nil
        forgetFavorites(of: client.viewport.client)
    }
}
