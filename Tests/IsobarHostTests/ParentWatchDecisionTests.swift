#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import IsobarHost

/// What a process does with `ISOBAR_PARENT_PID` (`ParentWatch.decide`): watch its parent, ignore a
/// pid that is not its parent's and still lives, stop when the named parent is already gone.
struct ParentWatchDecisionTests {
    @Test func eachCaseOfTheVariable() {
        let alive: Set<pid_t> = [400, 500]
        let isAlive: (pid_t) -> Bool = { alive.contains($0) }
        #expect(ParentWatch.decide(nil, parent: 400, isAlive: isAlive) == .none)
        #expect(ParentWatch.decide("", parent: 400, isAlive: isAlive) == .none)
        #expect(ParentWatch.decide("4x", parent: 400, isAlive: isAlive) == .none)
        #expect(ParentWatch.decide("1", parent: 1, isAlive: isAlive) == .none)
        #expect(ParentWatch.decide("-400", parent: 400, isAlive: isAlive) == .none)
        #expect(ParentWatch.decide("400", parent: 400, isAlive: isAlive) == .watch(400))
        // Started by another program (a plug's shell script) that inherited the variable.
        #expect(ParentWatch.decide("500", parent: 400, isAlive: isAlive) == .notOurs)
        // Re-parented (to init or a subreaper) before it looked: its parent has ended.
        #expect(ParentWatch.decide("600", parent: 1, isAlive: isAlive) == .parentGone(600))
    }
}
