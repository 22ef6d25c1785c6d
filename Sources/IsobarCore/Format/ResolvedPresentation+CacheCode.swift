extension ResolvedPresentation {
    /// Each choice's cases in declaration order, read once (`allCases` builds a new array per call).
    private static let fields = Array(Field.allCases)
    private static let unitSystems = Array(Units.allCases)
    private static let windUnits = Array(WindUnit.allCases)
    private static let locales = Array(Locale.allCases)

    /// How many presentations there are: the product of the four choices' case counts.
    static let cacheCodeCount = fields.count * unitSystems.count * windUnits.count * locales.count

    /// Every presentation, at the index of its ``cacheCode``.
    static let allByCacheCode: [ResolvedPresentation] = {
        var all = Array(repeating: ResolvedPresentation(), count: cacheCodeCount)
        for field in fields {
            for units in unitSystems {
                for windUnit in windUnits {
                    for locale in locales {
                        let presentation = ResolvedPresentation(field: field, units: units, windUnit: windUnit, locale: locale)
                        all[presentation.cacheCode] = presentation
                    }
                }
            }
        }
        return all
    }()

    /// A number naming this presentation, in `0..<cacheCodeCount` and different for every
    /// combination (the annotation cache's key part, the index of the answer heads' presentation
    /// members): the four choices' case positions as the digits of a mixed radix whose bases are
    /// the enums' case counts, so a case added to any of them widens the numbering instead of
    /// making two presentations share a code (`PresentationCacheCodeTests`).
    var cacheCode: Int {
        var code = Self.position(field, in: Self.fields)
        code = code * Self.unitSystems.count + Self.position(units, in: Self.unitSystems)
        code = code * Self.windUnits.count + Self.position(windUnit, in: Self.windUnits)
        return code * Self.locales.count + Self.position(locale, in: Self.locales)
    }

    @inline(__always)
    private static func position<T: Equatable>(_ value: T, in cases: [T]) -> Int {
        cases.firstIndex(of: value) ?? 0
    }

    /// `"field":…,"units":…,"windUnit":…,"locale":…` (the members `write(to:)` writes) for every
    /// presentation, at its ``cacheCode``: an answer's head copies them (`JSONWriter.raw` puts the
    /// comma before them).
    static let membersByCacheCode: [[UInt8]] = allByCacheCode.map { presentation in
        var writer = JSONWriter()
        writer.objectStart()
        presentation.write(to: &writer)
        return Array(writer.bytes.dropFirst())
    }
}
