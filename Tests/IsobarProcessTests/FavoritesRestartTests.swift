import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Favorites through a restart of the whole pipeline (`isobar up`, real SQLite in the data
/// directory): the list comes back on joining, in the order added, with live values, an id no
/// feed knows kept as unknown.
@Suite(.serialized, .processSlot) struct FavoritesRestartTests {
    /// A bus client that keeps the `starred` lists it receives.
    final class Fan: @unchecked Sendable {
        // @unchecked: `lists` only under `condition`.
        let name: String
        let bus: IsobarHost.BusClient
        private let condition = NSCondition()
        private var lists: [[String: Any]] = []

        init(_ name: String, endpoints: BrokerEndpoints) throws {
            self.name = name
            bus = try IsobarHost.BusClient(endpoints: endpoints, topics: ["starred/\(name)"])
            bus.start { [weak self] topic, payload in
                guard let self, topic == "starred/\(self.name)",
                      let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return }
                self.condition.lock()
                self.lists.append(object)
                self.condition.broadcast()
                self.condition.unlock()
            }
        }

        deinit { bus.close() }

        func send(_ line: String) { _ = bus.publish(line) }

        /// Waits for a list that satisfies `predicate`, calling `resend` every half second.
        func wait(timeout: Double, resend: () -> Void, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                resend()
                condition.lock()
                _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.5)))
                let hit = lists.last(where: predicate)
                condition.unlock()
                if let hit { return hit }
            }
            return nil
        }
    }

    static func ids(_ list: [String: Any]) -> [String] {
        (list["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    static func todayTitle(_ list: [String: Any], _ id: String) -> String? {
        let item = (list["items"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id }
        return (item?["today"] as? [String: Any])?["title"] as? String
    }

    @Test func favoritesComeBackAfterARestartOfUpInOrderWithLiveValues() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-favorites-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let viewport = #"{"type":"viewport","client":"dora","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20}}"#
        let wanted = ["K1S5", "K1D3", "GONE"]
        do {
            let first = try await EndToEndTests.Pipeline.start(dataDirectory: data)
            let dora = try Fan("dora", endpoints: first.endpoints)
            for (n, id) in wanted.enumerated() {
                let added = dora.wait(timeout: 30, resend: {
                    dora.send(viewport)
                    dora.send(#"{"type":"favorite","client":"dora","id":"\#(id)","on":true}"#)
                }) { Self.ids($0) == Array(wanted.prefix(n + 1)) }
                try #require(added != nil, "no list with \(wanted.prefix(n + 1))")
            }
            await first.stop()
        }
        let second = try await EndToEndTests.Pipeline.start(dataDirectory: data)
        let dora = try Fan("dora", endpoints: second.endpoints)
        // A join (the first viewport this filter sees) brings the stored list; the values follow
        // the snapshot (an `updated` list if the join came first).
        let list = try #require(dora.wait(timeout: 30, resend: { dora.send(viewport) }) { list in
            Self.ids(list) == wanted && !(Self.todayTitle(list, "K1D3") ?? "").isEmpty
        })
        #expect(list["count"] as? Int == 3)
        #expect(Self.todayTitle(list, "K1D3") == "46°")
        let gone = (list["items"] as? [[String: Any]])?.last
        #expect(gone?["known"] as? Bool == false)
        #expect(gone?["today"] is NSNull)
        await second.stop()
    }
}
