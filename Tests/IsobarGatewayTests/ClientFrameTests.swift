import IsobarCore
@testable import IsobarGateway
import Testing

@Suite struct ClientFrameTests {
    func parse(_ text: String, client: String = "alice") throws(MessageError) -> ClientFrame {
        try ClientFrame.parse(Array(text.utf8), client: client)
    }

    func line(_ frame: ClientFrame) -> String? {
        if case .line(let bytes) = frame { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    @Test func viewportGetsTheConnectionsName() throws {
        let frame = try parse(#"{"type":"viewport","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"tomorrow","field":"wind","limit":1000000}"#)
        guard case .viewport(let viewport) = frame else {
            Issue.record("not a viewport: \(frame)")
            return
        }
        #expect(viewport.client == "alice")
        #expect(viewport.day == .tomorrow)
        #expect(viewport.presentation.field == .wind)
        #expect(viewport.limit == 1_000_000)
        #expect(viewport.region.latitudeDelta == 25)
        #expect(viewport.gateway == nil && viewport.ref == nil && viewport.version == nil)
    }

    @Test func versionsFromZeroToTheLimitAreAccepted() throws {
        for version in [0, 1, Viewport.maxVersion] {
            let frame = try parse(#"{"type":"viewport","center":{"latitude":40,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":\#(version)}"#)
            guard case .viewport(let viewport) = frame else {
                Issue.record("not a viewport: \(frame)")
                return
            }
            #expect(viewport.version == version)
        }
    }

    @Test func selectIsPublishedWithClientFirstAndNoNewlines() throws {
        let frame = try parse("{\"type\":\"select\",\r\n \"id\":\"K1D3\"}\n")
        let text = try #require(line(frame))
        #expect(text == #"{"client":"alice","type":"select",   "id":"K1D3"}"#)
        let object = try JSONObject(parsing: text)
        #expect(Topic.derive(from: object) == "select/07/alice")  // alice is in partition 7
    }

    @Test func aMatchingClientIsKeptAndPassThroughTypesPass() throws {
        #expect(try line(parse(#"{"type":"resync","client":"alice","reason":"gap"}"#)) == #"{"type":"resync","client":"alice","reason":"gap"}"#)
        for type in ["nearest", "search", "select", "geocode", "reverse"] {
            #expect(try line(parse(#"{"type":"\#(type)","x":1}"#)) == #"{"client":"alice","type":"\#(type)","x":1}"#)
        }
    }

    @Test(arguments: [
        ("not json", "not a JSON object"),
        ("[1,2]", "not a JSON object"),
        (#"{"id":"x"}"#, "missing required field \"type\""),
        (#"{"type":3}"#, "\"type\" must be a non-empty string"),
        (#"{"type":"annotations","version":1}"#, "unknown type \"annotations\""),
        (#"{"type":"select","client":"bob","id":"K1D3"}"#, "does not match this connection's name \"alice\""),
        (#"{"type":"viewport","center":{"latitude":91,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "latitude"),
        (#"{"type":"viewport","center":{"latitude":"40","longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "latitude"),
        (#"{"type":"viewport","center":{"latitude":40,"longitude":0}}"#, "span"),
        (#"{"type":"viewport","center":{"latitude":40,"longitude":0},"span":{"latitudeDelta":0,"longitudeDelta":1}}"#, "latitudeDelta"),
        (#"{"type":"select","type":"select"}"#, "not a JSON object"),
        // The version edge (issue 27): a filter continuing from 8999999999999999 would send 9e15,
        // which no stage reads back.
        (#"{"type":"viewport","center":{"latitude":40,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":8999999999999999}"#,
         "version 8999999999999999 is over the limit of 1000000000000000"),
        (#"{"type":"viewport","center":{"latitude":40,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":1000000000000001}"#,
         "over the limit"),
        (#"{"type":"viewport","center":{"latitude":40,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":-1}"#,
         "must not be negative"),
    ])
    func badFramesSayWhatIsWrong(text: String, expected: String) {
        do throws(MessageError) {
            let frame = try parse(text)
            Issue.record("accepted \(text) as \(frame)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }
}
