import IsobarCore
import Testing
@testable import IsobarHost

/// The supervisor logic `isobar up` and `isobar plug` share, without processes: a child is an Int.
@Suite struct SupervisedCommandTests {
    typealias Command = SupervisedCommand<Int>
    let t0 = ContinuousClock.now

    func child(of command: Command) -> Int? { command.currentChild }

    /// Begins a start and spawns `child`: whether it counts as running.
    func run(_ command: inout Command, _ child: Int) -> Bool {
        command.beginStart() && command.started(child, at: t0)
    }

    func isBackingOff(_ command: Command) -> Bool {
        if case .backingOff = command.state { return true }
        return false
    }

    func stoppedCode(_ command: Command) -> Int32? {
        if case .stopped(let code) = command.state { return code }
        return nil
    }

    @Test func crashLoopBacksOffDoublingAndAHealthyRunResets() {
        var command = Command(backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(1), healthyAfter: .seconds(10)))
        var delays: [Duration] = []
        for n in 0..<6 {
            let running = run(&command, n)
            #expect(running)
            #expect(child(of: command) == n)
            guard case .restart(let delay) = command.exited(status: 1, ranFor: .milliseconds(5), at: t0) else {
                Issue.record("no restart")
                return
            }
            #expect(isBackingOff(command) && child(of: command) == nil)
            delays.append(delay)
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(command.restarts == 6)
        _ = run(&command, 9)
        let afterHealthyRun = command.exited(status: 0, ranFor: .seconds(11), at: t0)
        #expect(afterHealthyRun == .restart(after: .milliseconds(100)))
    }

    @Test func withRestartsOffTheExitStatusIsTheResult() {
        var command = Command(restart: false)
        _ = run(&command, 1)
        let after = command.exited(status: 3, ranFor: .seconds(1), at: t0)
        #expect(after == .finish(exitCode: 3))
        #expect(stoppedCode(command) == 3)
        let startsAgain = command.beginStart()
        #expect(!startsAgain)
        var unstartable = Command(restart: false)
        _ = unstartable.beginStart()
        let failed = unstartable.failedToStart(at: t0)
        #expect(failed == .finish(exitCode: 127))
    }

    @Test func aCommandThatCannotStartIsRetriedWithBackoff() {
        var command = Command(backoff: Backoff(initial: .milliseconds(50)))
        var results: [SupervisedCommand<Int>.AfterExit] = []
        for _ in 0..<2 {
            _ = command.beginStart()
            results.append(command.failedToStart(at: t0))
        }
        #expect(results == [.restart(after: .milliseconds(50)), .restart(after: .milliseconds(100))])
    }

    @Test func firstStopStopsInOrderSecondKills() {
        var command = Command()
        _ = run(&command, 7)
        guard case .stopInOrder(7) = command.requestStop() else { Issue.record("not stopped in order"); return }
        #expect(command.isShuttingDown && child(of: command) == 7)  // the input side still closes its stdin
        guard case .kill(7) = command.requestStop() else { Issue.record("second request did not kill"); return }
        // Its exit while stopping restarts nothing, and no start begins any more.
        let after = command.exited(status: 143, ranFor: .seconds(1), at: t0)
        #expect(after == .stop)
        let startsAgain = command.beginStart()
        #expect(child(of: command) == nil && !startsAgain)
        guard case .none = command.requestStop() else { Issue.record("nothing left to stop"); return }
        command.finish(exitCode: 0)
        #expect(stoppedCode(command) == 0)
    }

    @Test func stopDuringBackoffOrStartStartsNothing() {
        var backingOff = Command()
        _ = run(&backingOff, 1)
        _ = backingOff.exited(status: 1, ranFor: .zero, at: t0)
        guard case .none = backingOff.requestStop() else { Issue.record("nothing runs"); return }
        let startsAgain = backingOff.beginStart()
        #expect(!startsAgain)

        // A stop while the child was being spawned: the child is handed back to be stopped at once.
        var spawning = Command()
        _ = spawning.beginStart()
        _ = spawning.requestStop()
        let counted = spawning.started(5, at: t0)
        #expect(!counted)
        #expect(child(of: spawning) == 5 && spawning.isShuttingDown)
    }

    @Test func killStopsWhateverRuns() {
        var command = Command()
        _ = run(&command, 4)
        guard case .kill(4) = command.kill() else { Issue.record("not killed"); return }
        #expect(command.isShuttingDown)
        var idle = Command()
        guard case .none = idle.kill() else { Issue.record("nothing to kill"); return }
        let startsAgain = idle.beginStart()
        #expect(!startsAgain)
    }
}
