import Foundation

extension Duration {
    /// Seconds as a `TimeInterval`, for Foundation's and Dispatch's waits (`Thread.sleep`,
    /// `Date().addingTimeInterval`, `DispatchTime.now() + …`). The one conversion IsobarHost uses;
    /// IsobarBus has its own, rounded up to whole milliseconds for libzmq.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
