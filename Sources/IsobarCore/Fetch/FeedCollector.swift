/// Gathers one feed's stations record by record, the same way for every format: a record that
/// fails is rejected alone (one `error` naming it, with an excerpt) and the rest kept; a second
/// record with an id already seen is rejected; a body with no valid record at all is refused.
struct FeedCollector {
    private(set) var parsed = ParsedFeed()
    /// The ids kept so far, as positions in `parsed.stations` (no second copy of any id; FNV-1a
    /// instead of SipHash for the lookups).
    private var seen = StationIDSet()
    private var index = 0
    let stage: String

    init(stage: String) { self.stage = stage }

    /// Room for about `records` stations up front, so the array never doubles (a doubling holds the
    /// old and the new buffer at once: 46 + 92 MB at a million). Capacity not filled costs address
    /// space, not memory: the pages are never touched.
    mutating func reserve(records: Int) {
        parsed.stations.reserveCapacity(max(0, min(records, 20_000_000)))
        // The id table sized for a quarter of that bound (records are rarely minimal: ~270 bytes
        // in the onX feeds seen), so a big feed's table does not double 17 times on the way.
        if seen.isEmpty { seen = StationIDSet(expected: min(records, 20_000_000) / 4) }
    }

    /// Adds the station `make` reads from the next record, or rejects the record with its error.
    mutating func add(excerpt: @autoclosure () -> String, _ make: (inout [String]) throws(MessageError) -> Station) {
        defer { index += 1 }
        do throws(MessageError) {
            var warnings: [String] = []
            let station = try make(&warnings)
            // Never publish a line every reader would refuse (a value beyond physical ranges).
            try station.checkRanges()
            parsed.stations.append(station)
            guard seen.insert(position: parsed.stations.count - 1, of: parsed.stations) else {
                parsed.stations.removeLast()
                throw MessageError("duplicate station id \"\(station.id)\"; kept the first")
            }
            parsed.warnings += warnings.map { WarningMessage(stage: stage, id: station.id, message: $0) }
        } catch {
            parsed.errors.append(ErrorMessage(stage: stage, message: "record \(index) rejected: \(error.message)", excerpt: excerpt(), code: error.code))
        }
    }

    /// Rejects the next record without reading it (not of the format).
    mutating func reject(_ message: String, excerpt: @autoclosure () -> String) {
        add(excerpt: excerpt()) { (_: inout [String]) throws(MessageError) -> Station in throw MessageError(message) }
    }

    /// Rejects a record that is not an object.
    mutating func rejectNonObject(_ kind: JSONKind, excerpt: @autoclosure () -> String) {
        parsed.errors.append(ErrorMessage(stage: stage, message: "record \(index) is \(kind), not an object", excerpt: excerpt(), code: .fieldType))
        index += 1
    }

    /// The stations, or the refusal of a body none of whose records was valid.
    func finish() throws(MessageError) -> ParsedFeed {
        guard !parsed.stations.isEmpty else {
            throw MessageError("feed has no valid station record (\(parsed.errors.count) rejected); keeping the previous snapshot")
        }
        return parsed
    }
}
