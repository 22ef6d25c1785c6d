import IsobarCore
import IsobarNet
import Testing

@Suite struct FeedPollerTests {
    let etag = ConditionalValidators(etag: "\"a\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")

    @Test func firstFetchIsDueAtOnceAndUnconditional() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        #expect(poller.state == .idle)
        #expect(poller.secondsUntilDue(now: 0) == 0)
        #expect(poller.begin().isEmpty)
        #expect(poller.state == .fetching(attempt: 1))
    }

    @Test func newContentIsPublishedAndItsValidatorsSentNextTime() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        _ = poller.begin()
        #expect(poller.complete(.content(snapshotID: "s1", validators: etag), now: 100, jitter: 0.5) == .publish(retryIn: 60))
        #expect(poller.state == .waiting(until: 160))
        #expect(poller.secondsUntilDue(now: 130) == 30)
        #expect(poller.snapshotID == "s1")
        let sent = poller.begin()
        #expect(sent == etag)
        #expect(sent.requestHeaders.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        #expect(sent.requestHeaders.map(\.value) == ["\"a\"", "Sun, 06 Nov 1994 08:49:37 GMT"])
    }

    @Test func notModifiedAndSameContentAreUnchanged() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        _ = poller.begin()
        _ = poller.complete(.content(snapshotID: "s1", validators: etag), now: 0, jitter: 0)
        _ = poller.begin()
        #expect(poller.complete(.notModified, now: 60, jitter: 0) == .unchanged(recovered: false, retryIn: 60))
        _ = poller.begin()
        let other = ConditionalValidators(etag: "\"b\"")
        #expect(poller.complete(.content(snapshotID: "s1", validators: other), now: 120, jitter: 0) == .unchanged(recovered: false, retryIn: 60))
        #expect(poller.validators == other, "a new ETag for the same content is remembered")
        _ = poller.begin()
        #expect(poller.complete(.content(snapshotID: "s2", validators: other), now: 180, jitter: 0) == .publish(retryIn: 60))
    }

    @Test func failuresBackOffExponentiallyAndKeepTheLastGoodState() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(8)))
        _ = poller.begin()
        _ = poller.complete(.content(snapshotID: "s1", validators: etag), now: 0, jitter: 0)
        var retries: [Double] = []
        for attempt in 1...6 {
            #expect(poller.begin() == etag, "validators of the last good body are kept through failures")
            #expect(poller.state == .fetching(attempt: attempt))
            let decision = poller.complete(.failed(reason: "HTTP 500"), now: 100, jitter: 1)
            guard case .failed(let reason, let reported, let retryIn) = decision else {
                Issue.record("expected a failure, got \(decision)")
                return
            }
            #expect(reason == "HTTP 500")
            #expect(reported == attempt)
            #expect(poller.state == .backingOff(attempt: attempt, until: 100 + retryIn))
            retries.append(retryIn)
        }
        #expect(retries == [1, 2, 4, 8, 8, 8])
        #expect(poller.snapshotID == "s1")
        _ = poller.begin()
        #expect(poller.complete(.notModified, now: 200, jitter: 1) == .unchanged(recovered: true, retryIn: 60))
        #expect(poller.failures == 0)
        _ = poller.begin()
        guard case .failed(_, 1, _) = poller.complete(.failed(reason: "x"), now: 300, jitter: 1) else {
            Issue.record("a success resets the attempt count")
            return
        }
    }

    @Test func badBodyDoesNotUpdateValidators() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        _ = poller.begin()
        _ = poller.complete(.content(snapshotID: "s1", validators: etag), now: 0, jitter: 0)
        _ = poller.begin()
        _ = poller.complete(.failed(reason: "feed body is an empty array"), now: 60, jitter: 0)
        #expect(poller.validators == etag)
    }

    @Test func notModifiedWithoutAnEarlierCopyIsAFailure() {
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        _ = poller.begin()
        guard case .failed(let reason, 1, _) = poller.complete(.notModified, now: 0, jitter: 0) else {
            Issue.record("a 304 with nothing kept cannot be a success")
            return
        }
        #expect(reason.contains("304"))
    }
}
