extension Duration {
    /// Whole milliseconds, rounded up so a short positive timeout never becomes "don't wait",
    /// clamped to what libzmq's `long`/`int` timeouts accept.
    var zmqMilliseconds: Int {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        if millis.overflow || millis.partialValue > Int64(Int32.max) { return Int(Int32.max) }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(min(millis.partialValue + fraction, Int64(Int32.max)))
    }
}
