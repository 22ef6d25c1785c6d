import Foundation
import IsobarCore
import IsobarHost
@testable import IsobarTestSupport

/// A map client for end-to-end tests: sends client-contract messages over the real bus and keeps
/// the annotation set that applying every received message in order produces.
final class TestClient: @unchecked Sendable {
    // @unchecked: mutable state only under `condition`.
    let name: String
    private let bus: IsobarHost.BusClient
    private let condition = NSCondition()
    /// The set and its version rules (IsobarCore's `AnnotationFollower`, every client's).
    private var follower = AnnotationFollower()
    private var set: AnnotationSet { follower.set }
    private var foreign = 0
    private var messages = 0
    private var callouts: [[String: Any]] = []

    init(_ name: String, endpoints: BrokerEndpoints) throws {
        self.name = name
        // Subscribes to the whole annotations prefix so messages for other clients would be seen.
        bus = try IsobarHost.BusClient(endpoints: endpoints, topics: ["annotations/", "callout/\(name)"])
        bus.start { [weak self] topic, payload in self?.receive(topic, payload) }
    }

    deinit { bus.close() }

    private func receive(_ topic: String, _ payload: [UInt8]) {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        if topic == "callout/\(name)" {
            if let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] { callouts.append(object) }
            return
        }
        guard topic == "annotations/\(name)" else { foreign += 1; return }
        messages += 1
        // Every gap asks (not only a break's first, as heartbeating clients do): this client sends
        // no heartbeat that would report the broken set.
        if let object = try? JSONObject(storage: payload), case .gap = (try? follower.apply(object)) ?? .applied {
            bus.publish(#"{"type":"resync","client":"\#(name)","reason":"gap"}"#)
        }
    }

    func viewport(_ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double, day: String = "today", field: String = "temperature", limit: Int = 500) {
        bus.publish(#"{"type":"viewport","client":"\#(name)","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)},"day":"\#(day)","field":"\#(field)","limit":\#(limit)}"#)
    }

    func select(_ id: String) {
        bus.publish(#"{"type":"select","client":"\#(name)","id":"\#(id)"}"#)
    }

    var state: (items: [String: AnnotationSet.Item], set: AnnotationSet, foreign: Int, messages: Int, callouts: [[String: Any]]) {
        condition.lock()
        defer { condition.unlock() }
        return (set.items, set, foreign, messages, callouts)
    }

    /// Waits until `predicate` holds for the client's state; returns whether it did in time.
    @discardableResult
    func wait(timeout: Double, resend: (() -> Void)? = nil, _ predicate: (AnnotationSet) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var nextResend = Date().addingTimeInterval(0.5)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(set) {
            if Date() >= deadline { return false }
            if let resend, Date() >= nextResend {
                condition.unlock()
                resend()
                condition.lock()
                nextResend = Date().addingTimeInterval(0.5)
            }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
        return true
    }
}
