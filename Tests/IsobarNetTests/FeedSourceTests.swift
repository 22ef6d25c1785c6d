import IsobarNet
import Testing

@Suite struct FeedSourceTests {
    @Test func recognisesEachForm() throws {
        #expect(try FeedSource("http://127.0.0.1:8080/today.json") == .http("http://127.0.0.1:8080/today.json"))
        #expect(try FeedSource("HTTPS://example.com/x.json") == .http("HTTPS://example.com/x.json"))
        #expect(try FeedSource("Fixtures/today.json") == .file("Fixtures/today.json"))
        #expect(try FeedSource("/abs/today.json") == .file("/abs/today.json"))
        #expect(try FeedSource("file:///abs/to%20day.json") == .file("/abs/to day.json"))
        #expect(try FeedSource("C:today.json") == .file("C:today.json"))
    }

    @Test(arguments: ["ftp://example.com/today.json", "unix:///tmp/sock", "", "http://", "gopher://x"])
    func refusesOtherSchemes(_ text: String) {
        #expect(throws: FetchOptionsError.self) { try FeedSource(text) }
    }

    @Test func optionsValidateNumbersAndSources() {
        #expect(throws: Never.self) { try FetchOptions().validate() }
        #expect(throws: FetchOptionsError.self) { try FetchOptions(interval: 0).validate() }
        #expect(throws: FetchOptionsError.self) { try FetchOptions(timeout: -1).validate() }
        #expect(throws: FetchOptionsError.self) { try FetchOptions(maxBodyBytes: 0).validate() }
        #expect(throws: FetchOptionsError.self) { try FetchOptions(maxRedirects: -1).validate() }
        #expect(throws: FetchOptionsError.self) { try FetchOptions(today: "ftp://x/y").validate() }
    }
}
