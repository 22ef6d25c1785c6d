import Foundation
import IsobarCore
import Testing
@testable import IsobarClient

/// The client's reconnection waits: quick (50-300 ms) right after losing a connection that was
/// up, so a restarted gateway has its clients back within a second; the jittered exponential
/// backoff before the first connection and after the quick window.
@Suite struct ReconnectScheduleTests {
    static func schedule() -> ReconnectSchedule {
        ReconnectSchedule(backoff: Backoff(initial: .milliseconds(250), maximum: .seconds(15)), quickWindow: .seconds(5))
    }

    @Test func quickRightAfterALostConnection() {
        var schedule = Self.schedule()
        schedule.connected()
        // Every attempt within the window: the draw spread over 50...300 ms, however many failed.
        let waits = (0..<20).map { schedule.next(sinceLost: .milliseconds(200 * $0), jitter: Double($0 % 5) / 4) }
        #expect(waits.prefix(5) == [0.05, 0.1125, 0.175, 0.2375, 0.3])
        #expect(waits.allSatisfy { (0.05...0.3).contains($0) })
        #expect(schedule.slowFailures == 0)
    }

    @Test func backoffBeforeTheFirstConnectionAndAfterTheWindow() {
        var schedule = Self.schedule()
        // Never connected: 250 ms, 500 ms, 1 s, 2 s ceilings (the draw at its top).
        #expect((0..<4).map { _ in schedule.next(sinceLost: nil, jitter: 1) } == [0.25, 0.5, 1, 2])
        // Connected, then lost for longer than the window: the backoff starts over from 250 ms.
        schedule.connected()
        #expect(schedule.next(sinceLost: .seconds(1), jitter: 1) == 0.3)
        #expect(schedule.next(sinceLost: .seconds(5), jitter: 1) == 0.25)
        #expect(schedule.next(sinceLost: .seconds(6), jitter: 0.5) == 0.25)
        #expect(schedule.next(sinceLost: .seconds(7), jitter: .nan) == 0)
    }
}
