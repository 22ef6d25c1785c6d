extension Duration {
    /// Seconds as a `Double` (Foundation's `TimeInterval`), for Foundation's and Dispatch's waits
    /// (`Thread.sleep`, `Date().addingTimeInterval`, `DispatchTime.now() + …`) and arithmetic on
    /// Unix times. The one such conversion in the project; IsobarBus keeps its own for libzmq,
    /// rounded up to whole milliseconds.
    public var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
