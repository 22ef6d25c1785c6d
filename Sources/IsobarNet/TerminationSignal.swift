#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import IsobarHost

/// Waits for SIGINT or SIGTERM, so the long-running commands (`fetch`, `sample-feed`) can stop their
/// work and exit 0 instead of being killed mid-write.
///
/// Dispatch signal sources deliver the signal as an ordinary callback (no code runs in the signal
/// handler itself); the default disposition is set to ignore first, as Dispatch requires, which also
/// means a second signal during shutdown does not kill the process half-way.
public enum TerminationSignal {
    /// Suspends until SIGINT or SIGTERM arrives and returns its number; returns 0 if the waiting
    /// task is cancelled first.
    public static func wait() async -> Int32 {
        let box = SignalBox()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            _ = signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { box.deliver(number) }
            source.resume()
            sources.append(source)
        }
        let number = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
                box.install(continuation)
            }
        } onCancel: {
            box.deliver(0)
        }
        for source in sources { source.cancel() }
        return number
    }

    /// A short name for log lines.
    public static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}

/// Hands the first signal to the waiting continuation, whichever of the two arrives first.
private final class SignalBox: @unchecked Sendable {
    // @unchecked: `continuation` and `pending` are only touched with `lock` held.
    private let lock = NSLockLike()
    private var continuation: CheckedContinuation<Int32, Never>?
    private var pending: Int32?
    private var done = false

    func install(_ continuation: CheckedContinuation<Int32, Never>) {
        let ready: Int32? = lock.withLock {
            if let pending { done = true; return pending }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func deliver(_ number: Int32) {
        let waiting: CheckedContinuation<Int32, Never>? = lock.withLock {
            guard !done else { return nil }
            guard let continuation else {
                if pending == nil { pending = number }
                return nil
            }
            done = true
            self.continuation = nil
            return continuation
        }
        waiting?.resume(returning: number)
    }
}
