import IsobarCore
import Testing
@testable import IsobarHost

@Test func backoffDoublesUpToTheCap() {
    var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1), healthyAfter: .seconds(10))
    let delays = (0..<6).map { _ in backoff.nextDelay(afterRunningFor: .milliseconds(5)) }
    #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    #expect(backoff.nextDelay(afterRunningFor: .seconds(11)) == .milliseconds(100))
}
