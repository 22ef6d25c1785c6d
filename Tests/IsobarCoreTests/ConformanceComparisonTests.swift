import Testing
@testable import IsobarCore

/// Issue 29 item 4: the conformance runner's core (`isobar conformance`): what it compares, what it
/// leaves open (conformance/README.md, "Running them"), the exact difference lines it prints, and
/// how it reads a vector.
@Suite struct ConformanceComparisonTests {
    static func problems(_ stage: String = "filter", expected: [String], output: String) throws -> [String] {
        let wanted = try expected.map { line throws(ConformanceError) in try ConformanceJSONParser.parse(line) }
        return ConformanceComparison.problems(stage: stage, expected: wanted, output: Array(output.utf8))
    }

    @Test func equalValuesPassWhateverTheKeyOrderAndNumberSpelling() throws {
        let out = try Self.problems(expected: [#"{"type":"visible","client":"a","version":1,"upsert":[{"temperature":46}]}"#],
                                    output: #"{"upsert":[{"temperature":46.0}],"version":1e0,"client":"a","type":"visible"}"# + "\n\n")
        #expect(out == [])
    }

    @Test func anErrorsWordingIsOpenItsCodeAndClientAreNot() throws {
        let expected = [#"{"type":"error","stage":"filter","client":"a","message":"bad","excerpt":"x","code":"field-type"}"#]
        #expect(try Self.problems(expected: expected, output: #"{"type":"error","stage":"mine","client":"a","message":"other words","excerpt":"","code":"field-type"}"#) == [])
        // `invalid` may stand for a field's code (PROTOCOL.md, "Errors") ...
        #expect(try Self.problems(expected: expected, output: #"{"type":"error","client":"a","code":"invalid"}"#) == [])
        // ... but not for another code, and the client counts.
        #expect(try Self.problems(expected: expected, output: #"{"type":"error","client":"b","code":"not-json"}"#) == [
            #"line 1 (error).client: expected "a", got "b""#,
            #"line 1 (error).code: expected "field-type", got "not-json""#,
        ])
        #expect(try Self.problems(expected: [#"{"type":"error","client":null,"code":"not-json"}"#],
                                  output: #"{"type":"error","client":null,"code":"invalid"}"#) == [
            #"line 1 (error).code: expected "not-json", got "invalid""#,
        ])
    }

    @Test func clockTimesAndReasonsAreOpen() throws {
        #expect(try Self.problems(expected: [#"{"type":"visible","fetchedAt":1,"ageSeconds":0}"#, #"{"type":"resync","reason":"a"}"#, #"{"type":"warning","message":"a"}"#],
                                  output: #"{"type":"visible","fetchedAt":9,"ageSeconds":7}"# + "\n" + #"{"type":"resync","reason":"b"}"# + "\n" + #"{"type":"warning","message":"b"}"#) == [])
    }

    @Test func fetchSnapshotIdsAndStatusDetailsAreOpen() throws {
        let expected = [#"{"type":"station","snapshot":"today-1","id":"A"}"#, #"{"type":"status","state":"ok","url":"u","reason":"","attempt":0,"retryIn":0}"#]
        let output = #"{"type":"station","snapshot":"today-2","id":"A"}"# + "\n" + #"{"type":"status","state":"ok","url":"v","reason":"r","attempt":3,"retryIn":9}"#
        #expect(try Self.problems("fetch", expected: expected, output: output) == [])
        #expect(try Self.problems("filter", expected: expected, output: output) == [
            #"line 1 (station).snapshot: expected "today-1", got "today-2""#,
            #"line 2 (status).attempt: expected 0, got 3"#,
            #"line 2 (status).reason: expected "", got "r""#,
            #"line 2 (status).retryIn: expected 0, got 9"#,
            #"line 2 (status).url: expected "u", got "v""#,
        ])
    }

    @Test func aClustersMeansMayDifferByOneUnitInTheLastPlace() throws {
        let expected = [#"{"type":"visible","upsert":[{"cluster":true,"latitude":1.000001,"temperature":20.5,"count":3},{"latitude":1.000001}]}"#]
        let output = #"{"type":"visible","upsert":[{"cluster":true,"latitude":1.000002,"temperature":20.501,"count":3},{"latitude":1.000002}]}"#
        #expect(try Self.problems(expected: expected, output: output) == [
            "line 1 (visible).upsert[1].latitude: expected 1.000001, got 1.000002",
        ])
        #expect(try Self.problems(expected: expected, output: output.replacingOccurrences("20.501", "20.502")) == [
            "line 1 (visible).upsert[0].temperature: expected 20.5, got 20.502",
            "line 1 (visible).upsert[1].latitude: expected 1.000001, got 1.000002",
        ])
    }

    @Test func missingUnexpectedWrongTypeAndNonJSONLinesAreNamed() throws {
        #expect(try Self.problems(expected: [#"{"type":"visible","upsert":[1,2]}"#, #"{"type":"selection"}"#],
                                  output: #"{"type":"visible","upsert":[1],"extra":true}"#) == [
            "line 1 (visible).upsert: expected 2 items, got 1",
            "line 1 (visible).extra: unexpected (got true)",
            #"line 2: missing: {"type":"selection"}"#,
        ])
        #expect(try Self.problems(expected: [#"{"type":"visible"}"#],
                                  output: "oops\n" + #"{"type":"resync","client":"a"}"# + "\n" + #"{"type":"visible"}"#) == [
            "output line 1 is not JSON: oops",
            #"line 1: expected visible, got {"client":"a","type":"resync"}"#,
            #"line 2: unexpected: {"type":"visible"}"#,
        ])
        #expect(try Self.problems(expected: [#"{"type":"visible","full":true}"#], output: #"{"type":"visible","full":1}"#) == [
            "line 1 (visible).full: expected true, got 1",
        ])
    }

    @Test func aVectorsInputIsWrittenAsTheVectorHasIt() throws {
        let file = """
        {
         "description": "d", "section": "Lines", "stage": "filter",
         "args": ["--places", "{repo}/conformance/places/gazetteer.txt", "{files}/today.json"],
         "files": {"today.json": "{}"},
         "input": [
          {"type":"viewport", "version": 9000000000000001, "name":"a b"},
          "not json {",
          [1, 2.50]
         ],
         "expected": [{"type":"error"}]
        }
        """
        let vector = try ConformanceVector(name: "lines/x", bytes: Array(file.utf8))
        #expect(vector.inputLines == [#"{"type":"viewport","version":9000000000000001,"name":"a b"}"#, "not json {", "[1,2.50]"])
        #expect(String(decoding: vector.stdin, as: UTF8.self) == vector.inputLines.map { $0 + "\n" }.joined())
        #expect(vector.arguments(repo: "/r", files: "/t") == ["--places", "/r/conformance/places/gazetteer.txt", "/t/today.json"])
        #expect(vector.files == ["today.json": "{}"])
        #expect(vector.disputed == false)
        #expect(vector.expected == [.object(["type": .string("error")])])
        #expect(throws: ConformanceError.badVector("lines/y: no string section")) {
            try ConformanceVector(name: "lines/y", bytes: Array(#"{"description":"d","stage":"filter","input":[],"expected":[]}"#.utf8))
        }
    }

    @Test func onlyGlobsMatchSectionAndName() {
        let selection = ConformanceSelection(only: ["formatting-rules-exactly/*-en", "lines/*", "errors/bad-?"])
        #expect(selection.matches("formatting-rules-exactly/report-en"))
        #expect(!selection.matches("formatting-rules-exactly/report-sk"))
        #expect(selection.matches("lines/anything/at-all"))
        #expect(selection.matches("errors/bad-1"))
        #expect(!selection.matches("errors/bad-10"))
        #expect(ConformanceSelection().matches("any/name"))
    }

    @Test func theReportNamesTheVector() throws {
        let vector = try ConformanceVector(name: "lines/x", bytes: Array(#"{"description":"D.","section":"Lines","stage":"filter","input":[],"expected":[]}"#.utf8))
        let problems = (1...13).map { "p\($0)" }
        #expect(ConformanceReport.failure(stage: "filter", vector: vector, problems: problems) ==
                ["FAIL filter/lines/x (Lines): D."] + (1...12).map { "  p\($0)" } + ["  … 1 more"])
        #expect(ConformanceReport.summary(stage: "format", passed: 9, failed: 1, skipped: 2) == "conformance format: 9 passed, 1 failed, 2 disputed skipped")
        #expect(ConformanceReport.summary(stage: "format", passed: 9, failed: 0, skipped: 0) == "conformance format: 9 passed, 0 failed")
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
