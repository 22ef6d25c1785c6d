#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// A child that ends when the process that started it ends. Every command ``ProcessLaunch`` spawns
/// gets `ISOBAR_PARENT_PID` (the spawner's pid) in its environment; an `isobar` process that finds
/// it watches that process and sends itself SIGTERM (its ordinary graceful stop) when it ends.
///
/// Why: each stage leads a process group of its own, so a `plug` host or `up` killed with SIGKILL
/// left its children running, re-parented to init. A stage that reads stdin ends at its EOF, but a
/// source does not: an orphaned `fetch` kept polling its upstream API for good (doubling the
/// requests after `up` restarted the plug and its new `fetch`), and nothing ever stopped it.
///
/// The watch is a pidfd (Linux 5.3+) that becomes readable when the parent ends, waited on by a
/// thread of its own with no timeout. The variable is removed from this process's environment at
/// once, so a program this one starts by other means never inherits a pid that is not its
/// parent's; a process whose parent is not the named one (an `isobar` started by a plug's shell
/// script that inherited it) ignores it, unless the named process is gone, which means that its
/// parent already ended before it could look.
public enum ParentWatch {
    /// The variable ``ProcessLaunch`` sets for each command it spawns.
    public static let environmentKey = "ISOBAR_PARENT_PID"

    /// What a process does with the variable.
    public enum Decision: Equatable, Sendable {
        /// No variable, or not a pid: nothing.
        case none
        /// The named process is alive and is not this one's parent: the variable is not for it.
        case notOurs
        /// The named process is this one's parent: watch it.
        case watch(pid_t)
        /// The named process is gone: the parent ended before this process could watch it.
        case parentGone(pid_t)
    }

    /// The decision for `value` (the variable's text), given this process's parent and whether a
    /// process with the named pid exists.
    public static func decide(_ value: String?, parent: pid_t, isAlive: (pid_t) -> Bool) -> Decision {
        guard let value, let pid = pid_t(value), pid > 1 else { return .none }
        if pid == parent { return .watch(pid) }
        return isAlive(pid) ? .notOurs : .parentGone(pid)
    }

    /// A pidfd for `pid` (readable once it has ended), or -1 with errno set: glibc's `pidfd_open`
    /// (2.36+, Linux 5.3+), looked up at run time because Swift's Glibc module does not declare it
    /// (and cannot call the variadic `syscall`). Without it, ENOSYS.
    public static func openDescriptor(of pid: pid_t) -> Int32 {
        guard let pidfdOpen else {
            errno = ENOSYS
            return -1
        }
        return pidfdOpen(pid, 0)
    }

    /// glibc's `int pidfd_open(pid_t, unsigned int)`, if this glibc has it.
    private static let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
    }()

    /// Reads and removes the variable; watches the parent it names, or stops now if that parent
    /// is gone. Call once, first thing in `main`.
    public static func start(logger: Logger = Logger(label: "isobar")) {
        let value = getenv(environmentKey).map { String(cString: $0) }
        unsetenv(environmentKey)
        /// Stops this process the way SIGTERM always does, saying why.
        @Sendable func stop(parentEnded pid: pid_t) {
            logger.notice("the process that started this one (pid \(pid)) has ended; stopping")
            _ = kill(getpid(), SIGTERM)
        }
        switch decide(value, parent: getppid(), isAlive: { kill($0, 0) == 0 || errno == EPERM }) {
        case .none, .notOurs:
            return
        case .parentGone(let pid):
            stop(parentEnded: pid)
        case .watch(let pid):
            let descriptor = openDescriptor(of: pid)
            guard descriptor >= 0 else {
                logger.warning("cannot watch the process that started this one (pid \(pid)): pidfd_open: \(String(cString: strerror(errno)))")
                return
            }
            // A pidfd opened after the parent ended would refer to whichever process reused its
            // pid; checked again now that it is open: still our parent, or gone already.
            guard getppid() == pid else {
                close(descriptor)
                stop(parentEnded: pid)
                return
            }
            let thread = Thread {
                var item = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                while poll(&item, 1, -1) < 0 && errno == EINTR {}
                close(descriptor)
                stop(parentEnded: pid)
            }
            thread.name = "isobar-parent-watch"
            thread.start()
        }
    }
}
