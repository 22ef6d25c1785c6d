import Testing
@testable import IsobarCore

/// The feed bad-input corpus: for each format, records with one fault each, put in a body beside a
/// good record. The bad record is rejected alone with one error (exact text) and the good one kept;
/// value faults that are not worth losing the station over give a warning instead.
@Suite struct FeedRecordFaultTests {
    struct Fault: Sendable, CustomTestStringConvertible {
        var kind: String
        var format: FeedFormat
        var record: String
        /// The whole error message, or nil when the record is kept with `warning`.
        var error: String?
        var warning: String?
        var testDescription: String { "\(format.rawValue): \(kind)" }
    }

    static let openWeatherGood = #"{"coord":{"lon":17.1,"lat":48.1},"main":{"temp":280},"id":1,"name":"Good"}"#
    static let darkSkyGood = #"{"latitude":10,"longitude":20,"currently":{"time":1,"temperature":50},"daily":{"data":[{"time":0},{"time":86400}]}}"#
    static let airVisualGood = #"{"status":"success","data":{"city":"G","state":"S","country":"C","location":{"coordinates":[1,2]},"current":{"weather":{"tp":10}}}}"#

    static func ow(_ record: String) -> String { "{\"cnt\":2,\"list\":[\(openWeatherGood),\(record)]}" }

    static let faults: [Fault] = [
        // OpenWeather
        Fault(kind: "ow-missing-id", format: .openweather, record: #"{"coord":{"lon":1,"lat":2}}"#, error: #"missing required field "id""#),
        Fault(kind: "ow-id-string", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":"7"}"#, error: #"field "id" must be a number, found the string "7""#),
        Fault(kind: "ow-id-fraction", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":7.5}"#, error: #"field "id" must be an integer"#),
        Fault(kind: "ow-duplicate-id", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":1}"#, error: #"duplicate station id "1"; kept the first"#),
        Fault(kind: "ow-missing-coord", format: .openweather, record: #"{"id":2}"#, error: #"missing required field "coord""#),
        Fault(kind: "ow-coord-array", format: .openweather, record: #"{"coord":[1,2],"id":2}"#, error: #"field "coord" must be an object, found an array"#),
        Fault(kind: "ow-lat-out-of-range", format: .openweather, record: #"{"coord":{"lon":1,"lat":95},"id":2}"#, error: "latitude 95.0 is outside [-90, 90]"),
        Fault(kind: "ow-lon-out-of-range", format: .openweather, record: #"{"coord":{"lon":-181,"lat":5},"id":2}"#, error: "longitude -181.0 is outside [-180, 180]"),
        Fault(kind: "ow-temp-string", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"main":{"temp":"280"}}"#, error: #"field "temp" must be a number, found the string "280""#),
        Fault(kind: "ow-main-null-is-fine", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"main":null}"#),
        Fault(kind: "ow-weather-object", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"weather":{"id":800}}"#, error: #"field "weather" must be an array, found an object"#),
        Fault(kind: "ow-weather-first-not-object", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"weather":[800]}"#, error: "weather[0] must be an object, found a number"),
        Fault(kind: "ow-humidity-over-100", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"main":{"humidity":140}}"#, warning: "main.humidity 140 is outside 0...100; clamped to 100"),
        Fault(kind: "ow-negative-wind", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"wind":{"speed":-3}}"#, warning: "wind.speed -6.710809 is negative; treated as unknown"),
        Fault(kind: "ow-wind-deg-400", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"wind":{"deg":400}}"#, warning: "wind.deg 400.0 is outside 0...360; treated as unknown"),
        Fault(kind: "ow-pop-over-1", format: .openweather, record: #"{"coord":{"lon":1,"lat":2},"id":2,"pop":1.5}"#, warning: "pop 1.5 is outside 0...1; clamped to 1"),
        Fault(kind: "ow-not-an-object", format: .openweather, record: #""London""#, error: nil),
        // Dark Sky
        Fault(kind: "ds-missing-latitude", format: .darksky, record: #"{"longitude":1,"currently":{}}"#, error: #"missing required field "latitude""#),
        Fault(kind: "ds-latitude-out-of-range", format: .darksky, record: #"{"latitude":-91,"longitude":1,"currently":{}}"#, error: "latitude -91.0 is outside [-90, 90]"),
        Fault(kind: "ds-missing-currently", format: .darksky, record: #"{"latitude":1,"longitude":1,"daily":{"data":[]}}"#, error: #"missing required field "currently" (today's conditions)"#),
        Fault(kind: "ds-currently-array", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":[]}"#, error: #"field "currently" must be an object, found an array"#),
        Fault(kind: "ds-unknown-units", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{},"flags":{"units":"metric"}}"#, error: #"flags.units "metric" is not one of "us", "si", "ca", "uk2""#),
        Fault(kind: "ds-daily-data-object", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{},"daily":{"data":{}}}"#, error: "daily.data must be an array, found an object"),
        Fault(kind: "ds-hourly-point-not-object", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{},"hourly":{"data":[3]}}"#, error: "hourly.data[0] is a number, not an object"),
        Fault(kind: "ds-hourly-point-without-time", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{},"hourly":{"data":[{"temperature":3}]}}"#, error: #"a forecast point has no "time""#),
        Fault(kind: "ds-temperature-bool", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{"temperature":true}}"#, error: #"field "temperature" must be a number, found a boolean"#),
        Fault(kind: "ds-same-location-twice", format: .darksky, record: #"{"latitude":10,"longitude":20,"currently":{}}"#, error: #"duplicate station id "10.0000,20.0000"; kept the first"#),
        Fault(kind: "ds-humidity-over-1", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{"humidity":1.2}}"#, warning: "humidity 1.2 is outside 0...1; clamped to 1"),
        Fault(kind: "ds-probability-negative", format: .darksky, record: #"{"latitude":1,"longitude":1,"currently":{"precipProbability":-0.1}}"#, warning: "precipProbability -0.1 is outside 0...1; clamped to 0"),
        // AirVisual
        Fault(kind: "av-status-fail", format: .airvisual, record: #"{"status":"fail","data":{"message":"city_not_found"}}"#, error: #"status "fail": city_not_found"#),
        Fault(kind: "av-missing-city", format: .airvisual, record: #"{"status":"success","data":{"state":"S","country":"C"}}"#, error: #"missing required field "city""#),
        Fault(kind: "av-empty-country", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":""}}"#, error: #"field "country" must not be empty"#),
        Fault(kind: "av-coordinates-one-number", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[1]}}}"#, error: "location.coordinates must hold two numbers [longitude, latitude], found 1"),
        Fault(kind: "av-coordinates-strings", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":["1","2"]}}}"#, error: "location.coordinates must hold two numbers [longitude, latitude]"),
        Fault(kind: "av-coordinates-swapped-out-of-range", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[2,100]}}}"#, error: "latitude 100.0 is outside [-90, 90]"),
        Fault(kind: "av-missing-weather", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[1,2]},"current":{}}}"#, error: #"missing required field "weather""#),
        Fault(kind: "av-bad-timestamp", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[1,2]},"current":{"weather":{"ts":"2019-02-30T01:00:00.000Z"}}}}"#, error: #"current.weather.ts "2019-02-30T01:00:00.000Z" is not an ISO 8601 UTC time (2019-08-04T01:00:00.000Z)"#),
        Fault(kind: "av-timestamp-number", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[1,2]},"current":{"weather":{"ts":1565000000}}}}"#, error: #"field "ts" must be a string, found a number"#),
        Fault(kind: "av-negative-wind", format: .airvisual, record: #"{"status":"success","data":{"city":"X","state":"S","country":"C","location":{"coordinates":[1,2]},"current":{"weather":{"ws":-1}}}}"#, warning: "ws -2.236936 is negative; treated as unknown"),
    ]

    static func body(_ fault: Fault) -> String {
        switch fault.format {
        case .openweather: ow(fault.record)
        case .darksky: "[\(darkSkyGood),\(fault.record)]"
        default: "[\(airVisualGood),\(fault.record)]"
        }
    }

    @Test(arguments: faults)
    func eachFaultyRecordIsRejectedAlone(_ fault: Fault) throws {
        let parsed = try fault.format.parse(Array(Self.body(fault).utf8), day: .today).feed
        if let warning = fault.warning {
            #expect(parsed.stations.count == 2 && parsed.errors.isEmpty)
            #expect(parsed.warnings.map(\.message) == [warning])
        } else if let error = fault.error {
            #expect(parsed.stations.count == 1 && parsed.warnings.isEmpty)
            #expect(parsed.errors.map(\.message) == ["record 1 rejected: " + error])
            #expect(parsed.errors.first?.excerpt == String(fault.record.prefix(80)))
        } else if fault.kind.hasSuffix("is-fine") {
            #expect(parsed.stations.count == 2 && parsed.errors.isEmpty && parsed.warnings.isEmpty)
        } else {
            #expect(parsed.stations.count == 1)
            #expect(parsed.errors.map(\.message) == ["record 1 is a string, not an object"])
        }
    }

    @Test func theCorpusHasMoreThanTwentyFiveKinds() {
        #expect(Set(Self.faults.map(\.kind)).count == Self.faults.count)
        #expect(Self.faults.count >= 25)
    }

    @Test func aBodyWithNoValidRecordIsRefused() {
        #expect(throws: MessageError("feed has no valid station record (1 rejected); keeping the previous snapshot")) {
            try AirVisualFeed.parse(Array(#"{"status":"fail","data":{"message":"call_limit_reached"}}"#.utf8))
        }
        #expect(throws: MessageError("feed body is an empty array; keeping the previous snapshot")) { try DarkSkyFeed.parse(Array("[]".utf8)) }
    }

    @Test func timestamps() {
        #expect(ISOTimestamp.unixSeconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISOTimestamp.unixSeconds("2026-11-23T19:00:00.000Z") == 1795460400)
        #expect(ISOTimestamp.unixSeconds("2024-02-29T12:00:00.5Z") == 1709208000.5)
        #expect(ISOTimestamp.unixSeconds("2023-02-29T12:00:00Z") == nil)
        #expect(ISOTimestamp.unixSeconds("2026-11-23 19:00:00Z") == nil)
        #expect(ISOTimestamp.unixSeconds("2026-11-23T19:00:00+01:00") == nil)
    }
}
