/// Finds stations by id with ASCII case ignored (`ksea` finds "KSEA"): an open-addressing table
/// of station positions keyed by a hash of the lowercased id, 8 bytes a station.
struct IDTable: Sendable {
    private let slots: [Int32]
    private let mask: Int

    init(stations: [Station]) {
        var capacity = 16
        while capacity < stations.count * 2 { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        for (position, station) in stations.enumerated() {
            var slot = Int(truncatingIfNeeded: Self.hash(station.id.utf8)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
        self.slots = slots
        self.mask = mask
    }

    /// Positions of the stations whose id equals `id` up to ASCII case, ascending.
    func positions(of id: String, in stations: [Station]) -> [Int32] {
        var found: [Int32] = []
        var slot = Int(truncatingIfNeeded: Self.hash(id.utf8)) & mask
        while slots[slot] >= 0 {
            let position = slots[slot]
            if Self.equalIgnoringASCIICase(stations[Int(position)].id.utf8, id.utf8) { found.append(position) }
            slot = (slot + 1) & mask
        }
        return found.sorted()
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
