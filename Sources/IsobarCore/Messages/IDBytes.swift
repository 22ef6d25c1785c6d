#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Station and annotation ids are compared as bytes (their UTF-8), not as Swift compares `String`s
/// (by Unicode canonical equivalence): PROTOCOL.md, `annotations`. The tables keyed by an FNV-1a
/// hash of the bytes (``KeyInterner``, the fetcher's `StationIDSet`, the client's
/// `AnnotationTable`) confirm a match with this, so two ids that differ only in normalization are
/// always two ids, whatever the table's random seed puts in one probe chain.
enum IDBytes {
    static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.withContiguousStorageIfAvailable { equal(b, UnsafeRawBufferPointer($0)) } ?? a.utf8.elementsEqual(b.utf8)
    }

    static func equal(_ id: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        id.utf8.withContiguousStorageIfAvailable { stored in
            guard stored.count == bytes.count else { return false }
            guard let a = stored.baseAddress, let b = bytes.baseAddress else { return true }  // both empty
            return memcmp(a, b, bytes.count) == 0
        } ?? id.utf8.elementsEqual(bytes)
    }
}
