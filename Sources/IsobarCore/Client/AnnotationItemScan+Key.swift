#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AnnotationItemScan {
    /// The item keys the reader knows, in the order of their bits in `seen`.
    enum Key: Int, CaseIterable {
        case id, coordinate, title, subtitle, cluster, count, value, wind, stale, icon

        /// The key of the member at the scanner's position, leaving the scanner at its value (past
        /// the colon and any whitespace); nil when it is none of these keys spelled plainly (the
        /// reader then declines the item).
        ///
        /// The formatter writes every key as `"name":` with nothing between: that spelling is
        /// compared as two words at once (its first five bytes already tell the keys apart), which
        /// was most of the cost of finding a member (a search for the closing quote, then a
        /// comparison by length). Anything else (whitespace, the end of the line near) takes
        /// ``AnnotationItemScan/memberName(_:)`` and ``find(_:_:)``, which give the same key.
        @inline(__always)
        static func member(_ scanner: inout JSONScanner) -> Key? {
            if let key = spelled(&scanner) { return key }
            guard let base = scanner.bytes.baseAddress, let name = AnnotationItemScan.memberName(&scanner) else { return nil }
            return find(base + name.lowerBound, name.count)
        }

        /// The key spelled `"name":` exactly at the scanner's position (at least 16 bytes before the
        /// line's end), leaving the scanner past the colon and any whitespace; else nil, the scanner
        /// unmoved.
        @inline(__always)
        static func spelled(_ scanner: inout JSONScanner) -> Key? {
            let bytes = scanner.bytes
            let start = scanner.index
            guard start >= 0, start + 16 <= bytes.count else { return nil }
            let first = bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)
            let second = bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
            let key: Key
            switch first & 0xFF_FFFF_FFFF {
            case 0x3a_2264_6922: key = .id
            case 0x72_6f6f_6322: key = .coordinate
            case 0x6c_7469_7422: key = .title
            case 0x74_6275_7322: key = .subtitle
            case 0x73_756c_6322: key = .cluster
            case 0x6e_756f_6322: key = .count
            case 0x75_6c61_7622: key = .value
            case 0x64_6e69_7722: key = .wind
            case 0x6c_6174_7322: key = .stale
            case 0x6e_6f63_6922: key = .icon
            default: return nil
            }
            let (low, high, length) = key.spelling
            guard AnnotationItemScan.spells(first, second, low, high, length) else { return nil }
            scanner.index = start + length
            scanner.skipWhitespaceIfAny()
            return key
        }

        /// The key's bit in the item reader's mask of the keys it has read.
        var bit: UInt16 { 1 << UInt16(rawValue) }

        /// `"name":` as little-endian words (the first eight bytes, then the rest, zero-padded)
        /// and its length in bytes. `ClientMessageScanTests` checks each against its name.
        var spelling: (UInt64, UInt64, Int) {
            switch self {
            case .id: (0x3a_2264_6922, 0, 5)
            case .coordinate: (0x6e69_6472_6f6f_6322, 0x3a_2265_7461, 13)
            case .title: (0x3a22_656c_7469_7422, 0, 8)
            case .subtitle: (0x6c74_6974_6275_7322, 0x3a_2265, 11)
            case .cluster: (0x7265_7473_756c_6322, 0x3a22, 10)
            case .count: (0x3a22_746e_756f_6322, 0, 8)
            case .value: (0x3a22_6575_6c61_7622, 0, 8)
            case .wind: (0x3a_2264_6e69_7722, 0, 7)
            case .stale: (0x3a22_656c_6174_7322, 0, 8)
            case .icon: (0x3a_226e_6f63_6922, 0, 7)
            }
        }

        /// The key spelled by `length` bytes at `start`, or nil.
        static func find(_ start: UnsafeRawPointer, _ length: Int) -> Key? {
            func equal(_ name: StaticString) -> Bool { memcmp(start, name.utf8Start, length) == 0 }
            switch length {
            case 2: return equal("id") ? .id : nil
            case 4: return equal("wind") ? .wind : equal("icon") ? .icon : nil
            case 5: return equal("title") ? .title : equal("count") ? .count : equal("value") ? .value : equal("stale") ? .stale : nil
            case 7: return equal("cluster") ? .cluster : nil
            case 8: return equal("subtitle") ? .subtitle : nil
            case 10: return equal("coordinate") ? .coordinate : nil
            default: return nil
            }
        }
    }

    /// Whether the 16 bytes read as `first` and `second` begin with the `length` bytes (at most 16)
    /// whose words are `low` and `high` (zero past `length`).
    @inline(__always)
    static func spells(_ first: UInt64, _ second: UInt64, _ low: UInt64, _ high: UInt64, _ length: Int) -> Bool {
        let lowMask: UInt64 = length >= 8 ? ~0 : (1 << (8 * UInt64(length))) &- 1
        let highMask: UInt64 = length >= 16 ? ~0 : length <= 8 ? 0 : (1 << (8 * UInt64(length - 8))) &- 1
        return first & lowMask == low && second & highMask == high
    }

    /// `"latitude":` and `"longitude":` (as ``Key/spelling``), for the coordinate's members.
    static var latitudeSpelling: (UInt64, UInt64, Int) { (0x6475_7469_7461_6c22, 0x3a_2265, 11) }
    static var longitudeSpelling: (UInt64, UInt64, Int) { (0x7574_6967_6e6f_6c22, 0x3a22_6564, 12) }
}
