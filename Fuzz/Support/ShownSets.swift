/// What each client holds, rebuilt from a stage's output the way a client applies it: a message
/// with `full: true` replaces the client's set, any other applies `remove` then `upsert`. Items
/// are kept by id with the number of stations each stands for (1, or a cluster's `count`).
struct ShownSets {
    private(set) var sets: [String: [String: Int]] = [:]
    /// The type of message this tracks: `visible` (filter) or `annotations` (format).
    let type: String
    /// Whether a malformed message or a repeated id breaks an invariant (the stage's own output)
    /// or is skipped (fuzzed input, which may hold anything).
    let strict: Bool

    init(type: String, strict: Bool = true) {
        self.type = type
        self.strict = strict
    }

    /// Applies one output object (as Foundation read it) if it is of this type; returns its
    /// client and whether it was full, or nil for other messages.
    @discardableResult
    mutating func apply(_ object: [String: Any]) -> (client: String, full: Bool)? {
        guard object["type"] as? String == type else { return nil }
        // The stages always write all four; a reader takes a missing `full` as false and a
        // missing `remove` as empty (as the formatter does).
        guard let client = object["client"] as? String, let upsert = object["upsert"] as? [[String: Any]],
              let full = object["full"] as? Bool ?? (strict ? nil : false),
              let remove = object["remove"] as? [String] ?? (strict ? nil : []) else {
            if strict { Invariant.fail("\(type) message without client, full, upsert or remove") }
            return nil
        }
        var set = full ? [:] : sets[client] ?? [:]
        for id in remove {
            if strict { Invariant.require(!full, "\(type) for \(client): a full message removes \(id)") }
            set[id] = nil
        }
        for item in upsert {
            guard let id = item["id"] as? String else {
                if strict { Invariant.fail("\(type) for \(client): an item without id") }
                continue
            }
            let count = item["cluster"] as? Bool == true ? item["count"] as? Int ?? 0 : 1
            if strict {
                Invariant.require(count >= 1, "\(type) for \(client): item \(id) stands for \(count) stations")
                if full { Invariant.require(set[id] == nil, "\(type) for \(client): \(id) twice in a full message") }
            }
            set[id] = count
        }
        sets[client] = set
        return (client, full)
    }
}
