#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// A stage ends when the process that started it ends (`ParentWatch`), even when that process is
/// killed with SIGKILL and the stage leads a process group of its own: before, a `plug` host killed
/// that way left its command running for good, re-parented to init.
@Suite(.serialized, .processSlot) struct ParentWatchTests {
    /// Whether `pid` ends within `seconds`, waited on through a pidfd (it is not this process's child).
    static func ends(_ pid: pid_t, within seconds: Int32) -> Bool {
        let descriptor = ParentWatch.openDescriptor(of: pid)
        guard descriptor >= 0 else { return errno == ESRCH }
        defer { close(descriptor) }
        var item = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32 = -1
        repeat { ready = poll(&item, 1, seconds * 1000) } while ready < 0 && errno == EINTR
        return ready == 1
    }

    /// `sample-feed` never reads stdin, so only the watch can end it once its plug is gone.
    @Test func aStageWhosePlugIsKilledEnds() async throws {
        let broker = try await RunningBroker.start()
        defer { broker.process.signal(SIGKILL) }
        let fixtures = ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path
        let plug = try await broker.startPlug(["--name", "feed", "--", ProcessHarness.isobarBinary, "sample-feed", "--port", "0",
                                               "--drift", "off", "--fixtures", fixtures])
        defer { plug.signal(SIGKILL) }
        let stage = try #require(await plug.waitForChildPIDs(timeout: .seconds(10)).first, "\(plug.stderrText)")
        #expect(ProcessHarness.commandLine(stage).contains("sample-feed"))
        // Alive while its plug is: the watch does not end it early.
        #expect(!Self.ends(stage, within: 2))
        plug.signal(SIGKILL)
        let ended = Self.ends(stage, within: 10)
        if !ended { kill(stage, SIGKILL) }
        #expect(ended, "the plug's stage \(stage) still runs 10 s after its plug was killed")
    }
}
