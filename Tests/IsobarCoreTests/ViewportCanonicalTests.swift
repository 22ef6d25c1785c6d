import Testing
@testable import IsobarCore

/// `Viewport(canonical:)`, the filter's in-place reader of the viewport shape every Isobar writer
/// gives: it reads back what `Viewport.write` writes, and on any line it either gives exactly the
/// generic reader's viewport or nil (never a viewport the generic reader would refuse or read otherwise).
@Suite struct ViewportCanonicalTests {
    func canonical(_ text: String) -> Viewport? {
        Array(text.utf8).withUnsafeBytes { Viewport(canonical: $0) }
    }

    func generic(_ text: String) -> Viewport? {
        guard let object = try? JSONObject(parsing: text), (try? object.requireString("type")) == "viewport" else { return nil }
        return try? Viewport(from: object)
    }

    func written(_ viewport: Viewport) -> String {
        var writer = JSONWriter()
        viewport.write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    @Test func readsBackWhatWriteWrites() throws {
        var random = TestSupport.Random(seed: 9)
        for k in 0..<2_000 {
            let region = try Region(center: Coordinate(latitude: random.uniform(-90...90), longitude: random.uniform(-180...180)),
                                    latitudeDelta: random.uniform(0.001...180), longitudeDelta: random.uniform(0.001...400))
            let presentation = k % 3 == 0 ? Presentation() : Presentation(
                field: Field.allCases[Int(random.next() % UInt64(Field.allCases.count))],
                units: k % 2 == 0 ? Units.allCases[Int(random.next() % UInt64(Units.allCases.count))] : nil,
                windUnit: k % 5 == 0 ? WindUnit.allCases[Int(random.next() % UInt64(WindUnit.allCases.count))] : nil,
                locale: k % 7 == 0 ? Locale.allCases[Int(random.next() % UInt64(Locale.allCases.count))] : nil)
            let viewport = Viewport(client: "c\(k)", region: region, day: k % 4 == 0 ? .tomorrow : .today, presentation: presentation,
                                    limit: 1 + Int(random.next() % 2_000), version: k % 2 == 0 ? Int(random.next() % 100_000) : nil,
                                    gateway: k % 3 == 1 ? "gw-\(k % 5)" : nil, ref: k % 3 == 1 ? Int(random.next() % 1_000) : nil)
            let line = written(viewport)
            #expect(canonical(line) == viewport, "\(line)")
            #expect(canonical(line) == generic(line))
        }
    }

    /// Lines off the canonical shape, or invalid: nil, or the generic reader's answer.
    @Test func anyOtherLineIsNilOrTheGenericAnswer() {
        let base = #"{"type":"viewport","client":"alice","center":{"latitude":40.5,"longitude":-108.25},"span":{"latitudeDelta":2,"longitudeDelta":2.5},"day":"today","limit":500,"version":3,"gateway":"g1","ref":2}"#
        let long = String(repeating: "x", count: 257), longest = String(repeating: "x", count: 256)
        let tooLong: String = base.replacingOccurrences(of: "alice", with: long)
        let longestName: String = base.replacingOccurrences(of: "alice", with: longest)
        let variants: [String] = [
            base, tooLong, longestName,
            base.replacingOccurrences(of: #","day":"today""#, with: ""),
            base.replacingOccurrences(of: #""day":"today""#, with: #""day":"someday""#),
            base.replacingOccurrences(of: "40.5", with: "91"),
            base.replacingOccurrences(of: "40.5", with: "-0"),
            base.replacingOccurrences(of: "40.5", with: "4e1"),
            base.replacingOccurrences(of: "40.5", with: "040.5"),
            base.replacingOccurrences(of: "40.5", with: "40."),
            base.replacingOccurrences(of: "-108.25", with: "-180.5"),
            base.replacingOccurrences(of: #""latitudeDelta":2"#, with: #""latitudeDelta":0"#),
            base.replacingOccurrences(of: #""latitudeDelta":2"#, with: #""latitudeDelta":181"#),
            base.replacingOccurrences(of: #""limit":500"#, with: #""limit":0"#),
            base.replacingOccurrences(of: #""limit":500"#, with: #""limit":500.5"#),
            base.replacingOccurrences(of: #""limit":500"#, with: #""limit":500.0"#),
            base.replacingOccurrences(of: #""version":3"#, with: #""version":-1"#),
            base.replacingOccurrences(of: #""version":3"#, with: #""version":1000000000000001"#),
            base.replacingOccurrences(of: #""gateway":"g1""#, with: #""gateway":"""#),
            base.replacingOccurrences(of: #""ref":2"#, with: #""ref":-2"#),
            base.replacingOccurrences(of: #""client":"alice""#, with: #""client":"""#),
            base.replacingOccurrences(of: #""client":"alice""#, with: #""client":"a/b""#),
            base.replacingOccurrences(of: #""client":"alice""#, with: #""client":"al\"ice""#),
            base.replacingOccurrences(of: #","ref":2}"#, with: #","ref":2,"ref":3}"#),
            base.replacingOccurrences(of: #","ref":2}"#, with: #","extra":1}"#),
            base.replacingOccurrences(of: #","ref":2}"#, with: #","ref":2} "#),
            base.replacingOccurrences(of: #""day":"today","limit":500"#, with: #""limit":500,"day":"today""#),
            base.replacingOccurrences(of: #""day":"today""#, with: #""day":"today","field":"wind","units":"metric""#),
            base.replacingOccurrences(of: #""day":"today""#, with: #""day":"today","field":"nonsense""#),
            base + "x",
            String(base.dropLast()),
        ]
        var read = 0
        for line in variants {
            let fast = canonical(line)
            if let fast {
                read += 1
                #expect(fast == generic(line), "\(line)")
            }
        }
        #expect(canonical(base) != nil && read >= 6)
        // Refused by both: never read here.
        for line in variants where generic(line) == nil { #expect(canonical(line) == nil, "\(line)") }
    }
}
