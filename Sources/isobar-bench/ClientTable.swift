import IsobarCore
import Synchronization

/// The map clients one benchmark process plays, multiplexed over one `BusClient` subscribed to
/// `annotations/`: each client name has its own `AnnotationFollower` (its set and version rules), and the version it waits for.
///
/// `receive` runs on the bus client's receive thread: it applies the message as a real client
/// would, and when the awaited version has been applied it calls `onApplied` (still on that
/// thread) with the time, so latency ends when the update is applied, not when it arrived.
///
/// Each client has a slot (its entry's position, stable for the table's life, ``slot(_:)``): a
/// message costs one lookup, of its topic's bytes as received (`TopicSlots`; no `String` per
/// message), and `onApplied` hands over the slot, so a caller that keeps its clients by slot
/// (`ClientsLoop`) finds one without hashing its name.
final class ClientTable: @unchecked Sendable {
    // @unchecked: `onApplied` and `onDrained` are set before messages flow; the rest is in `state`.
    struct Entry {
        let name: String
        /// A probe client (`Pipeline.probe...`), whose snapshot id is recorded.
        let probe: Bool
        /// The client's set and version rules (`AnnotationFollower`, as every client holds it).
        var follower = AnnotationFollower()
        var set: AnnotationSet { follower.set }
        var messages = 0
        var awaited: Int?
        var lastSnapshot: String?

        init(name: String) {
            self.name = name
            probe = name.hasPrefix(Pipeline.probe)
        }
    }

    /// Every client's entry and the table's tallies, under one `Mutex`.
    private struct State {
        /// Each client's slot in `entries`, by the topic of its annotations (`annotations/NAME`).
        var slots = TopicSlots()
        var entries: [Entry] = []
        var gaps = 0
        var badMessages = 0
        var tallies = 0
        var resends = 0

        /// The slot of the client whose annotations come on `topic` (which begins with `prefix`),
        /// made on first use; its name is made then, once.
        mutating func slot(topic: UnsafeRawBufferPointer) -> Int {
            if let slot = slots.slot(topic) { return slot }
            let slot = slots.add(topic)
            entries.append(Entry(name: String(decoding: topic.dropFirst(ClientTable.prefix.utf8.count), as: UTF8.self)))
            return slot
        }

        /// The slot of `client`, made on first use.
        mutating func slot(client: String) -> Int {
            var topic = ClientTable.prefix + client
            return topic.withUTF8 { slot(topic: UnsafeRawBufferPointer($0)) }
        }

        /// The client's entry, if it has one.
        func entry(_ client: String) -> Entry? {
            var topic = ClientTable.prefix + client
            return topic.withUTF8 { slots.slot(UnsafeRawBufferPointer($0)) }.map { entries[$0] }
        }
    }

    private static let prefix = "annotations/"
    private static let tally = Array("tally".utf8)
    private let state = Mutex(State())
    var onApplied: (@Sendable (_ client: String, _ slot: Int, _ version: Int, _ count: Int, _ time: Double) -> Void)?
    /// Called on the receive thread when every waiting message has been received (see `BusClient.start`).
    var onDrained: (@Sendable () -> Void)?
    /// Version gaps seen by any client (a missed update).
    var gaps: Int { state.withLock { $0.gaps } }
    /// Messages no client could apply.
    var badMessages: Int { state.withLock { $0.badMessages } }

    /// The slot of `client`: its entry's position, made on first use and kept for the table's life.
    func slot(_ client: String) -> Int {
        state.withLock { $0.slot(client: client) }
    }

    /// Announces that `client` waits for `version`.
    func await(_ client: String, version: Int) {
        state.withLock { state in
            let slot = state.slot(client: client)
            state.entries[slot].awaited = version
        }
    }

    func messages(_ client: String) -> Int {
        state.withLock { $0.entry(client)?.messages ?? 0 }
    }

    /// What a client holds: messages received, the set's size and version.
    func held(_ client: String) -> (messages: Int, count: Int, version: Int) {
        state.withLock { state in
            guard let entry = state.entry(client) else { return (0, 0, 0) }
            return (entry.messages, entry.set.count, entry.set.version)
        }
    }

    func lastSnapshot(_ client: String) -> String? {
        state.withLock { $0.entry(client)?.lastSnapshot }
    }

    /// Applies one message to a client's entry; returns the outcome and, when the awaited version
    /// has been applied, that version and the set's size. Only the probe client records its
    /// snapshot id (a String per message for every client would be the benchmark's own cost).
    private static func update(_ entry: inout Entry, with line: UnsafeRawBufferPointer) -> (AnnotationFollower.Step?, (Int, Int)?) {
        let outcome = try? entry.follower.apply(bytes: line)
        entry.messages += 1
        if entry.probe, let object = try? JSONObject(storage: Array(line)), let field = object.field("snapshot") {
            entry.lastSnapshot = object.string(field)
        }
        var applied: (Int, Int)?
        if let awaited = entry.awaited, entry.set.version >= awaited {
            entry.awaited = nil
            applied = (entry.set.version, entry.set.count)
        }
        return (outcome, applied)
    }

    /// Tallies received (answers to this process's leases, when it plays a gateway), and how many
    /// of them asked for a resend (the filter's view of the leased clients differed).
    var tallies: Int { state.withLock { $0.tallies } }
    var resends: Int { state.withLock { $0.resends } }

    /// Takes one line as the bus client hands it over (`BusClient.startInPlace(onLine:)`: its topic and
    /// bytes valid during the call only).
    func receive(topic: UnsafeRawBufferPointer, line: UnsafeRawBufferPointer) {
        if topic.elementsEqual(Self.tally) {
            let resend = (try? JSONObject(storage: Array(line))).flatMap { try? Tally(from: $0) }?.resend ?? false
            state.withLock { state in
                state.tallies += 1
                if resend { state.resends += 1 }
            }
            Changes.shared.pulse()
            return
        }
        guard topic.starts(with: Self.prefix.utf8) else { return }
        let applied: (String, Int, Int, Int)? = state.withLock { state in
            // In place (one hash lookup, of the topic as received; no copy of the client's set or
            // of the line); as a client on the wire would, in one pass (`AnnotationFollower.apply(bytes:)`).
            let slot = state.slot(topic: topic)
            let (outcome, applied) = Self.update(&state.entries[slot], with: line)
            if case .gap = outcome { state.gaps += 1 }
            if outcome == nil { state.badMessages += 1 }
            return applied.map { (state.entries[slot].name, slot, $0.0, $0.1) }
        }
        if let (name, slot, version, count) = applied { onApplied?(name, slot, version, count, Clock.now()) }
        // `Changes` is pulsed once per drain (`Pipeline`'s `onDrained`), not per message.
    }
}
