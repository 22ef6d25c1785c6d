import Foundation
import IsobarCore
import Logging
import IsobarStdio

/// One process `isobar up` runs and keeps running.
public struct ServiceSpec: Sendable, Equatable {
    public var name: String
    public var command: String
    public var arguments: [String]
    /// Wait this long after starting the previous service (lets subscriptions settle).
    public var startDelay: Duration
    /// How long its stop may take after SIGTERM before it is killed (with its descendants' process
    /// groups). For a plug: its own `stopBudget` and a second more, so the plug always finishes
    /// its ordered stop first.
    public var stopTimeout: Duration

    public init(name: String, command: String, arguments: [String], startDelay: Duration = .zero,
                stopTimeout: Duration = ServiceSpec.defaultStopTimeout) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.startDelay = startDelay
        self.stopTimeout = stopTimeout
    }

    /// For a process that is not a plug (broker, gateway, sample feed): enough for the gateway's
    /// 2 s WebSocket close handshake.
    public static let defaultStopTimeout: Duration = .seconds(5)

    /// For `isobar plug` with default options.
    public static let plugStopTimeout: Duration = PlugOptions(command: "").stopBudget + .seconds(1)
}

/// Runs a set of processes, restarts each with capped exponential backoff when it exits, prefixes
/// every line they write (stdout and stderr) with their name on our stderr, and on SIGINT/SIGTERM
/// stops them in reverse order (SIGTERM, then after each one's `stopTimeout` SIGKILL for it and
/// every process group its descendants lead) and returns 0. A second signal kills them all at once.
/// It runs as a `BlockingService` in a swift-service-lifecycle `ServiceGroup`, like every
/// long-running isobar process.
public final class Supervisor: @unchecked Sendable {
    // @unchecked: `commands` is only touched under `lock`.

    private let services: [ServiceSpec]
    private let logger: Logger
    private let lock = NSLock()
    /// Each service's lifecycle (the supervisor logic `isobar plug` uses too), by name.
    private var commands: [String: SupervisedCommand<ChildProcess>]
    private let stopped = DispatchSemaphore(value: 0)
    private let logOutput = LineOutput.standardError

    public init(services: [ServiceSpec], logger: Logger) {
        self.services = services
        self.logger = logger
        commands = Dictionary(services.map { ($0.name, SupervisedCommand<ChildProcess>()) }, uniquingKeysWith: { first, _ in first })
    }

    /// Runs `body` on a service's lifecycle under the lock (nil for an unknown name).
    private func withCommand<T>(_ name: String, _ body: (inout SupervisedCommand<ChildProcess>) -> T) -> T? {
        lock.withLock {
            guard var command = commands[name] else { return nil }
            defer { commands[name] = command }
            return body(&command)
        }
    }

    /// Starts everything and returns when a signal has stopped it all.
    public func run() async -> Int32 {
        let service = BlockingService(name: "up", body: { [self] in
            startAll()
            stopped.wait()
            return 0
        }, stop: { [self] in
            logger.info("stop requested; stopping")
            stop()
        }, kill: { [self] in
            logger.warning("stop requested again; killing everything")
            killAll()
        })
        return await service.runUntilSignalled(logger: logger)
    }

    /// Starts every service in order (each after its `startDelay`) and announces readiness; returns
    /// at once if a stop began meanwhile. `run` calls it; tests call it with `stop`.
    func startAll() {
        for service in services {
            if service.startDelay > .zero { Thread.sleep(forTimeInterval: service.startDelay.timeInterval) }
            guard start(service) else { break }
        }
        if lock.withLock({ !commands.values.contains { $0.isShuttingDown } }) {
            Readiness.announce(logger, "started \(services.map(\.name).joined(separator: ", "))")
        }
    }

    /// The pid of a service's current process, or nil while it is not running.
    func pid(of name: String) -> pid_t? {
        lock.withLock { commands[name]?.currentChild?.pid }
    }

    /// Starts a service unless a stop began (then returns false).
    @discardableResult
    private func start(_ service: ServiceSpec) -> Bool {
        guard withCommand(service.name, { $0.beginStart() }) == true else { return false }
        let started = ContinuousClock.now
        do {
            // The readiness file is up's own: its children must not write it.
            let child = try ChildProcess.spawn(command: service.command, arguments: service.arguments,
                                               environment: [Readiness.fileVariable: ""]) { [weak self] exit in
                self?.exited(service, exit: exit, ranFor: ContinuousClock.now - started)
            }
            child.stdin.close()
            guard withCommand(service.name, { $0.started(child, at: started) }) == true else {
                // A stop began while it was being spawned: it never counts as running.
                child.killTree()
                return false
            }
            pump(child.stdout, name: service.name)
            pump(child.stderr, name: service.name)
            logger.info("started \(service.name) (pid \(child.pid))")
        } catch {
            logger.error("cannot start \(service.name): \(error)")
            exited(service, exit: .exited(code: 127), ranFor: .zero)
        }
        return true
    }

    private func exited(_ service: ServiceSpec, exit: ChildProcessExit, ranFor: Duration) {
        guard case .restart(let delay) = withCommand(service.name, { $0.exited(status: exit.shellStatus, ranFor: ranFor, at: .now) })
        else { return }
        logger.warning("\(service.name) \(exit); restarting in \(delay)")
        Thread.detachNewThread { [weak self] in
            Thread.sleep(forTimeInterval: delay.timeInterval)
            self?.start(service)
        }
    }

    /// Copies a child's output to our stderr, one line at a time, prefixed with its name.
    private func pump(_ pipe: ChildProcessPipe, name: String) {
        let output = logOutput
        let prefix = Array("\(name) | ".utf8)
        Thread.detachNewThread {
            var splitter = LineSplitter(maxLineLength: 64 * 1024)
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { raw in (try? pipe.read(into: raw)) ?? 0 }
                if n <= 0 { break }
                buffer.withUnsafeBytes { raw in
                    splitter.append(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { event in
                        if case .line(let line) = event { output.write(prefix + Array(line) + [0x0A]) }
                    }
                }
                output.flush()
            }
            pipe.close()
        }
    }

    /// Stops every service, last started first.
    public func stop() {
        let running: [(ServiceSpec, ChildProcess)] = lock.withLock {
            services.reversed().compactMap { service in
                guard case .stopInOrder(let child)? = commands[service.name]?.requestStop() else { return nil }
                return (service, child)
            }
        }
        for (service, child) in running {
            child.send(signal: SIGTERM)
            if child.waitForExit(timeout: service.stopTimeout) == nil {
                logger.warning("\(service.name) did not stop in \(service.stopTimeout); killing it and its descendants")
                child.killTree()
                _ = child.waitForExit(timeout: .seconds(2))
            }
        }
        finishAll()
    }

    /// Kills every service and its descendants at once (a second signal).
    func killAll() {
        let running: [ChildProcess] = lock.withLock {
            services.compactMap { service in
                guard case .kill(let child)? = commands[service.name]?.kill() else { return nil }
                return child
            }
        }
        for child in running { child.killTree() }
        for child in running { _ = child.waitForExit(timeout: .seconds(2)) }
        finishAll()
    }

    private func finishAll() {
        lock.withLock {
            for name in commands.keys { commands[name]?.finish(exitCode: 0) }
        }
        stopped.signal()
    }
}
