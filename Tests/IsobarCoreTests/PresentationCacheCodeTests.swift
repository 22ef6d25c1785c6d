import Testing
@testable import IsobarCore

/// `ResolvedPresentation.cacheCode`: the annotation cache keys each stored annotation by it and the
/// answer heads index their presentation members by it, so two presentations sharing a code would
/// hand one client another's titles. Every combination of the four choices is checked.
@Suite struct PresentationCacheCodeTests {
    /// Every presentation there is, built from the enums' cases (not from the code's own tables).
    var every: [ResolvedPresentation] {
        Field.allCases.flatMap { field in
            Units.allCases.flatMap { units in
                WindUnit.allCases.flatMap { windUnit in
                    Locale.allCases.map { ResolvedPresentation(field: field, units: units, windUnit: windUnit, locale: $0) }
                }
            }
        }
    }

    @Test func everyCombinationHasItsOwnCodeInRange() {
        let codes = every.map(\.cacheCode)
        #expect(every.count == 4 * 2 * 3 * 2)
        #expect(Set(codes).count == every.count)
        #expect(codes.sorted() == Array(0..<every.count))
        #expect(ResolvedPresentation.cacheCodeCount == every.count)
    }

    @Test func theTablesByCodeHoldEachPresentationAndItsMembers() {
        for presentation in every {
            let code = presentation.cacheCode
            #expect(ResolvedPresentation.allByCacheCode[code] == presentation)
            var writer = JSONWriter()
            writer.objectStart()
            presentation.write(to: &writer)
            #expect(ResolvedPresentation.membersByCacheCode[code] == Array(writer.bytes.dropFirst()))
        }
        #expect(String(decoding: ResolvedPresentation.membersByCacheCode[ResolvedPresentation(field: .wind, units: .metric, windUnit: .knots, locale: .sk).cacheCode], as: UTF8.self)
                == #""field":"wind","units":"metric","windUnit":"knots","locale":"sk""#)
    }
}
