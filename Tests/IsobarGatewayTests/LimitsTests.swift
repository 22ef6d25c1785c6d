@testable import IsobarGateway
import IsobarCore
import Testing

@Suite struct TokenBucketTests {
    @Test func burstThenRate() {
        var bucket = TokenBucket(rate: 10, burst: 5, strikeLimit: 100, now: 0)
        var taken: [Bool] = []
        for _ in 0..<6 { taken.append(bucket.take(now: 0)) }
        taken.append(bucket.take(now: 0.05))  // half a token
        taken.append(bucket.take(now: 0.1))   // one token refilled
        taken.append(bucket.take(now: 0.1))
        for _ in 0..<6 { taken.append(bucket.take(now: 10)) }  // refill is capped at the burst
        #expect(taken == [true, true, true, true, true, false, false, true, false, true, true, true, true, true, false])
    }

    @Test func persistentFloodingExhaustsOccasionalDoesNot() {
        var occasional = TokenBucket(rate: 10, burst: 2, strikeLimit: 5, now: 0)
        var t = 0.0
        for _ in 0..<100 {  // 3 at once every 0.3 s: one over each time, then back under
            for _ in 0..<3 { _ = occasional.take(now: t) }
            t += 0.3
        }
        #expect(!occasional.exhausted)
        var flood = TokenBucket(rate: 10, burst: 2, strikeLimit: 5, now: 0)
        for n in 0..<100 { _ = flood.take(now: Double(n) * 0.01) }  // 100/s against 10/s
        #expect(flood.exhausted)
    }
}

@Suite struct LeaseBookTests {
    func reference(_ clients: [(String, Int, Int)]) -> LeaseDigest {
        var digest = LeaseDigest()
        for (client, ref, version) in clients { digest.toggle(LeaseDigest.entry(client: client, ref: ref, version: version)) }
        return digest
    }

    @Test func digestFollowsEveryChange() {
        var book = LeaseBook()
        #expect(book.digest == LeaseDigest() && book.count == 0)
        book.add("alice")
        book.add("bob")
        #expect(book.digest == reference([("alice", 0, 0), ("bob", 0, 0)]))
        #expect(book.nextRef("alice") == 1)
        #expect(book.nextRef("alice") == 2)
        book.relayed("alice", version: 7)
        book.relayed("bob", version: 3)
        #expect(book.digest == reference([("alice", 2, 7), ("bob", 0, 3)]))
        book.relayed("alice", version: 1)  // a restarted filter starts again at 1
        #expect(book.version(of: "alice") == 1)
        book.remove("bob")
        #expect(book.digest == reference([("alice", 2, 1)]) && book.count == 1)
        book.remove("alice")
        #expect(book.digest == LeaseDigest() && book.count == 0)
        #expect(book.nextRef("ghost") == 0)
    }

    /// Issue 27 item 9: a formatter killed between the filter and the gateway loses diff N; diff
    /// N+1 must not make the gateway's digest equal the filter's again (the client would stay wrong).
    @Test func aDiffAfterALostOneRecordsZeroUntilAFullSet() {
        var book = LeaseBook()
        book.add("alice")
        book.relayed("alice", version: 1, full: true)
        book.relayed("alice", version: 2, full: false)
        #expect(book.version(of: "alice") == 2)
        book.relayed("alice", version: 2, full: false)  // the same message again: nothing lost
        #expect(book.version(of: "alice") == 2)
        book.relayed("alice", version: 4, full: false)  // 3 was lost
        #expect(book.version(of: "alice") == 0)
        #expect(book.digest == reference([("alice", 0, 0)]))
        book.relayed("alice", version: 5, full: false)  // a later diff does not hide the loss
        #expect(book.version(of: "alice") == 0)
        book.relayed("alice", version: 6, full: true)  // the filter's answer to the resend
        #expect(book.version(of: "alice") == 6)
        book.relayed("alice", version: 1, full: true)  // a restarted filter starts again at 1
        #expect(book.version(of: "alice") == 1)
    }

    @Test func leadingNumbersReadBooleansAsOneAndZero() {
        let line = Array(#"{"type":"annotations","client":"a","version":12,"full":false,"day":"today","ageSeconds":3,"upsert":[]}"#.utf8)
        #expect(JSONLeadingNumbers.read(line, ["version", "ageSeconds", "full"]) == [12, 3, 0])
        let full = Array(#"{"version":1,"full":true}"#.utf8)
        #expect(JSONLeadingNumbers.read(full, ["full", "version"]) == [1, 1])
    }

    @Test func randomChangesMatchARecomputation() {
        var book = LeaseBook()
        var model: [String: (ref: Int, version: Int)] = [:]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let name = "c\(Int.random(in: 0..<20, using: &rng))"
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: book.add(name); if model[name] == nil { model[name] = (0, 0) }
            case 1: book.remove(name); model[name] = nil
            case 2:
                let ref = book.nextRef(name)
                if var entry = model[name] {
                    entry.ref += 1
                    model[name] = entry
                    #expect(ref == entry.ref)
                }
            default:
                let v = Int.random(in: 0..<50, using: &rng)
                book.relayed(name, version: v)
                if var entry = model[name] {
                    entry.version = v
                    model[name] = entry
                }
            }
        }
        #expect(book.digest == reference(model.map { ($0.key, $0.value.ref, $0.value.version) }))
        #expect(book.count == model.count)
    }
}

@Suite struct StaticFilesTests {
    @Test func plainRelativePathsResolve() {
        #expect(StaticFiles.resolve(root: "Web", relative: "isobar.js") == "Web/isobar.js")
        #expect(StaticFiles.resolve(root: "/usr/share/javascript/leaflet/", relative: "images/marker-icon.png")
                == "/usr/share/javascript/leaflet/images/marker-icon.png")
        #expect(StaticFiles.resolve(root: "Web", relative: "MarkerCluster.Default.css") == "Web/MarkerCluster.Default.css")
    }

    @Test(arguments: ["../etc/passwd", "a/../../etc/passwd", "..", ".", "./x", "%2e%2e/x", "a//b", "/etc/passwd",
                      ".hidden", "a\\..\\b", "a\u{0}b", "", "x/", "a b"])
    func traversalAndOddPathsAreRefused(relative: String) {
        #expect(StaticFiles.resolve(root: "Web", relative: relative) == nil)
    }

    @Test func contentTypes() {
        #expect(StaticFiles.contentType(for: "Web/index.html") == "text/html; charset=utf-8")
        #expect(StaticFiles.contentType(for: "a/leaflet.js") == "text/javascript; charset=utf-8")
        #expect(StaticFiles.contentType(for: "leaflet.css") == "text/css; charset=utf-8")
        #expect(StaticFiles.contentType(for: "images/layers.PNG") == "image/png")
        #expect(StaticFiles.contentType(for: "countries.geojson") == "application/geo+json")
        #expect(StaticFiles.contentType(for: "README") == "application/octet-stream")
    }
}
