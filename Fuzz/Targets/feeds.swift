import IsobarCore

/// Fuzz target `feeds`: every feed parser on the same body, one line per format (FeedCheck lists
/// the invariants). One target rather than one per format: the formats share most of their
/// code (FeedBody, FeedValues, the JSON scanner), a body shaped for one is a good start for
/// another, and the test command builds and runs one binary instead of five.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeeds(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FeedCheck.run(data, size, format: "onX") { try OnXFeed.parse($0) }
    FeedCheck.run(data, size, format: "OpenWeather") { try OpenWeatherFeed.parse($0) }
    FeedCheck.run(data, size, format: "OpenWeather imperial") { try OpenWeatherFeed.parse($0, units: .imperial) }
    FeedCheck.run(data, size, format: "Dark Sky today") { try DarkSkyFeed.parse($0, day: .today) }
    FeedCheck.run(data, size, format: "Dark Sky tomorrow") { try DarkSkyFeed.parse($0, day: .tomorrow) }
    FeedCheck.run(data, size, format: "AirVisual") { try AirVisualFeed.parse($0) }
    FeedCheck.run(data, size, format: "auto") { try FeedFormat.auto.parse($0, day: .today).feed }
    return 0
}
