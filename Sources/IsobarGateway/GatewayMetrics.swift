import CoreMetrics
import Foundation
import IsobarCore
import Prometheus

/// The gateway's Prometheus metrics (served at `GET /metrics`), made through swift-metrics with a
/// ``PrometheusMetricsFactory`` over this gateway's own registry, so two gateways in one process
/// (tests) never share counters.
public final class GatewayMetrics: Sendable {
    /// Reasons counted by `isobar_gateway_errors_total{reason=...}`.
    public enum Reason: String, Sendable, CaseIterable {
        case badFrame = "bad_frame"
        case tooLarge = "too_large"
        case binary
        case rate
        case rateClose = "rate_close"
        case slowReader = "slow_reader"
        /// A ping or pong from the peer over the rate: dropped unanswered.
        case controlRate = "control_rate"
        /// HTTP: a request head or request not complete in time (408, or an idle connection closed).
        case requestTimeout = "request_timeout"
        /// HTTP: a request head over the limit (431).
        case headerTooLarge = "header_too_large"
        /// HTTP: a request the parser refused (400).
        case badRequest = "bad_request"
        /// A connection over `--max-connections` (503 before anything is read).
        case full
    }

    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory
    /// WebSocket clients.
    let connections: Meter
    /// Open TCP connections of any kind (HTTP requests under way, WebSockets, refusals lingering):
    /// what `--max-connections` bounds.
    let openConnections: Meter
    let framesIn: CoreMetrics.Counter
    let framesOut: CoreMetrics.Counter
    let updateLatency: CoreMetrics.Timer
    let dataAge: CoreMetrics.Gauge
    /// Pongs not sent because a newer ping replaced the waiting answer (a peer that pings and
    /// does not read).
    let pongsCoalesced: CoreMetrics.Counter
    private let errors: [Reason: CoreMetrics.Counter]
    /// `isobar_gateway_snapshots_total{outcome=...}`: what the filter's snapshot rule did, from its
    /// tallies (`refused_future`, `held_shrunk`, `held_empty`, `confirmed`).
    private let snapshotOutcomes: [CoreMetrics.Counter]
    /// `isobar_gateway_snapshots_held`: snapshots the filter holds back now (0 to 2, one per day).
    private let snapshotsHeld: CoreMetrics.Gauge

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["isobar_gateway_update_latency_seconds"] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        self.factory = factory
        connections = Meter(label: "isobar_gateway_connections", factory: factory)
        openConnections = Meter(label: "isobar_gateway_open_connections", factory: factory)
        framesIn = CoreMetrics.Counter(label: "isobar_gateway_frames_in_total", factory: factory)
        framesOut = CoreMetrics.Counter(label: "isobar_gateway_frames_out_total", factory: factory)
        updateLatency = CoreMetrics.Timer(label: "isobar_gateway_update_latency_seconds", factory: factory)
        dataAge = CoreMetrics.Gauge(label: "isobar_gateway_data_age_seconds", factory: factory)
        pongsCoalesced = CoreMetrics.Counter(label: "isobar_gateway_pongs_coalesced_total", factory: factory)
        var errors: [Reason: CoreMetrics.Counter] = [:]
        for reason in Reason.allCases {
            errors[reason] = CoreMetrics.Counter(label: "isobar_gateway_errors_total", dimensions: [("reason", reason.rawValue)], factory: factory)
        }
        self.errors = errors
        snapshotOutcomes = ["refused_future", "held_shrunk", "held_empty", "confirmed"].map {
            CoreMetrics.Counter(label: "isobar_gateway_snapshots_total", dimensions: [("outcome", $0)], factory: factory)
        }
        snapshotsHeld = CoreMetrics.Gauge(label: "isobar_gateway_snapshots_held", factory: factory)
    }

    /// Adds what the filter's snapshot rule did since its previous tally.
    func snapshots(_ growth: AcceptanceWatch.Growth, held: Int) {
        for (counter, count) in zip(snapshotOutcomes, [growth.refusedFuture, growth.heldShrunk, growth.heldEmpty, growth.confirmed]) where count > 0 {
            counter.increment(by: count)
        }
        snapshotsHeld.record(held)
    }

    func error(_ reason: Reason) { errors[reason]?.increment() }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
