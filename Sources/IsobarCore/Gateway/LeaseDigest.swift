/// The order-independent summary of a gateway's clients that ``Lease`` and ``Tally`` carry.
///
/// Each client contributes `FNV-1a 64` of the UTF-8 bytes `client + "\n" + ref + "\n" + version`
/// (decimal integers; plain FNV-1a over exactly those bytes, no separators of ``FNV1a/add(_:)``):
/// `ref` is the number of the client's latest viewport (the gateway counts them per client, from 1)
/// and `version` the latest annotations version (gateway: received; filter: sent; 0 before any).
/// The digest is the XOR of all contributions, so either side updates it in O(1) when one client
/// changes (XOR out the old contribution, XOR in the new), and it is the same whatever the order.
public struct LeaseDigest: Sendable, Equatable, Hashable {
    public private(set) var value: UInt64

    public init(value: UInt64 = 0) { self.value = value }

    /// Parses 16 hex digits (either case).
    public init?(hex: String) {
        guard hex.utf8.count == 16, let value = UInt64(hex, radix: 16) else { return nil }
        self.value = value
    }

    /// One client's contribution.
    public static func entry(client: String, ref: Int, version: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        add(client.utf8)
        add(CollectionOfOne(UInt8(ascii: "\n")))
        add(String(ref).utf8)
        add(CollectionOfOne(UInt8(ascii: "\n")))
        add(String(version).utf8)
        return hash
    }

    /// Adds or removes (XOR is its own inverse) one contribution.
    public mutating func toggle(_ entry: UInt64) { value ^= entry }

    /// Replaces one client's old contribution with its new one.
    public mutating func replace(_ old: UInt64, with new: UInt64) { value ^= old ^ new }

    /// 16 lowercase hex digits.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
