/// What the filter knows of one gateway: how many of its clients it holds, their `LeaseDigest`
/// as this filter computes it, and when the gateway last spoke.
struct GatewayTally {
    var clients = 0
    var digest = LeaseDigest()
    var lastLease = -Double.infinity
    /// Last time a viewport came from, or an answer went to, one of its clients.
    var lastViewportAt = -Double.infinity
    var lastSentAt = -Double.infinity
    var lastResendAsk = -Double.infinity
}
