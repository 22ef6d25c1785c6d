import IsobarCore
import IsobarNet
import IsobarSampleFeed
import NIOHTTP1
import Testing

@Suite struct SampleFeedResponderTests {
    func responder(_ options: SampleFeedOptions = SampleFeedOptions()) throws -> SampleFeedResponder {
        let content = try SampleFeedContent(directory: TestSupport.fixtures, drift: SampleFeedDrift(seed: options.seed))
        return SampleFeedResponder(options: options, content: content, origin: 10_000)
    }

    func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }

    @Test func servesTheFeedsWithValidators() throws {
        let responder = try responder()
        let reply = responder.reply(method: .GET, uri: "/today.json", headers: [:], now: 10_005)
        guard case .full(let status, let headers, let body) = reply.kind else { Issue.record("expected a full reply"); return }
        #expect(status == .ok)
        #expect(body == (try TestSupport.fixtureBytes(.today)))
        #expect(headers.first(name: "etag")?.hasPrefix("\"") == true)
        #expect(headers.first(name: "last-modified") == HTTPDate.format(10_000))
        #expect(reply.delay == 0 && reply.fault == nil)
    }

    @Test func conditionalRequestsGet304() throws {
        let responder = try responder()
        guard case .full(_, let first, _) = responder.reply(method: .GET, uri: "/today.json", headers: [:], now: 10_005).kind,
              let etag = first.first(name: "etag"), let lastModified = first.first(name: "last-modified") else {
            Issue.record("no validators"); return
        }
        func status(_ pairs: [(String, String)], now: Double = 10_006) -> HTTPResponseStatus? {
            if case .full(let status, _, _) = responder.reply(method: .GET, uri: "/today.json", headers: headers(pairs), now: now).kind { return status }
            return nil
        }
        #expect(status([("If-None-Match", etag)]) == .notModified)
        #expect(status([("If-None-Match", "\"other\", W/\(etag)")]) == .notModified)
        #expect(status([("If-None-Match", "*")]) == .notModified)
        #expect(status([("If-None-Match", "\"other\"")]) == .ok)
        #expect(status([("If-None-Match", "\"other\""), ("If-Modified-Since", lastModified)]) == .ok, "If-None-Match decides when present")
        #expect(status([("If-Modified-Since", lastModified)]) == .notModified)
        #expect(status([("If-Modified-Since", HTTPDate.format(9_999))]) == .ok)
        #expect(status([("If-None-Match", etag)], now: 10_031) == .ok, "a new epoch is a new body")
        #expect(status([("If-Modified-Since", lastModified)], now: 10_031) == .ok)
    }

    @Test func routesHealthAndUnknownPaths() throws {
        let responder = try responder()
        if case .full(let status, _, let body) = responder.reply(method: .GET, uri: "/health", headers: [:], now: 0).kind {
            #expect(status == .ok && body == Array("ok\n".utf8))
        } else { Issue.record("health") }
        if case .full(let status, _, _) = responder.reply(method: .GET, uri: "/other.json", headers: [:], now: 0).kind {
            #expect(status == .notFound)
        } else { Issue.record("404") }
        if case .full(let status, _, _) = responder.reply(method: .POST, uri: "/today.json", headers: [:], now: 0).kind {
            #expect(status == .methodNotAllowed)
        } else { Issue.record("405") }
        if case .full(let status, _, _) = responder.reply(method: .GET, uri: "/today.json?fault=bogus", headers: [:], now: 0).kind {
            #expect(status == .badRequest)
        } else { Issue.record("400") }
    }

    @Test func faultsFromQueryAndOptions() throws {
        let responder = try responder(SampleFeedOptions(fault: .status(503), delay: 0.25))
        let reply = responder.reply(method: .GET, uri: "/today.json", headers: [:], now: 0)
        #expect(reply.statusCode == 503 && reply.delay == 0.25)
        let overridden = responder.reply(method: .GET, uri: "/today.json?fault=drop&delay=1.5", headers: [:], now: 0)
        #expect(overridden.statusCode == 0 && overridden.delay == 1.5)
        let delayed = responder.reply(method: .GET, uri: "/today.json?fault=delay%3D2", headers: [:], now: 0)
        #expect(delayed.statusCode == 200 && delayed.delay == 2.25)
        if case .full(.found, let headers, _) = responder.reply(method: .GET, uri: "/today.json?fault=redirectloop", headers: [:], now: 0).kind {
            #expect(headers.first(name: "location") == "/today.json?fault=redirectloop")
        } else { Issue.record("redirect") }
        if case .full(.ok, _, let body) = responder.reply(method: .GET, uri: "/tomorrow.json?fault=badrecords", headers: [:], now: 0).kind {
            let parsed = try OnXFeed.parse(body)
            #expect(parsed.stations.count == 178 && parsed.errors.count == 4)
        } else { Issue.record("badrecords") }
    }

    @Test func errorRateIsSeededAndRoughlyThatRate() throws {
        func run(seed: UInt64) throws -> [String] {
            let responder = try responder(SampleFeedOptions(seed: seed, errorRate: 0.3))
            return (0..<400).map { _ in responder.reply(method: .GET, uri: "/today.json", headers: [:], now: 0).fault?.description ?? "-" }
        }
        let faults = try run(seed: 3)
        #expect(faults == (try run(seed: 3)))
        #expect(faults != (try run(seed: 4)))
        let rate = Double(faults.filter { $0 != "-" }.count) / Double(faults.count)
        #expect(rate > 0.2 && rate < 0.4)
        #expect(Set(faults).count == 6, "every transient fault kind occurs")
    }

    @Test(arguments: [("500", SampleFeedFault.status(500)), ("404", .status(404)), ("delay=2.5", .delay(2.5)), ("delay:1", .delay(1)),
                      ("slow", .slow(nil)), ("slow=3", .slow(3)), ("truncate", .truncate), ("drop", .drop), ("notjson", .notJSON),
                      ("huge", .huge), ("badrecords", .badRecords), ("empty", .empty), ("RedirectLoop", .redirectLoop)])
    func faultSpellings(_ text: String, _ fault: SampleFeedFault) throws {
        #expect(try SampleFeedFault(parsing: text) == fault)
    }

    @Test(arguments: ["", "200", "600", "delay", "delay=x", "delay=-1", "slow=1e9", "teapot"])
    func badFaultSpellings(_ text: String) {
        #expect(throws: SampleFeedError.self) { try SampleFeedFault(parsing: text) }
    }
}
