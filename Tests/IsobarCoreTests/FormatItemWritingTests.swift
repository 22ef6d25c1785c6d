import Testing
@testable import IsobarCore

/// The formatter's per-item shortcuts checked against the general code they stand for: the title
/// written in place (`TitleFormatter.writeTitle`) against the `title` string written by
/// `JSONWriter.string`, and the eight-bytes-at-a-time backslash/DEL search against a byte loop.
@Suite struct FormatItemWritingTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Temperatures around every rounding edge (halves both ways, -0.4 rounding to 0, the 1e15
    /// bound where the general spelling takes over) and missing values, in every presentation
    /// (field, units, wind unit, locale) and with every other value set or not.
    @Test func aTitleWrittenInPlaceIsTheTitleString() {
        let temperatures: [Double?] = [nil, 0, -0.0, 0.4, -0.4, 0.5, -0.5, 1.5, 2.5, -2.5, 31.99, 32, 46.4, -40, 99.5, 212,
                                        -459.67, 1e14 + 0.5, 999_999_999_999_999, 1e15, -1e15, 3e20]
        for presentation in ResolvedPresentation.allByCacheCode {
            let titles = TitleFormatter(presentation)
            for temperature in temperatures {
                for (speed, direction, chance, icon) in [(nil, nil, nil, nil), (6.9, 270.0, 40.0, WeatherIcon.rain)] as [(Double?, Double?, Double?, WeatherIcon?)] {
                    var inPlace = JSONWriter(), general = JSONWriter()
                    inPlace.opening(#"{"title":"#)
                    titles.writeTitle(temperature: temperature, windSpeed: speed, windDirection: direction, precipitation: chance,
                                      icon: icon, into: &inPlace)
                    inPlace.objectEnd()
                    general.opening(#"{"title":"#)
                    general.string(titles.title(temperature: temperature, windSpeed: speed, windDirection: direction,
                                                precipitation: chance, icon: icon))
                    general.objectEnd()
                    #expect(text(inPlace.bytes) == text(general.bytes), "\(presentation) \(String(describing: temperature))")
                }
            }
        }
    }

    @Test func aTemperatureTitleIsExactlyTheContractsText() {
        var out = JSONWriter()
        let titles = TitleFormatter(ResolvedPresentation())
        for value in [46.4, -0.4, 2.5, -2.5] {
            out.opening(#"{"title":"#)
            titles.writeTitle(temperature: value, windSpeed: nil, windDirection: nil, precipitation: nil, icon: nil, into: &out)
            out.objectEnd()
        }
        #expect(text(out.bytes) == #"{"title":"46°"},{"title":"0°"},{"title":"3°"},{"title":"-3°"}"#)
    }

    /// A backslash or a DEL at every position of strings up to 40 bytes long, in ranges starting at
    /// every offset (so the eight-byte words straddle them every way): found exactly when a byte
    /// loop finds one.
    @Test func backslashesAndDELsAreFoundAtEveryPosition() {
        let filler = Array("Crockett, Houston County Airport, TX, US éü".utf8)
        for special in [UInt8(ascii: "\\"), 0x7F, UInt8(ascii: "["), 0x7E, 0xFF] {
            for length in 0...40 {
                for offset in 0..<9 {
                    for position in [-1] + Array(0..<length) {
                        var bytes = Array(repeating: UInt8(ascii: "\\"), count: offset)  // outside the range: never found
                        var inside = Array(filler[0..<min(length, filler.count)]) + Array(repeating: UInt8(ascii: "a"), count: max(0, length - filler.count))
                        if position >= 0 { inside[position] = special }
                        bytes += inside + [0x7F]  // just past the range: never found
                        let range = offset..<(offset + length)
                        let expected = inside.contains { $0 == UInt8(ascii: "\\") || $0 == 0x7F }
                        let found = bytes.withUnsafeBytes { $0.hasBackslashOrDEL(in: range) }
                        #expect(found == expected, "special \(special) length \(length) offset \(offset) position \(position)")
                    }
                }
            }
        }
    }
}
