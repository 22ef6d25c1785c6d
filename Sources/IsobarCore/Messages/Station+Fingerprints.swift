extension Station {
    /// The `fingerprint`s of two stations, computed side by side: each FNV-1a step waits for the
    /// multiply before it, so one fingerprint is a chain of ~100 dependent multiplies, and two
    /// independent chains interleaved run in about the time of one (a snapshot id of a million
    /// stations hashes them all). Exactly `(a.fingerprint, b.fingerprint)`.
    static func fingerprints(_ a: Station, _ b: Station) -> (UInt64, UInt64) {
        guard a.details == nil && b.details == nil else { return (a.fingerprint, b.fingerprint) }
        var pair = FNV1aPair()
        pair.add(a.id, b.id)
        pair.add(a.name, b.name)
        pair.add(a.coordinate.latitude, b.coordinate.latitude)
        pair.add(a.coordinate.longitude, b.coordinate.longitude)
        pair.add(a.temperature, b.temperature)
        pair.add(a.windSpeed, b.windSpeed)
        pair.add(a.windDirection, b.windDirection)
        pair.add(a.precipitation, b.precipitation)
        return (pair.first.value, pair.second.value)
    }
}

/// Two `FNV1a` hashes fed in lockstep (see `Station.fingerprints`): the same values as feeding
/// each its own input alone.
struct FNV1aPair {
    var first = FNV1a()
    var second = FNV1a()

    /// `first.add(x)` and `second.add(y)`.
    mutating func add(_ x: String, _ y: String) {
        var x = x, y = y
        var (hx, hy) = (first, second)  // locals, kept in registers through the closures
        x.withUTF8 { bx in
            y.withUTF8 { by in
                let common = min(bx.count, by.count)
                for k in 0..<common {
                    hx.add(byte: bx[k])
                    hy.add(byte: by[k])
                }
                for k in common..<bx.count { hx.add(byte: bx[k]) }
                for k in common..<by.count { hy.add(byte: by[k]) }
            }
        }
        // The separator `FNV1a.add(_: String)` ends a string with.
        hx.add(byte: 0xFF)
        hy.add(byte: 0xFF)
        (first, second) = (hx, hy)
    }

    /// `first.add(x)` and `second.add(y)`.
    mutating func add(_ x: Double?, _ y: Double?) {
        guard let x, let y else {
            first.add(x)
            second.add(y)
            return
        }
        var (bx, by) = ((x + 0.0).bitPattern, (y + 0.0).bitPattern)
        for _ in 0..<8 {
            first.add(byte: UInt8(truncatingIfNeeded: bx))
            second.add(byte: UInt8(truncatingIfNeeded: by))
            bx >>= 8
            by >>= 8
        }
    }
}
