import Foundation
import Testing
@testable import IsobarCore

/// Paths and loaders shared by the core tests.
enum TestSupport {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)))
    }

    static func onx(_ day: Day) throws -> [Station] {
        try OnXFeed.parse(fixture("\(day.rawValue).json")).stations
    }

    /// The 5,634 real stations of Fixtures/world-stations.csv (id, name, latitude, longitude).
    static func world() throws -> [Station] {
        let text = String(decoding: try fixture("world-stations.csv"), as: UTF8.self)
        var stations: [Station] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = csvFields(String(line))
            guard fields.count == 4, let lat = Double(fields[2]), let lon = Double(fields[3]) else { continue }
            stations.append(Station(id: fields[0], name: fields[1], coordinate: Coordinate(latitude: lat, longitude: lon),
                                    temperature: Double(stations.count % 100)))
        }
        return stations
    }

    static func csvFields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let c = iterator.next() {
            if c == "\"" { quoted.toggle(); continue }
            if c == "," && !quoted { fields.append(current); current = ""; continue }
            current.append(c)
        }
        fields.append(current)
        return fields
    }

    /// Runs `body` with the bytes of `text` as a line.
    static func withLine<T>(_ text: String, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        Array(text.utf8).withUnsafeBytes(body)
    }

    static func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> T) -> T {
        bytes.withUnsafeBytes(body)
    }

    /// Output lines of a writer as parsed objects.
    static func objects(_ writer: JSONWriter) -> [JSONObject] {
        writer.bytes.split(separator: 0x0A).compactMap { try? JSONObject(storage: Array($0)) }
    }

    static func snapshotLines(day: Day, stations: [Station], id: String? = nil, fetchedAt: Double = 1_000) -> [[UInt8]] {
        var writer = JSONWriter()
        OnXFeed.writeSnapshot(day: day, stations: stations, source: .feed, fetchedAt: fetchedAt, id: id, into: &writer)
        return writer.bytes.split(separator: 0x0A).map(Array.init)
    }

    /// Deterministic pseudo-random numbers (SplitMix64) so failures reproduce.
    struct Random {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
        }

        /// JSON's structural bytes, letters of its literals, and bytes that are never valid where
        /// they land: what `broken(_:after:)` puts into a line.
        static let breakingBytes = Array(#"{}[]",:0123456789-.eEtrufalsn\ x"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]

        /// `line` with one to three bytes changed, removed or inserted after its first `after`
        /// bytes (so its `type` survives): the one-pass readers' broken-line tests.
        mutating func broken(_ line: [UInt8], after: Int) -> [UInt8] {
            let alphabet = Self.breakingBytes
            var broken = line
            for _ in 0..<(1 + Int(next() % 3)) {
                let at = after + Int(next() % UInt64(broken.count - after))
                switch next() % 3 {
                case 0: broken[at] = alphabet[Int(next() % UInt64(alphabet.count))]
                case 1: broken.remove(at: at)
                default: broken.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: at)
                }
            }
            return broken
        }
    }
}

extension JSONObject {
    func str(_ key: StaticString) -> String? { field(key).flatMap { string($0) } }
    func num(_ key: StaticString) -> Double? { field(key).flatMap { number($0) } }
    func objects(_ key: StaticString) -> [JSONObject] {
        guard let f = field(key) else { return [] }
        return arrayElements(f).map { object(at: $0.range) }
    }
    func strings(_ key: StaticString) -> [String] {
        guard let f = field(key) else { return [] }
        return arrayElements(f).map { JSONDecodingAccess.string(storage, $0.range) }
    }
}

/// The client readers' tests' comparison of the one-pass reader (`AnnotationSet.apply(storage:)`)
/// with the general reader (`apply(_:)` on the parsed line), shared by the `Client…Tests` suites.
extension TestSupport {
    /// What a set holds, for comparing two sets whole.
    static func state(_ set: AnnotationSet) -> String {
        let items = set.items.values.sorted { $0.id < $1.id }.map { "\($0)" }.joined(separator: ";")
        return "v\(set.version) \(set.day) \(set.field) \(set.source ?? "-") \(set.fetchedAt.map { "\($0)" } ?? "-") broken=\(set.broken) [\(items)]"
    }

    /// Applies `line` to both sets, one per reader; the outcomes (or errors) and the sets must agree.
    static func applyBoth(_ line: [UInt8], _ onePass: inout AnnotationSet, _ general: inout AnnotationSet,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        func text() -> String { String(String(decoding: line, as: UTF8.self).prefix(300)) }
        let a: String
        do { a = "\(try onePass.apply(storage: line))" } catch { a = "error: \(error.message)" }
        let b: String
        do { b = "\(try general.apply(JSONObject(storage: line)))" } catch let error as MessageError {
            b = "error: \(error.message)"
        } catch {
            b = "error: not a JSON object: \(error)"
        }
        #expect(a == b, "outcomes differ for \(text())", sourceLocation: sourceLocation)
        #expect(state(onePass) == state(general), "sets differ after \(text())", sourceLocation: sourceLocation)
    }
}
