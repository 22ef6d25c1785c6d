/// The bytes of each station's `visible` item members (`Station.writeMembers` then `writeIcon`:
/// everything between the item's `{` and its `stale` mark), written once per snapshot, the first
/// time a client is sent the station, and copied from then on.
///
/// Why: writing a station's members (two escaped strings, six numbers printed as decimals) was
/// the largest part of a pan's cost in the filter, and the same station is sent to client after
/// client, pan after pan, unchanged until the next snapshot. A snapshot's stations never change
/// (``StationSnapshot`` is immutable; a feed change is a new snapshot, with a new, empty cache),
/// so a cached item can never be stale: a station whose data changes comes in a new snapshot and
/// is written afresh from it.
///
/// Bounded: the bytes live in chunks of `chunkBytes` (1 MiB), at most `byteLimit` in all; once
/// that is reached, further stations are written field by field as before (the same bytes, just
/// not kept). The index (8 bytes a station) is only allocated on first use, so a filter that
/// only loads snapshots (`isobar filter --viewport`) pays nothing.
///
/// A removed station's quoted id is copied from these bytes too (``writeQuotedIDs(ofKeys:positionByKey:into:otherwise:)``):
/// they begin `"id":` and the id as `JSONWriter.string` wrote it. With `--chain-format` the filter
/// writes `annotations`, not `visible` items, so nothing is kept here and every removal's id is
/// quoted from the interned id.
///
/// Not thread-safe: used by the one filter engine that owns the snapshot.
public final class StationItemBytes {
    static let chunkBytes = 1 << 20
    /// The default bound on the bytes kept per snapshot (64 MiB: every station of a
    /// 300,000-station snapshot at a usual ~200 bytes each).
    public static let defaultByteLimit = 64 << 20

    /// Per station position: 0 (not written yet) or chunk index << 40 | offset << 20 | length.
    private var entries: [UInt64] = []
    private var chunks: [[UInt8]] = []
    private let count: Int
    let byteLimit: Int
    /// Bytes held in the chunks, all told.
    private(set) var bytesHeld = 0
    /// Stations whose bytes are held.
    private(set) var stationsHeld = 0

    init(count: Int, byteLimit: Int = StationItemBytes.defaultByteLimit) {
        self.count = count
        self.byteLimit = byteLimit
    }

    /// Writes the members of `stations[position]` (as `writeMembers` + `writeIcon` would, right after
    /// an `objectStart`) into `out`, from the cache when held, otherwise writing them and keeping
    /// a copy while the bound allows.
    func writeMembers(of stations: UnsafeBufferPointer<Station>, at position: Int, into out: inout JSONWriter) {
        if entries.isEmpty { entries = [UInt64](repeating: 0, count: count) }
        let entry = entries[position]
        if entry != 0 {
            let (chunk, offset, length) = Self.location(of: entry)
            chunks[chunk].withUnsafeBufferPointer { out.raw(UnsafeBufferPointer(rebasing: $0[offset..<(offset + length)])) }
            return
        }
        let start = out.bytes.count
        stations[position].writeMembers(to: &out)
        stations[position].writeIcon(to: &out)
        keep(out.bytes[start...], at: position)
    }

    /// For each of `keys` in order, writes the id of the station at `positionByKey[key]` as a JSON
    /// string element, copied from its kept bytes; a key with no station there (a cluster's, one
    /// not in this snapshot), or whose bytes are not kept, goes to `otherwise`.
    ///
    /// Why: a station leaves a client's view once it has been sent, so its item bytes are usually
    /// here, and copying its quoted id from them is cheaper than quoting the interned id afresh
    /// (the filter's removals, ~20 ids an update on a jump). The cache's arrays are read once for
    /// the run: read per key through the class, each look-up checked exclusivity twice and
    /// retained twice (~300 instructions).
    func writeQuotedIDs(ofKeys keys: [UInt64], positionByKey: [Int32], into out: inout JSONWriter,
                        otherwise: (UInt64, inout JSONWriter) -> Void) {
        let entries = self.entries, chunks = self.chunks
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: keys.count) { found in
            // First pass: each id's location, and the first of its kept bytes read (it must be the
            // quote of `"id":`). A removed station was sent long ago, so that read is a cache miss;
            // made here, for every id before any is written, the misses overlap instead of
            // coming one at a time in the writing pass (BENCHMARKS.md, "Per update, now":
            // instruction counts cannot see this, CPU seconds and `perf` do).
            for (i, key) in keys.enumerated() {
                var entry: UInt64 = 0
                if key < UInt64(positionByKey.count), case let position = Int(positionByKey[Int(key)]), position >= 0,
                   position < entries.count, entries[position] != 0 {
                    let kept = entries[position], (chunk, offset, _) = Self.location(of: kept)
                    if chunks[chunk].withUnsafeBufferPointer({ $0[offset] }) == UInt8(ascii: "\"") { entry = kept }
                }
                found[i] = entry
            }
            for (i, key) in keys.enumerated() where !Self.writeQuotedID(entry: found[i], in: chunks, into: &out) {
                otherwise(key, &out)
            }
        }
    }

    /// Writes the quoted id at the start of the kept bytes `entry` locates (they begin `"id":` and
    /// the id as `JSONWriter.string` wrote it) and returns true; false, writing nothing, for 0
    /// (nothing kept).
    private static func writeQuotedID(entry: UInt64, in chunks: [[UInt8]], into out: inout JSONWriter) -> Bool {
        guard entry != 0 else { return false }
        let (chunk, offset, length) = location(of: entry)
        return chunks[chunk].withUnsafeBufferPointer { all in
            let item = UnsafeBufferPointer(rebasing: all[offset..<(offset + length)])
            let quote = UInt8(ascii: "\""), prefix = 5  // `"id":`
            guard item.count > prefix + 1, item[0] == quote, item[1] == UInt8(ascii: "i"), item[2] == UInt8(ascii: "d"),
                  item[3] == quote, item[4] == UInt8(ascii: ":"), item[prefix] == quote else { return false }
            // The closing quote: the first `"` not escaped (an escape is a backslash and the byte after it).
            var i = prefix + 1
            while i < item.count {
                if item[i] == UInt8(ascii: "\\") {
                    i += 2
                } else if item[i] == quote {
                    out.raw(UnsafeBufferPointer(rebasing: item[prefix...i]))
                    return true
                } else {
                    i += 1
                }
            }
            return false
        }
    }

    /// Where a nonzero entry's bytes are: its chunk, and the offset and length in that chunk (the
    /// packing `keep` writes).
    @inline(__always)
    private static func location(of entry: UInt64) -> (chunk: Int, offset: Int, length: Int) {
        (Int(entry >> 40), Int((entry >> 20) & 0xF_FFFF), Int(entry & 0xF_FFFF))
    }

    /// Keeps `written` as the bytes of `position` when it fits the bound (and a chunk).
    private func keep(_ written: ArraySlice<UInt8>, at position: Int) {
        let length = written.count
        guard length > 0, length < Self.chunkBytes, bytesHeld + length <= byteLimit else { return }
        if chunks.isEmpty || chunks[chunks.count - 1].count + length > Self.chunkBytes {
            guard chunks.count < 1 << 23 else { return }
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Self.chunkBytes)
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        let offset = chunks[last].count
        chunks[last].append(contentsOf: written)
        entries[position] = UInt64(last) << 40 | UInt64(offset) << 20 | UInt64(length)
        bytesHeld += length
        stationsHeld += 1
    }
}
