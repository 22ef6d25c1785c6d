/// A client's view of its annotations, kept by applying every `annotations` message in order as
/// the client contract says. Detects gaps in `version` so the client can ask for a resync instead
/// of silently diverging.
public struct AnnotationSet: Sendable {
    public struct Item: Sendable, Equatable {
        public var id: String
        public var coordinate: Coordinate
        public var title: String
        public var count: Int
        /// The station's data is older than the filter's `--stale-after` (drawn dimmed).
        public var stale: Bool = false
        /// The station's name, or "12 stations" for a cluster (kept only by a set made with
        /// `keepsDetail`, as the app's client library makes it; else "").
        public var subtitle: String = ""
        /// A cluster (`"cluster":true`) rather than a station (`keepsDetail` only).
        public var cluster: Bool = false
        /// The wind glyph's rotation, clockwise degrees from north of where the wind blows to
        /// (`keepsDetail` only; nil when not the wind field or the direction is unknown).
        public var rotation: Double?
    }

    public enum Outcome: Sendable, Equatable {
        case applied
        /// A message was missed (expected `expected`, got `got`); the set is unreliable until a full one arrives.
        case gap(expected: Int, got: Int)
        /// A stale or duplicate message (version not newer); ignored.
        case stale
    }

    /// The items by id (see `AnnotationTable`).
    private var table = AnnotationTable()
    /// The short titles made last (see `TitleCache`), for the items the one-pass reader adds.
    private var titles = TitleCache()
    /// The items, keyed by id: a dictionary made on each call (for display and tests; `count`,
    /// `values` and `item(_:)` read the set in place).
    public var items: [String: Item] { Dictionary(table.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }) }
    /// The items, in no particular order.
    public var values: [Item] { table.items }
    public var count: Int { table.count }
    public func item(_ id: String) -> Item? { table.item(id) }
    public private(set) var version = 0
    public private(set) var day: Day = .today
    public private(set) var field: Field = .temperature
    public private(set) var source: String?
    public private(set) var fetchedAt: Double?
    /// True after a gap until the next full message.
    public private(set) var broken = false

    /// Whether items keep `subtitle`, `cluster` and `rotation` too (what a map annotation shows
    /// beyond its title). Off, the set keeps what the terminal map and the benchmark's thousands
    /// of clients need; on, what `IsobarClient` hands an app (both read a line in one pass).
    public let keepsDetail: Bool

    public init(keepsDetail: Bool = false) {
        self.keepsDetail = keepsDetail
    }

    /// Applies a typed message (what `isobar attach` and tests hold).
    public mutating func apply(_ message: Annotations) -> Outcome {
        if let outcome = accept(version: message.version, full: message.full) { return outcome }
        day = message.day
        field = message.presentation.field
        source = message.snapshot.source
        fetchedAt = message.snapshot.fetchedAt
        for id in message.remove { table.remove(id) }
        for item in message.upsert {
            var kept = Item(id: item.id, coordinate: item.coordinate, title: item.title, count: item.count ?? 1, stale: item.stale)
            if keepsDetail {
                kept.subtitle = item.subtitle
                kept.cluster = item.count != nil
                kept.rotation = item.wind?.rotation
            }
            table.upsert(kept)
        }
        return .applied
    }

    /// Applies a message as received, reading only what the set keeps (the benchmark's thousands
    /// of clients apply every update this way; the result equals ``apply(_:)-(Annotations)``'s).
    public mutating func apply(_ message: JSONObject) throws(MessageError) -> Outcome {
        try apply(message, upserts: nil)
    }

    /// Applies a message as received on the wire, in one pass when it can: each `upsert` item is
    /// read where the line's parse reaches it (`AnnotationItemScan`). A line that pass does not
    /// take whole (anything the formatter does not write, or would fail) takes the general reader
    /// instead, so the outcome, the set and the error are always those of
    /// ``apply(_:)-(JSONObject)`` on the parsed line. Throws for a line that is not a JSON object.
    public mutating func apply(storage: [UInt8]) throws(MessageError) -> Outcome {
        if let outcome = storage.withUnsafeBytes({ applyInOnePass($0) }) { return outcome }
        return try applyGenerally(storage)
    }

    /// ``apply(storage:)`` on a line where it lies (read during the call only): no copy of a line
    /// the one pass takes whole (nearly all; the others are copied for the general reader).
    public mutating func apply(bytes line: UnsafeRawBufferPointer) throws(MessageError) -> Outcome {
        if let outcome = applyInOnePass(line) { return outcome }
        return try applyGenerally(Array(line))
    }

    /// The whole line in one pass (`AnnotationMessageScan`); nil when that pass does not take it
    /// (nothing applied then).
    private mutating func applyInOnePass(_ line: UnsafeRawBufferPointer) -> Outcome? {
        // Both arrays grow as the scan reads their elements: the items from the room the scan
        // reserves when it reaches `upsert` (see `AnnotationMessageScan.read`), `removes` by
        // doubling (it holds the `remove` array's strings only).
        var upserts: [ScannedItem] = []
        var removes: [ScannedItem.Text] = []
        guard let read = AnnotationMessageScan.read(line, keepsDetail: keepsDetail, upserts: &upserts, removes: &removes) else { return nil }
        return apply(read, upserts: upserts, removes: removes, in: line)
    }

    /// The member-by-member reader, for a line the one pass did not take.
    private mutating func applyGenerally(_ storage: [UInt8]) throws(MessageError) -> Outcome {
        var upserts: [ScannedItem] = []
        let detail = keepsDetail
        var scanned = false
        if let message = try? JSONObject(storage: storage, reading: "upsert", with: { scanner in
            scanned = true
            return scanner.readElements(into: &upserts) { AnnotationItemScan.item(&$0, keepsDetail: detail) }
        }) {
            return try apply(message, upserts: scanned ? upserts : nil)
        }
        let message: JSONObject
        do {
            message = try JSONObject(storage: storage)
        } catch {
            throw MessageError("not a JSON object: \(error)")
        }
        return try apply(message)
    }

    /// The general reader; `upserts`, when given, are the message's `upsert` items already read
    /// (and known good) by the one-pass reader.
    private mutating func apply(_ message: JSONObject, upserts: [ScannedItem]?) throws(MessageError) -> Outcome {
        guard let version = try message.optionalInt("version") else { throw MessageError("missing required field \"version\"") }
        if let outcome = accept(version: version, full: try message.optionalBool("full") ?? false) { return outcome }
        // What nearly every message repeats is kept without making a String to compare.
        if !Self.holds(message, "day", day.rawValue) { day = try message.optionalEnum("day", Day.self) ?? day }
        if !Self.holds(message, "field", field.rawValue) { field = try message.optionalEnum("field", Field.self) ?? field }
        if !Self.holds(message, "source", source) { source = try message.optionalString("source") }
        fetchedAt = try message.optionalNumber("fetchedAt")
        if let remove = message.field("remove"), remove.kind == .array { self.remove(remove.valueRange, in: message.storage) }
        if let upserts {
            message.storage.withUnsafeBytes { keep(upserts, in: $0) }
        } else if let upsert = message.field("upsert") {
            try message.forEachElement(upsert) { (element, _) throws(MessageError) in
                guard let item = element else { return }
                let id = try item.requireName("id")
                let coordinate = try Coordinate(from: item.requireObject("coordinate"))
                var kept = Item(id: id, coordinate: coordinate, title: try item.optionalString("title") ?? "",
                                count: try item.optionalInt("count") ?? 1, stale: try item.optionalBool("stale") ?? false)
                if keepsDetail {
                    kept.subtitle = try item.optionalString("subtitle") ?? ""
                    kept.cluster = try item.optionalBool("cluster") ?? false
                    if let wind = item.field("wind"), let windObject = item.object(wind) {
                        kept.rotation = try windObject.optionalNumber("rotation")
                    }
                }
                table.upsert(kept)
            }
        }
        return .applied
    }

    /// Applies a line read whole by `AnnotationMessageScan` (`upserts`: its items; `removes`: the
    /// string elements of its `remove` array, in order), as the general reader would apply it.
    private mutating func apply(_ message: AnnotationMessageScan.Message, upserts: [ScannedItem], removes: [ScannedItem.Text],
                                in line: UnsafeRawBufferPointer) -> Outcome {
        if let outcome = accept(version: message.version, full: message.full) { return outcome }
        if let read = message.day { day = read }
        if let read = message.field { field = read }
        if let range = message.source {
            // What nearly every message repeats is kept without making a String to compare.
            let same = source.map { Self.equal($0, UnsafeRawBufferPointer(rebasing: line[range])) } ?? false
            if !same { source = JSONDecoding.unescape(line, range) }
        } else {
            source = nil
        }
        fetchedAt = message.fetchedAt
        for id in removes { removeID(id.range, escaped: id.escaped, in: line) }
        keep(upserts, in: line)
        return .applied
    }

    /// Upserts the items the one-pass reader read from `line`. An id without escapes is looked
    /// up by its bytes in the line: an item held keeps its id (no new `String`), a new one gets it.
    /// A short title is taken from the titles made before when they hold it (`TitleCache`).
    private mutating func keep(_ upserts: [ScannedItem], in line: UnsafeRawBufferPointer) {
        for scanned in upserts {
            if scanned.id.escaped {
                table.upsert(scanned.item(in: line))
            } else {
                let title = titles.title(scanned.title, in: line)
                table.upsert(id: UnsafeRawBufferPointer(rebasing: line[scanned.id.range]),
                             update: { scanned.fill(&$0, in: line, title: title) }, make: { scanned.item(id: $0, title: title, in: line) })
            }
        }
    }

    /// Whether `text`'s UTF-8 is exactly `bytes`.
    private static func equal(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var text = text
        return text.withUTF8 { held in
            guard held.count == bytes.count else { return false }
            guard let heldBase = held.baseAddress, let base = bytes.baseAddress else { return true }
            return memcmp(heldBase, base, held.count) == 0
        }
    }

    /// Removes the ids of the `remove` array at `range` of `storage` (a validated array; elements
    /// that are not strings are ignored), each read where it lies.
    private mutating func remove(_ range: Range<Int>, in storage: [UInt8]) {
        storage.withUnsafeBytes { storage in
            JSONDecoding.forEachArrayElement(storage, range) { range, kind in
                guard kind == .string else { return }
                let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
                removeID(inner, escaped: UnsafeRawBufferPointer(rebasing: storage[inner]).contains(UInt8(ascii: "\\")), in: storage)
            }
        }
    }

    /// Removes the id whose string lies (between its quotes) at `range` of `line`: looked up by its
    /// bytes in place, unless it has escapes (`escaped`) to undo first.
    private mutating func removeID(_ range: Range<Int>, escaped: Bool, in line: UnsafeRawBufferPointer) {
        if escaped {
            table.remove(JSONDecoding.unescape(line, range))
        } else {
            table.remove(bytes: UnsafeRawBufferPointer(rebasing: line[range]))
        }
    }

    /// Whether `key` is a string member spelling exactly `current`, with no escape: the general
    /// read would give `current` itself, so the set keeps it as it is.
    private static func holds(_ message: JSONObject, _ key: StaticString, _ current: String?) -> Bool {
        guard var current, let found = message.field(key), found.kind == .string else { return false }
        let start = found.valueRange.lowerBound + 1
        let count = found.valueRange.count - 2
        return current.withUTF8 { held in
            guard held.count == count, let heldBase = held.baseAddress, memchr(heldBase, 0x5C, count) == nil else { return count == 0 && held.isEmpty }
            return message.storage.withUnsafeBytes { memcmp($0.baseAddress! + start, heldBase, count) == 0 }
        }
    }

    /// The version rules: nil to go on and apply the message (the set emptied for a full one),
    /// or the outcome that stops it (stale, or a gap that marks the set broken).
    private mutating func accept(version: Int, full: Bool) -> Outcome? {
        if !full {
            if version <= self.version { return .stale }
            if version != self.version + 1 || broken {
                let expected = self.version + 1
                self.version = version
                broken = true
                return .gap(expected: expected, got: version)
            }
        }
        self.version = version
        if full {
            table.removeAll()
            broken = false
        }
        return nil
    }

    /// How many shown stations are stale (the terminal map's status line says so).
    public var staleCount: Int { table.items.reduce(0) { $0 + ($1.stale ? 1 : 0) } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
