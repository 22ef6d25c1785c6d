import Testing
@testable import IsobarCore

/// An onX body read as it downloads (`OnXFeedStream`, chunk by chunk) gives exactly what the whole
/// body gives, whatever the chunk sizes, and refuses exactly the bodies that are not a JSON array.
@Suite struct OnXFeedStreamTests {
    /// What one reading produced, comparable: the stations, warnings and errors, or the refusal.
    enum Outcome: Equatable {
        case parsed([Station], [WarningMessage], [ErrorMessage])
        case refused(String)
    }

    func read(_ body: [UInt8], chunk: Int) -> Outcome {
        var stream = OnXFeedStream()
        do throws(MessageError) {
            var start = 0
            while start < body.count {
                let end = min(body.count, start + chunk)
                let piece = Array(body[start..<end])
                var failure: MessageError?
                piece.withUnsafeBytes { raw in
                    do throws(MessageError) { try stream.append(raw) } catch { failure = error }
                }
                if let failure { throw failure }
                start = end
            }
            let feed = try stream.finish()
            return .parsed(feed.stations, feed.warnings, feed.errors)
        } catch {
            return .refused(error.message)
        }
    }

    static let bodies: [String] = [
        #"[{"id":"A","latitude":1,"longitude":2,"temperature":3,"name":"x \"q\" [} \\"}, {"id":"B","latitude":1,"longitude":2}]"#,
        #"  [ 5 , "s\"]" , null , true , [1,{"a":[]}] , {"id":"C","latitude":1,"longitude":2,"wind_speed":-1} ]  "#,
        #"[{"id":"A","latitude":1,"longitude":2},{"id":"A","latitude":3,"longitude":4},{"id":"","latitude":1,"longitude":2}]"#,
        #"[{"id":"A","latitude":91,"longitude":2},{"id":"B","latitude":1,"longitude":2,"chance_of_precipitation":140}]"#,
        // Refused whole: not an array, not closed, broken syntax between or inside elements.
        #"{"id":"A"}"#, "", "   ", "[", "[]", "[ ]", "[1,]", "[,1]", "[1 2]", "[1]x", "[1]]", #"[{"id":"A","latitude":1,"longitude":2}"#,
        #"[{"id":"A","latitude":1,"longitude":2},]"#, #"[{"id":"A" "latitude":1}]"#, #"[{"id":"A","latitude":1,"longitude":2}}]"#,
        #"["unterminated]"#, "[tru]", "[1e400]", "[01]", #"[{"a":1e400}]"#, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    ]

    @Test func everyChunkingGivesTheWholeBodysResult() throws {
        var refusals = 0
        for text in Self.bodies + [String(decoding: try TestSupport.fixture("today.json"), as: UTF8.self)] {
            let body = Array(text.utf8)
            let whole = read(body, chunk: max(1, body.count))
            if case .refused = whole { refusals += 1 }
            for chunk in [1, 2, 3, 7, 64, 4_096] {
                #expect(read(body, chunk: chunk) == whole, "\(text.prefix(60)) in chunks of \(chunk)")
            }
            // The whole-body entry point is the same reading.
            let viaParse: Outcome
            do throws(MessageError) {
                let feed = try OnXFeed.parse(body)
                viaParse = .parsed(feed.stations, feed.warnings, feed.errors)
            } catch {
                viaParse = .refused(error.message)
            }
            #expect(viaParse == whole)
        }
        #expect(refusals == 21)
    }

    @Test func refusesExactlyWhatIsNotAJSONArray() {
        // Against the project's whole-document array parser (itself checked against RFC 8259's
        // grammar in JSONConformanceTests): valid arrays are read, the rest refused.
        for text in Self.bodies {
            let body = Array(text.utf8)
            let valid = (try? JSONArray(storage: body)) != nil
            guard case .refused(let reason) = read(body, chunk: 3) else {
                #expect(valid, "\(text) read although it is not a JSON array")
                continue
            }
            #expect(!valid || reason.contains("empty array") || reason.contains("no valid station record"), "\(text): \(reason)")
        }
    }

    @Test func refusalsSayWhereInTheWholeBody() {
        #expect(read(Array(#"{"id":"A"}"#.utf8), chunk: 2)
                == .refused("feed body is not a JSON array of station records: expected a JSON array, found an object at byte 0"))
        #expect(read(Array("[1,]".utf8), chunk: 1)
                == .refused("feed body is not a JSON array of station records: expected an element after the comma, found ']' at byte 3"))
        // A broken record: the offset is the whole body's, as a whole-body parser would say it.
        let body = Array(#"[{"id":"A","latitude":1,"longitude":2}, {"id" 1}]"#.utf8)
        let wholeBodyError: String
        do throws(JSONError) { _ = try JSONArray(storage: body); wholeBodyError = "none" } catch { wholeBodyError = "\(error)" }
        #expect(wholeBodyError == "expected ':' after key at byte 46")
        #expect(read(body, chunk: 5) == .refused("feed body is not a JSON array of station records: " + wholeBodyError))
        #expect(read(Array("[1".utf8), chunk: 1) == .refused("feed body is not a JSON array of station records: the array is not closed: the body ends at byte 2"))
    }

    @Test func recordsAreRejectedAloneWithTheirExcerpt() {
        guard case .parsed(let stations, let warnings, let errors) = read(Array(Self.bodies[1].utf8), chunk: 4) else {
            Issue.record("refused")
            return
        }
        #expect(stations.map(\.id) == ["C"])
        #expect(warnings.count == 1)
        #expect(errors.map(\.message) == ["record 0 is a number, not an object", "record 1 is a string, not an object",
                                          "record 2 is null, not an object", "record 3 is a boolean, not an object",
                                          "record 4 is an array, not an object"])
        #expect(errors[1].excerpt == #""s\"]""#)
    }
}
