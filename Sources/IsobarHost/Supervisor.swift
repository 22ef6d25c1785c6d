import Foundation
import IsobarCore
import Logging

/// One process `isobar up` runs and keeps running.
public struct ServiceSpec: Sendable, Equatable {
    public var name: String
    public var command: String
    public var arguments: [String]
    /// Wait this long after starting the previous service (lets subscriptions settle).
    public var startDelay: Duration

    public init(name: String, command: String, arguments: [String], startDelay: Duration = .zero) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.startDelay = startDelay
    }
}

/// Runs a set of processes, restarts each with capped exponential backoff when it exits, prefixes
/// every line they write (stdout and stderr) with their name on our stderr, and on SIGINT/SIGTERM
/// stops them in reverse order (SIGTERM, then SIGKILL after a grace period) and returns 0.
public final class Supervisor: @unchecked Sendable {
    // @unchecked: `state`, `children` and `backoffs` are only touched under `lock`.
    private enum State { case running, stopping }

    private let services: [ServiceSpec]
    private let logger: Logger
    private let lock = NSLock()
    private var state = State.running
    private var children: [String: ChildProcess] = [:]
    private var backoffs: [String: Backoff] = [:]
    private let stopped = DispatchSemaphore(value: 0)
    private let logOutput = LineOutput(fd: 2)
    public var terminateGrace: Duration = .seconds(3)

    public init(services: [ServiceSpec], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Starts everything and blocks until a signal stops it.
    public func run() throws -> Int32 {
        let watcher = try SignalWatcher { [weak self] signal in
            self?.logger.info("up: \(SignalWatcher.name(of: signal)) received, stopping")
            self?.stop()
        }
        _ = watcher
        for service in services {
            if service.startDelay > .zero { Thread.sleep(forTimeInterval: service.startDelay.seconds) }
            if lock.withLock({ state == .stopping }) { break }
            start(service)
        }
        stopped.wait()
        return 0
    }

    private func start(_ service: ServiceSpec) {
        let started = ContinuousClock.now
        do {
            let child = try ChildProcess.spawn(command: service.command, arguments: service.arguments) { [weak self] exit in
                self?.exited(service, exit: exit, ranFor: ContinuousClock.now - started)
            }
            child.stdin.close()
            lock.withLock { children[service.name] = child }
            pump(child.stdout, name: service.name)
            pump(child.stderr, name: service.name)
            logger.info("up: started \(service.name) (pid \(child.pid))")
        } catch {
            logger.error("up: cannot start \(service.name): \(error)")
            exited(service, exit: .exited(code: 127), ranFor: .zero)
        }
    }

    private func exited(_ service: ServiceSpec, exit: ChildProcessExit, ranFor: Duration) {
        let delay: Duration? = lock.withLock {
            children[service.name] = nil
            guard state == .running else { return nil }
            var backoff = backoffs[service.name] ?? Backoff()
            let delay = backoff.nextDelay(afterRunningFor: ranFor)
            backoffs[service.name] = backoff
            return delay
        }
        guard let delay else { return }
        logger.warning("up: \(service.name) \(exit); restarting in \(delay)")
        Thread.detachNewThread { [weak self] in
            Thread.sleep(forTimeInterval: delay.seconds)
            guard let self, self.lock.withLock({ self.state == .running }) else { return }
            self.start(service)
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
        let running: [(String, ChildProcess)] = lock.withLock {
            state = .stopping
            return services.reversed().compactMap { service in children[service.name].map { (service.name, $0) } }
        }
        for (name, child) in running {
            child.send(signal: SIGTERM)
            if child.waitForExit(timeout: terminateGrace) == nil {
                logger.warning("up: \(name) did not stop in \(terminateGrace); killing it")
                child.send(signal: SIGKILL)
                _ = child.waitForExit(timeout: .seconds(2))
            }
        }
        stopped.signal()
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
