import Testing
@testable import IsobarCore

/// Every conversion factor, with exact expected doubles (computed independently in Python 3).
@Suite struct UnitFactorsTests {
    @Test func temperatures() {
        #expect(UnitFactors.fahrenheit(kelvin: 273.15) == 32)
        #expect(UnitFactors.fahrenheit(kelvin: 373.15) == 212)
        #expect(UnitFactors.fahrenheit(kelvin: 0) == -459.66999999999996)
        #expect(UnitFactors.fahrenheit(kelvin: 280.32) == 44.90600000000003)
        #expect(UnitFactors.fahrenheit(celsius: 100) == 212)
        #expect(UnitFactors.fahrenheit(celsius: -40) == -40)
        #expect(UnitFactors.celsius(fahrenheit: 212) == 100)
        #expect(UnitFactors.celsius(fahrenheit: 46.4) == 8)
    }

    @Test func speeds() {
        #expect(UnitFactors.mph(metersPerSecond: 0.44704) == 1)
        #expect(UnitFactors.mph(metersPerSecond: 20) == 44.73872584108805)
        #expect(UnitFactors.mph(kilometersPerHour: 1.609344) == 1)
        #expect(UnitFactors.mph(kilometersPerHour: 100) == 62.13711922373339)
        #expect(UnitFactors.mph(knots: 1) == 1.1507794480235425)
        #expect(UnitFactors.kilometersPerHour(mph: 10) == 16.09344)
        #expect(UnitFactors.knots(mph: 10) == 8.68976241900648)
    }

    @Test func distancesAndPressure() {
        #expect(UnitFactors.miles(meters: 1609.344) == 1)
        #expect(UnitFactors.miles(meters: 5000) == 3.1068559611866697)
        #expect(UnitFactors.miles(kilometers: 10) == 6.2137119223733395)
        #expect(UnitFactors.kilometers(miles: 10) == 16.09344)
        #expect(UnitFactors.inchesOfMercury(hectopascals: 1013.25) == 29.921255579748475)
        #expect(UnitFactors.hectopascals(inchesOfMercury: 29.92) == 1013.2074811900272)
    }

    @Test func convertedFeedValuesAreRoundedToSixDecimals() {
        let standard = OpenWeatherFeed.Units.standard.feedUnits
        #expect(standard.fahrenheit(280.32) == 44.906)
        #expect(standard.mph(4.1) == 9.171439)
        #expect(standard.miles(10_000) == 6.213712)
        #expect(OpenWeatherFeed.Units.imperial.feedUnits.fahrenheit(78.8) == 78.8)
    }
}
