/// Finds stations by id with ASCII case ignored (`ksea` finds "KSEA"): an open-addressing table
/// of station positions keyed by a hash of the lowercased id.
///
/// With `onlyMixedCase`, the table holds only ids that contain a lowercase ASCII letter, and an id
/// without one is found by an exact lookup of the query in upper case (the caller's `exact`, the
/// snapshot's own id index): real feeds' ids are upper case (KSEA, K1D3, 2643743), so the table is
/// then usually empty instead of 4 bytes x 2 a station.
struct IDTable: Sendable {
    private let slots: [Int32]
    private let mask: Int
    private let onlyMixedCase: Bool

    init(stations: [Station], onlyMixedCase: Bool = false) {
        self.onlyMixedCase = onlyMixedCase
        let indexed = stations.indices.filter { !onlyMixedCase || Self.hasLowercase(stations[$0].id.utf8) }
        var capacity = 16
        while capacity < indexed.count * 2 { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        for position in indexed {
            var slot = Int(truncatingIfNeeded: Self.hash(stations[position].id.utf8)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
        self.slots = slots
        self.mask = mask
    }

    /// Positions of the stations whose id equals `id` up to ASCII case, ascending. `exact` finds an
    /// id exactly (needed with `onlyMixedCase`).
    func positions(of id: String, in stations: [Station], exact: ((String) -> Int?)? = nil) -> [Int32] {
        var found: [Int32] = []
        var slot = Int(truncatingIfNeeded: Self.hash(id.utf8)) & mask
        while slots[slot] >= 0 {
            let position = slots[slot]
            if Self.equalIgnoringASCIICase(stations[Int(position)].id.utf8, id.utf8) { found.append(position) }
            slot = (slot + 1) & mask
        }
        if onlyMixedCase, let exact {
            let upper = String(decoding: id.utf8.map(Self.upper), as: UTF8.self)
            if let position = exact(upper), position < stations.count, !Self.hasLowercase(stations[position].id.utf8) {
                found.append(Int32(position))
            }
        }
        return found.sorted()
    }

    @inline(__always) static func upper(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
    }

    static func hasLowercase(_ bytes: String.UTF8View) -> Bool {
        bytes.contains { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    static func hash(_ bytes: String.UTF8View) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(lower(byte))) &* 0x100_0000_01b3 }
        return hash
    }

    static func equalIgnoringASCIICase(_ a: String.UTF8View, _ b: String.UTF8View) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lower($0) == lower($1) }
    }
}
