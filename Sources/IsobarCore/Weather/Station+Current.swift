/// A station's current values only: its details without the hourly and daily forecast, for the
/// answers that show the weather now (`ambient`, a city list entry) and would otherwise carry
/// 56 forecast points nobody reads.
extension Station {
    public var current: Station {
        guard let details, !(details.hourly.isEmpty && details.daily.isEmpty) else { return self }
        var copy = self
        copy.details = StationDetails(
            feelsLike: details.feelsLike, temperatureLow: details.temperatureLow, temperatureHigh: details.temperatureHigh,
            humidity: details.humidity, pressure: details.pressure, dewPoint: details.dewPoint, visibility: details.visibility,
            uvIndex: details.uvIndex, windGust: details.windGust, cloudCover: details.cloudCover, summary: details.summary,
            icon: details.icon, precipType: details.precipType, sunrise: details.sunrise, sunset: details.sunset,
            observedAt: details.observedAt)
        return copy
    }
}
