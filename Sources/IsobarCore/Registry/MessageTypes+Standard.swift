/// Isobar's message types: the one table (PROTOCOL.md, "Who consumes what" is generated from it
/// by `MessageTypesDocTests`). Adding a message type is one row here, its struct in
/// Messages/ and its handler in the stage that consumes it; routing, shards, the gateway and the
/// subscriptions follow. Rows are in subscription order (a stage subscribes in this order).
extension MessageTypes {
    public static let standard = MessageTypes([
        // Snapshots: stations and their end marker, from the fetcher and persist's replays.
        MessageType("station", writers: [.fetch, .persist], consumers: [.persist, .filter], topic: .plain),
        MessageType("snapshot", writers: [.fetch, .persist], consumers: [.persist, .filter], topic: .plain),
        // What a client sends toward the filter.
        MessageType("viewport", writers: [.app, .attach, .gateway], consumers: [.filter], topic: .perPartition, clientSends: true),
        MessageType("select", writers: [.app, .attach], consumers: [.filter], topic: .perPartition, clientSends: true),
        // Without client: replay your snapshots (to fetch and persist) or re-announce (to clients);
        // with one: that client's full set.
        MessageType("resync", writers: [.app, .attach, .gateway, .filter], consumers: [.fetch, .persist, .filter, .gateway, .attach],
                    topic: .optionalClient, clientSends: true),
        MessageType("lease", writers: [.gateway], consumers: [.filter], topic: .plain),
        MessageType("leave", writers: [.gateway], consumers: [.filter], topic: .perPartition),
        MessageType("nearest", writers: [.app, .attach], consumers: [.filter], topic: .perPartition, clientSends: true),
        MessageType("search", writers: [.app, .attach], consumers: [.filter], topic: .perPartition, clientSends: true),
        MessageType("favorite", writers: [.app, .attach, .places], consumers: [.filter], topic: .perPartition, clientSends: true),
        MessageType("detail", writers: [.app, .attach], consumers: [.filter], topic: .perPartition, clientSends: true),
        MessageType("spot", writers: [.places], consumers: [.filter], topic: .perPartition),
        // A cell's forecast, from the forecast stage (answering the filter's `outlook`).
        MessageType("forecast", writers: [.forecast], consumers: [.filter], topic: .plain),
        // What a client sends toward the places stage.
        MessageType("geocode", writers: [.app, .attach], consumers: [.places], topic: .perClient, clientSends: true),
        MessageType("reverse", writers: [.app, .attach], consumers: [.places], topic: .perClient, clientSends: true),
        MessageType("weather", writers: [.app, .attach], consumers: [.places], topic: .perClient, clientSends: true),
        MessageType("bookmark", writers: [.app, .attach], consumers: [.places], topic: .perClient, clientSends: true),
        // The filter's request for a cell's forecast, to the forecast stage.
        MessageType("outlook", writers: [.filter], consumers: [.forecast], topic: .plain),
        // The filter's answers, for the formatter.
        MessageType("visible", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("selection", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("closest", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("matches", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("pinned", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("particulars", writers: [.filter], consumers: [.format], topic: .perClient),
        MessageType("ambient", writers: [.filter], consumers: [.format], topic: .perClient),
        // The client contract's answers.
        MessageType("annotations", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("callout", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("place", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("results", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("starred", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("report", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("locations", writers: [.places], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("vicinity", writers: [.places], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        MessageType("conditions", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true),
        // Relayed to the client it names; one without a client is the operator's (logs).
        MessageType("error", writers: [.fetch, .persist, .filter, .format, .places, .gateway], consumers: [.gateway, .attach],
                    topic: .optionalClient, clientReceives: true),
        // A feed's health, to every client.
        MessageType("status", writers: [.fetch, .filter], consumers: [.gateway, .attach], topic: .plain, clientReceives: true),
        MessageType("warning", writers: [.fetch], consumers: [], topic: .plain),
        // The filter's answer to a gateway's lease.
        MessageType("tally", writers: [.filter], consumers: [.gateway], topic: .plain),
    ])
}
