#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarHost

/// The test harness's spawner: a command started with `posix_spawnp` (never through a shell), with
/// its stdin, stdout and stderr connected to pipes held by this process, waited for on a thread.
///
/// Why not `OneShotProcess`, the product's way: swift-subprocess schedules part of every run on the
/// shared concurrency pool (an unstructured task), and the process tests are synchronous: each
/// blocks a pool thread in its waits, two at once on a two-core machine block the whole pool,
/// and a run's end is then never delivered (seen: ConformanceRunnerTests stalled 120 s). The
/// harness needs a spawner that needs no pool thread; the product's processes all use
/// `OneShotProcess`/`SupervisedProcess`.
///
/// - The child starts with an empty signal mask and every signal at its default disposition, whatever
///   this process blocks or ignores (plug ignores SIGPIPE; a stage must still die of it if it wants).
/// - It runs in its own process group, so a Ctrl-C on the terminal reaches only the supervisor, which
///   then stops the child in order (close stdin, grace period, SIGTERM, SIGKILL).
/// - A dedicated thread waits for it (`waitpid`) and calls `onExit` once, so nothing polls and no
///   zombie is left behind.
///
/// `@unchecked Sendable`: the pid and pipes never change after `spawn`; the exit status is guarded by
/// `condition`.
final class HarnessChild: @unchecked Sendable {
    /// The child's process id.
    let pid: pid_t
    /// The command as given, and its arguments (without the command itself).
    let command: String
    let arguments: [String]
    /// Write end of the child's stdin.
    let stdin: ChildProcessPipe
    /// Read end of the child's stdout.
    let stdout: ChildProcessPipe
    /// Read end of the child's stderr.
    let stderr: ChildProcessPipe

    private let condition = NSCondition()
    private var exitStatus: ChildProcessExit?

    private init(pid: pid_t, command: String, arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) {
        self.pid = pid
        self.command = command
        self.arguments = arguments
        self.stdin = ChildProcessPipe(fd: stdin)
        self.stdout = ChildProcessPipe(fd: stdout)
        self.stderr = ChildProcessPipe(fd: stderr)
    }

    /// Starts `command` (searched in `PATH` if it contains no `/`) with `arguments`, inheriting this
    /// process's environment. `onExit` runs once, on the waiter thread, after the child has been reaped.
    ///
    /// `environment`, when given, is added to (and overrides) this process's environment for the
    /// child (the test harness runs `isobar` with its own endpoints this way).
    static func spawn(
        command: String,
        arguments: [String],
        environment: [String: String] = [:],
        onExit: @escaping @Sendable (ChildProcessExit) -> Void = { _ in }
    ) throws(HarnessSpawnError) -> HarnessChild {
        // Every pipe end is made close-on-exec so later children never inherit (and hold open) these
        // pipes; the child's ends are dup2'ed onto 0/1/2, which clears close-on-exec for it alone.
        // `spawnLock` keeps another thread's spawn out of the gap between pipe() and fcntl() (the
        // tests start processes from many threads at once; Swift's Glibc has no pipe2).
        spawnLock.lock()
        defer { spawnLock.unlock() }
        let stdinPipe = try makePipe(command)
        let stdoutPipe = try makePipe(command)
        let stderrPipe = try makePipe(command)
        let childEnds = [stdinPipe.read, stdoutPipe.write, stderrPipe.write]
        let parentEnds = [stdinPipe.write, stdoutPipe.read, stderrPipe.read]
        defer { for fd in childEnds { _ = close(fd) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe.write, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaultSignals = sigset_t()
        sigfillset(&defaultSignals)
        sigdelset(&defaultSignals, SIGKILL)
        sigdelset(&defaultSignals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv: [UnsafeMutablePointer<CChar>?] = ([command] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }

        var envp: [UnsafeMutablePointer<CChar>?] = []
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (key, value) in environment { merged[key] = value }
            envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let rc = envp.isEmpty
            ? posix_spawnp(&pid, command, &actions, &attributes, argv, environ)
            : posix_spawnp(&pid, command, &actions, &attributes, argv, envp)
        if rc != 0 {
            for fd in parentEnds { _ = close(fd) }
            throw HarnessSpawnError(command: command, operation: "posix_spawnp", errno: rc)
        }

        let child = HarnessChild(
            pid: pid, command: command, arguments: arguments,
            stdin: stdinPipe.write, stdout: stdoutPipe.read, stderr: stderrPipe.read)
        let waiter = Thread {
            let status = child.reap()
            onExit(status)
        }
        waiter.name = "isobar-wait-\(pid)"
        waiter.start()
        return child
    }

    /// Blocks in `waitpid` until the child ends, records the status and wakes `waitForExit` callers.
    private func reap() -> ChildProcessExit {
        var status: Int32 = 0
        var exit: ChildProcessExit
        while true {
            let rc = waitpid(pid, &status, 0)
            if rc == pid {
                exit = (status & 0x7F) == 0 ? .exited(code: (status >> 8) & 0xFF) : .signaled(signal: status & 0x7F)
                break
            }
            if rc < 0 && errno == EINTR { continue }
            // ECHILD: someone else reaped it (should not happen); report it as gone without a status.
            exit = .signaled(signal: 0)
            break
        }
        condition.lock()
        exitStatus = exit
        condition.broadcast()
        condition.unlock()
        return exit
    }

    /// How the child ended, or nil while it runs.
    var exit: ChildProcessExit? {
        condition.lock()
        defer { condition.unlock() }
        return exitStatus
    }

    /// Waits up to `timeout` (nil: forever) for the child to end; returns its status, or nil on timeout.
    func waitForExit(timeout: Duration?) -> ChildProcessExit? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date().addingTimeInterval($0.timeInterval) }
        while exitStatus == nil {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        return exitStatus
    }

    /// Sends `signal` to the child (not to its process group), unless it has already been reaped, so the
    /// pid can never hit an unrelated process that reused it.
    func send(signal: Int32) {
        condition.lock()
        defer { condition.unlock() }
        if exitStatus == nil { _ = kill(pid, signal) }
    }

    /// Sends `signal` to the child's whole process group (it leads one of its own: its pid), so a
    /// stage's own children (a shell pipeline, a worker) get it too. Unlike `send`, this also
    /// reaches what is left of the group after the child itself has been reaped; Linux does not
    /// give a pid to a new process while a group of that id still has members.
    func sendToGroup(signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// SIGKILL for the child's process group and, first, for every process group led by one of its
    /// descendants (found through `/proc/PID/task/*/children`): a supervisor that must kill a plug
    /// at once kills the plug's stage (which plug put in a group of its own) with it, instead of
    /// leaving it orphaned and still running.
    func killTree() {
        // The descendants are listed first (once the child is gone they are re-parented and out
        // of its /proc lists); the child's own group is killed next, so the child ends by the
        // signal rather than on its own when its children die; then the others' groups.
        let descendants = OneShotProcess.descendants(of: pid)
        condition.lock()
        if exitStatus == nil { _ = kill(-pid, SIGKILL); _ = kill(pid, SIGKILL) }
        condition.unlock()
        for descendant in descendants { _ = kill(-descendant, SIGKILL); _ = kill(descendant, SIGKILL) }
    }

    /// Held while pipes are made and the child is spawned (see `spawn`).
    private static let spawnLock = NSLock()

    /// A pipe, both ends close-on-exec (the supervised command's stdin is made this way too).
    static func makePipe(_ command: String) throws(HarnessSpawnError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { throw HarnessSpawnError(command: command, operation: "pipe", errno: errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }
}

/// Starting a harness child failed.
struct HarnessSpawnError: Error, CustomStringConvertible {
    let command: String
    let operation: String
    let errno: Int32

    var description: String {
        "cannot start '\(command)': \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
