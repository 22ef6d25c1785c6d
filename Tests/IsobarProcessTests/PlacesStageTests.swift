import Foundation
import Testing
@testable import IsobarTestSupport

/// `isobar places` as a plain stdin/stdout stage on a small GeoNames dump (Fixtures/places-sample.txt,
/// real cities500 rows and one bad row): exact answers, pass-through, errors, and the stage running
/// on without a gazetteer.
@Suite(.processSlot) struct PlacesStageTests {
    static let sample = ProcessHarness.packageRoot.appendingPathComponent("Fixtures/places-sample.txt").path

    static func run(_ arguments: [String], _ lines: [String]) async throws -> (stdout: [String], process: ProcessHarness) {
        let process = try await ProcessHarness.isobar(["places"] + arguments)
        for line in lines { try process.writeLine(line) }
        process.closeStdin()
        var out: [String] = []
        while let line = await process.nextStdoutLine(timeout: .seconds(60)) { out.append(line) }
        #expect(await process.waitForExit(timeout: .seconds(10)) == .exited(0))
        return (out, process)
    }

    /// The distance and bearing agree with Python's math-module haversine to 1e-12.
    @Test func answersGeocodeAndReverseExactly() async throws {
        let (out, process) = try await Self.run(["--places", Self.sample], [
            #"{"type":"geocode","client":"alice","query":"springfield, il"}"#,
            #"{"type":"reverse","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":50}"#,
            #"{"type":"geocode","client":"alice","id":1835848,"limit":1}"#,
            #"{"type":"reverse","client":"alice","latitude":-30,"longitude":-130}"#,
            #"{"type":"viewport","client":"alice","center":{"latitude":1,"longitude":2}}"#,
            #"{"type":"geocode","client":"alice","query":"  "}"#,
            #"{"type":"geocode","client":"alice","id":42}"#,
            #"{"type":"reverse","client":"alice","latitude":91,"longitude":0}"#,
            #"{"type":"reverse","client":"alice","latitude":0,"longitude":0,"radiusKm":0}"#,
        ])
        #expect(out == Self.expected)
        #expect(await process.waitForStderr(containing: "loaded 7 places from \(Self.sample)", timeout: .seconds(5)) != nil)
        #expect(await process.waitForStderr(containing: "skipped 1 bad rows: \(Self.sample):9: expected 19 tab-separated columns, found 2", timeout: .seconds(5)) != nil)
    }

    static let expected = [
        #"{"type":"locations","client":"alice","query":"springfield, il","results":[{"match":"exact","id":4250542,"name":"Springfield","admin1":"Illinois","countryCode":"US","country":"United States","latitude":39.80172,"longitude":-89.64371,"population":114394,"timeZone":"America/Chicago"}]}"#,
        #"{"type":"vicinity","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":50,"place":{"id":726848,"name":"Stara Zagora","admin1":null,"countryCode":"BG","country":"Bulgaria","latitude":42.43205,"longitude":25.64262,"population":121582,"timeZone":"Europe/Sofia"},"distanceKm":0.43065677264090574,"bearing":94.52983171950022}"#,
        #"{"type":"locations","client":"alice","id":1835848,"results":[{"match":"exact","id":1835848,"name":"Seoul","admin1":null,"countryCode":"KR","country":"South Korea","latitude":37.566,"longitude":126.9784,"population":10349312,"timeZone":"Asia/Seoul"}]}"#,
        #"{"type":"vicinity","client":"alice","latitude":-30,"longitude":-130,"radiusKm":100,"place":null,"distanceKm":null,"bearing":null}"#,
        #"{"type":"viewport","client":"alice","center":{"latitude":1,"longitude":2}}"#,
        #"{"type":"error","stage":"places","message":"field \"query\" must not be empty","excerpt":"{\"type\":\"geocode\",\"client\":\"alice\",\"query\":\"  \"}","client":"alice","code":"out-of-range"}"#,
        #"{"type":"error","stage":"places","message":"unknown place id 42","excerpt":"{\"type\":\"geocode\",\"client\":\"alice\",\"id\":42}","client":"alice","code":"invalid"}"#,
        #"{"type":"error","stage":"places","message":"latitude 91.0 is outside [-90, 90]","excerpt":"{\"type\":\"reverse\",\"client\":\"alice\",\"latitude\":91,\"longitude\":0}","client":"alice","code":"out-of-range"}"#,
        #"{"type":"error","stage":"places","message":"radiusKm 0.0 is outside (0, 20016]","excerpt":"{\"type\":\"reverse\",\"client\":\"alice\",\"latitude\":0,\"longitude\":0,\"radiusKm\":0}","client":"alice","code":"out-of-range"}"#,
    ]

    @Test func withoutAGazetteerRequestsGetAnErrorAndOtherLinesPass() async throws {
        let missing = NSTemporaryDirectory() + "no-such-gazetteer-\(getpid()).txt"
        let (out, _) = try await Self.run(["--places", missing], [
            #"{"type":"reverse","client":"bob","latitude":0,"longitude":0}"#,
            #"{"type":"search","client":"bob","query":"kosice"}"#,
        ])
        #expect(out == [
            #"{"type":"error","stage":"places","message":"no gazetteer is loaded: cannot read \#(missing)","excerpt":"{\"type\":\"reverse\",\"client\":\"bob\",\"latitude\":0,\"longitude\":0}","client":"bob","code":"invalid"}"#,
            #"{"type":"search","client":"bob","query":"kosice"}"#,
        ])
    }
}
