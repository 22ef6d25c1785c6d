import Foundation
import IsobarCore
import Logging
import IsobarStdio
import ServiceLifecycle
import Synchronization

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

/// Runs a set of processes, each a ``SupervisedProcess`` (restarted with capped exponential
/// backoff when it exits), prefixes every line they write (stdout and stderr) with their name on
/// our stderr, and on SIGINT/SIGTERM stops them in reverse order, each with its teardown sequence
/// (SIGTERM to its group, then after its `stopTimeout` SIGKILL for it and every process group its
/// descendants lead), and returns 0. A second signal kills them all at once. It is an async
/// swift-service-lifecycle `Service`: no thread and no lock of its own.
///
/// `onLine` sees every line a service writes, after it was copied, so `up` can react to what a child
/// says (the gateway's "listening" line) when it says it, instead of probing for it.
public final class Supervisor: Service, Sendable {
    private let services: [ServiceSpec]
    private let processes: [SupervisedProcess]
    private let logger: Logger
    /// Raised by the graceful shutdown (the first signal).
    private let stopRequested = Latch()
    /// Each process's supervision, once started.
    private let running = Mutex<[Task<Int32, Never>]>([])

    public init(services: [ServiceSpec], logger: Logger,
                onLine: @escaping @Sendable (_ service: String, _ line: UnsafeRawBufferPointer) -> Void = { _, _ in }) {
        self.services = services
        self.logger = logger
        let output = LineOutput.standardError
        processes = services.map { service in
            let prefix = Array("\(service.name) | ".utf8), name = service.name
            // The readiness file is up's own: its children must not write it.
            return SupervisedProcess(
                name: service.name, command: service.command, arguments: service.arguments,
                environment: [Readiness.fileVariable: ""],
                teardown: .init(terminateGrace: service.stopTimeout), logger: logger
            ) { _, event in
                guard case .line(let line) = event else { return }
                output.write(prefix + Array(line) + [0x0A])
                onLine(name, line)
            } flush: { _ in
                _ = output.flush()
            }
        }
    }

    /// Runs until a signal has stopped everything; returns the exit status (0).
    public func runUntilSignalled() async -> Int32 {
        await SignalledGroup.run(self, name: "up", logger: logger, stopBudget: nil) { [self] in
            logger.warning("stop requested again; killing everything")
            killAll()
        }
        return 0
    }

    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await startAll()
                await stopRequested.wait()
                logger.info("stop requested; stopping")
                await stop()
            } onGracefulShutdown: { [stopRequested] in
                stopRequested.raise()
            }
        } onCancel: { [self] in
            killAll()
        }
    }

    /// Starts every service in order (each after its `startDelay`, cut short by a stop) and
    /// announces readiness once each has been spawned. `run` calls it; tests call it with `stop`.
    func startAll() async {
        for (service, process) in zip(services, processes) {
            if service.startDelay > .zero { guard await stopRequested.sleep(for: service.startDelay) else { return } }
            guard !stopRequested.isRaised else { return }
            running.withLock { $0.append(Task { await process.run() }) }
            await process.waitUntilStarted()
        }
        if !stopRequested.isRaised {
            Readiness.announce(logger, "started \(services.map(\.name).joined(separator: ", "))")
        }
    }

    /// The pid of a service's current process, or nil while it is not running.
    func pid(of name: String) -> pid_t? {
        processes.first { $0.name == name }?.pid
    }

    /// Stops every service, last started first, each one's teardown over before the next begins.
    func stop() async {
        stopRequested.raise()
        let tasks = running.withLock { $0 }
        for (process, task) in zip(processes, tasks).reversed() {
            process.requestStop()
            _ = await task.value
        }
        for process in processes { process.requestStop() }
    }

    /// Kills every service and its descendants at once (a second signal).
    func killAll() {
        stopRequested.raise()
        for process in processes { process.kill() }
    }
}
