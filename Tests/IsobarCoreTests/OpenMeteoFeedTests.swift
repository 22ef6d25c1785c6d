import Foundation
import Testing
@testable import IsobarCore

/// Open-Meteo forecast answers (Fixtures/feeds/openmeteo.json): current conditions and the
/// forecast of each grid point, units read per variable, local ISO times made UTC with the
/// answer's offset, Unix times as they are. Expected figures computed independently (Python).
@Suite struct OpenMeteoFeedTests {
    @Test func todayFromCurrentWithTheForecastInTheModelsUnits() throws {
        let (parsed, format) = try FeedFormat.auto.parse(TestSupport.fixture("feeds/openmeteo.json"), day: .today)
        #expect(format == .openmeteo)
        #expect(parsed.errors.isEmpty && parsed.warnings.isEmpty)
        #expect(parsed.stations.map(\.id) == ["48.7200,21.2600", "39.7385,-104.9848"])
        let kosice = try #require(parsed.stations.first)
        let details = try #require(kosice.details)
        // °C and km/h: 0.7 °C = 33.26 °F, 11.2 km/h = 6.959357 mph, gust 27.4 km/h = 17.025571 mph, 8400 m = 5.219518 mi.
        #expect(kosice.temperature == 33.26 && kosice.windSpeed == 6.959357 && kosice.windDirection == 225)
        #expect(details.windGust == 17.025571 && details.visibility == 5.219518 && details.dewPoint == 30.2 && details.feelsLike == 27.32)
        #expect(details.humidity == 87 && details.cloudCover == 100 && details.pressure == 1012.4 && details.uvIndex == 0.8)
        // Local 2026-11-26T09:30 at UTC+1 is 08:30 UTC; sunrise 07:05 local is 06:05 UTC.
        #expect(details.observedAt == 1_795_681_800 && details.sunrise == 1_795_673_100)
        #expect(details.summary == "Light snow" && details.icon == .snow && details.precipType == "snow")
        #expect(details.temperatureLow == 28.4 && details.temperatureHigh == 42.8)
        // 48 hours from the hour the current time falls in (local 09:00 = 08:00 UTC), 7 days.
        #expect(details.hourly.count == 48 && details.daily.count == 7)
        #expect(details.hourly[0] == ForecastPoint(time: 1_795_680_000, summary: "Snow", icon: .snow, temperature: 35.6, precipitation: 63,
                                                   precipType: "snow", windSpeed: 10.56331, windDirection: 245))
        #expect(kosice.precipitation == 63)
        #expect(details.daily[0].time == 1_795_647_600)
        // °F, mp/h and ft with unixtime: passed through (visibility 27559.1 ft = 5.219527 mi); a clear night.
        let denver = try #require(parsed.stations.last)
        #expect(denver.temperature == 31.5 && denver.windSpeed == 7 && denver.details?.visibility == 5.219527)
        #expect(denver.details?.icon == .clearNight && denver.details?.observedAt == 1_795_681_800)
        #expect(denver.details?.hourly.first?.time == 1_795_680_000 && denver.precipitation == 7)
    }

    @Test func tomorrowFromTheSecondDay() throws {
        let parsed = try OpenMeteoFeed.parse(TestSupport.fixture("feeds/openmeteo.json"), day: .tomorrow)
        let kosice = try #require(parsed.stations.first)
        #expect(kosice.temperature == 43.7 && kosice.details?.temperatureLow == 27.86 && kosice.windSpeed == 13.048795)
        #expect(kosice.windDirection == 260 && kosice.precipitation == 10 && kosice.details?.summary == "Snow")
        #expect(kosice.details?.daily.count == 7)
    }

    @Test func aBadAnswerIsRejectedAloneAndAnotherShapeRefused() throws {
        let good = #"{"latitude":1,"longitude":2,"current_units":{"temperature_2m":"°C"},"current":{"time":1795681800,"temperature_2m":10}}"#
        let body = "[" + [good,
                          #"{"error":true,"reason":"Latitude must be in range of -90 to 90°. Given: 91.0."}"#,
                          #"{"latitude":3,"longitude":4,"current_units":{"temperature_2m":"K"},"current":{"time":1,"temperature_2m":280}}"#,
                          #"{"latitude":5,"longitude":6,"current_units":{},"current":{"time":"26 Nov","temperature_2m":1}}"#,
                          #"{"latitude":7,"longitude":8,"hourly_units":{},"hourly":{"time":[1,2],"temperature_2m":[1]},"current":{"time":1}}"#,
        ].joined(separator: ",") + "]"
        let parsed = try OpenMeteoFeed.parse(Array(body.utf8))
        #expect(parsed.stations.map(\.id) == ["1.0000,2.0000"] && parsed.stations.first?.temperature == 50)
        #expect(parsed.errors.map(\.message) == [
            "record 1 rejected: error: Latitude must be in range of -90 to 90°. Given: 91.0.",
            #"record 2 rejected: current_units.temperature_2m "K" is not °C or °F"#,
            #"record 3 rejected: current.time "26 Nov" is not a local time (2026-11-26T09:00) nor Unix seconds"#,
            "record 4 rejected: hourly.temperature_2m has 1 values, fewer than hourly.time",
        ])
        #expect(throws: MessageError("feed body is not \(OpenMeteoFeed.expected): no element has its shape; keeping the previous snapshot")) {
            try OpenMeteoFeed.parse(Array(#"[{"latitude":1,"longitude":2,"currently":{}}]"#.utf8))
        }
    }
}
