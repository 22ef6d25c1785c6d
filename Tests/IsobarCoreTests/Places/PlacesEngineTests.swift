import Testing
@testable import IsobarCore

/// The places stage's engine on a few real rows: exact answer lines, request validation, pass
/// through, and no gazetteer.
@Suite struct PlacesEngineTests {
    static let dump = [
        GeoNamesDumpTests.row(724443, "Košice", alternates: "Kassa,Kaschau,Кошице", "48.71441", "21.25802", population: "225044"),
        GeoNamesDumpTests.row(4250542, "Springfield", "39.80172", "-89.64371", country: "US", admin1: "IL", population: "114394", zone: "America/Chicago"),
        GeoNamesDumpTests.row(4409896, "Springfield", "37.21533", "-93.29824", country: "US", admin1: "MO", population: "170188", zone: "America/Chicago"),
    ].joined(separator: "\n") + "\n"

    static func answer(_ engine: PlacesEngine, _ line: String) -> String {
        var out = JSONWriter()
        Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, into: &out) }
        return String(decoding: out.bytes, as: UTF8.self)
    }

    @Test func answersExactly() throws {
        let engine = PlacesEngine(gazetteer: try DefaultGazetteer.make(Self.dump))
        #expect(Self.answer(engine, #"{"type":"geocode","client":"a","query":"Кошице"}"#)
            == #"{"type":"locations","client":"a","query":"Кошице","results":[{"match":"exact","id":724443,"name":"Košice","admin1":null,"countryCode":"SK","country":"Slovakia","latitude":48.71441,"longitude":21.25802,"population":225044,"timeZone":"Europe/Bratislava"}]}"# + "\n")
        #expect(Self.answer(engine, #"{"type":"geocode","client":"a","query":"spring","limit":1,"state":"illinois"}"#)
            == #"{"type":"locations","client":"a","query":"spring","results":[{"match":"prefix","id":4250542,"name":"Springfield","admin1":"Illinois","countryCode":"US","country":"United States","latitude":39.80172,"longitude":-89.64371,"population":114394,"timeZone":"America/Chicago"}]}"# + "\n")
        #expect(Self.answer(engine, #"{"type":"geocode","client":"a","query":"zzz"}"#)
            == #"{"type":"locations","client":"a","query":"zzz","results":[]}"# + "\n")
        #expect(Self.answer(engine, #"{"type":"reverse","client":"a","latitude":48.71441,"longitude":21.25802}"#)
            == #"{"type":"vicinity","client":"a","latitude":48.71441,"longitude":21.25802,"radiusKm":100,"place":{"id":724443,"name":"Košice","admin1":null,"countryCode":"SK","country":"Slovakia","latitude":48.71441,"longitude":21.25802,"population":225044,"timeZone":"Europe/Bratislava"},"distanceKm":0,"bearing":0}"# + "\n")
        #expect(Self.answer(engine, #"{"type":"reverse","client":"a","latitude":-90,"longitude":0,"radiusKm":20016}"#).contains(#""place":{"id":4409896,"#))
        #expect(Self.answer(engine, #"{"type":"select","client":"a","id":"X"}"#) == #"{"type":"select","client":"a","id":"X"}"# + "\n")
    }

    @Test(arguments: [
        (#"{"type":"geocode","client":"a"}"#, "a geocode needs \"query\" or \"id\""),
        (#"{"type":"geocode","client":"a","query":"x","id":1}"#, "a geocode takes \"query\" or \"id\", not both"),
        (#"{"type":"geocode","client":"a","query":""}"#, "field \"query\" must not be empty"),
        (#"{"type":"geocode","client":"a","query":"\#(String(repeating: "é", count: 101))"}"#, "field \"query\" is longer than 100 characters"),
        (#"{"type":"geocode","client":"a","query":"x","limit":0}"#, "limit 0 is outside [1, 100]"),
        (#"{"type":"geocode","client":"a","query":"x","limit":101}"#, "limit 101 is outside [1, 100]"),
        (#"{"type":"geocode","client":"a","id":0}"#, "id 0 is not a positive GeoNames id"),
        (#"{"type":"geocode","client":"a","id":5}"#, "unknown place id 5"),
        (#"{"type":"geocode","client":"a","query":"x","country":"Atlantis"}"#, "unknown country \"Atlantis\""),
        (#"{"type":"geocode","client":"a","query":"x","state":"ZZ"}"#, "unknown US state \"ZZ\""),
        (#"{"type":"reverse","client":"a","latitude":0,"longitude":180.5}"#, "longitude 180.5 is outside [-180, 180]"),
        (#"{"type":"reverse","client":"a","latitude":0,"longitude":0,"radiusKm":-1}"#, "radiusKm -1.0 is outside (0, 20016]"),
        (#"{"type":"reverse","client":"a","latitude":0,"longitude":0,"radiusKm":20017}"#, "radiusKm 20017.0 is outside (0, 20016]"),
        (#"{"type":"reverse","client":"a","latitude":"north","longitude":0}"#, "PREFIX:field \"latitude\""),
    ])
    func badRequestsAreOneErrorToTheClient(_ line: String, _ message: String) throws {
        let engine = PlacesEngine(gazetteer: try DefaultGazetteer.make(Self.dump))
        let out = Self.answer(engine, line)
        let object = try JSONObject(parsing: out.dropLast().description)
        #expect(try object.requireString("type") == "error")
        #expect(try object.requireString("stage") == "places")
        #expect(try object.optionalString("client") == "a")
        let text = try object.requireString("message")
        if message.hasPrefix("PREFIX:") { #expect(text.hasPrefix(message.dropFirst(7)), "\(text)") } else { #expect(text == message) }
        #expect(out.filter { $0 == "\n" }.count == 1)
    }

    @Test func withoutAGazetteerEachRequestIsAnError() throws {
        let engine = PlacesEngine(gazetteer: nil, unavailable: "no gazetteer is loaded: cannot read x.txt")
        let out = Self.answer(engine, #"{"type":"reverse","client":"a","latitude":0,"longitude":0}"#)
        #expect(out.hasPrefix(#"{"type":"error","stage":"places","message":"no gazetteer is loaded: cannot read x.txt","#))
        #expect(Self.answer(engine, "not json").hasPrefix(#"{"type":"error","stage":"places","message":"not a JSON object"#))
    }
}
