import Foundation
import IsobarBus
import IsobarCore
import Testing
@testable import IsobarBusClient
@testable import IsobarHost

/// A started `BusClient` takes the subscription changes its XPUB hears when the socket says they
/// are there (its descriptor, on the receive thread), not after some number of publishes: a
/// client that publishes nothing still learns that a narrower subscriber appeared and left.
@Suite(.serialized) struct BusClientSubscriptionDrainTests {
    @Test func aClientThatPublishesNothingStillTakesTheChanges() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let client = try BusClient(endpoints: BrokerEndpoints(frontend: broker.frontend, backend: broker.backend), topics: ["tally"])
        defer { client.close() }
        client.start { _, _ in }
        let group = Array("annotations/".utf8)
        #expect(client.subscriptionGroups.allows(group))

        let context = try ZMQContext()
        let narrower = try ZMQSocket(context, .sub)
        try narrower.subscribe("annotations/alice")
        try narrower.connect(broker.backend)
        #expect(AttachHeldInputTests.eventually(10) { !client.subscriptionGroups.allows(group) })

        narrower.close()
        #expect(AttachHeldInputTests.eventually(10) { client.subscriptionGroups.allows(group) })
        #expect(client.subscriptionGroups == SubscriptionGroups())
    }
}
