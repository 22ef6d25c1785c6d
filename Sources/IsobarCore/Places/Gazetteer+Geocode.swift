/// Forward geocoding: a query -> places ranked by match kind (``PlaceMatch``: exact, prefix, word
/// prefix), then population (larger first), then the smaller geonameid. Names and queries are
/// compared folded as the station search folds them (``NameFolding``: case, diacritics and script
/// ignored), against each place's name and every alternate name.
extension Gazetteer {
    public static let defaultLimit = 10
    public static let maxLimit = 100

    /// A ranked hit.
    public struct Hit: Sendable, Equatable {
        public var place: Place
        public var match: PlaceMatch
    }

    /// The places matching `query`, best first, at most `limit`.
    ///
    /// `country` (an ISO code or an English country name) and `state` (a US state's code or name;
    /// implies the US) restrict the hits. Without them, a query of the form `NAME, QUALIFIER`
    /// (`springfield, il`, `paris, france`) is read as NAME in that US state, else in that country,
    /// the first reading with a hit winning; if neither gives one, the comma is just a separator.
    /// Returns nil when `country` or `state` names nothing known.
    public func geocode(_ query: String, country: String? = nil, state: String? = nil,
                        limit: Int = Gazetteer.defaultLimit) -> [Hit]? {
        var countryCode: UInt16?
        var stateCode: String?
        if let state {
            guard let code = Self.stateCode(state) else { return nil }
            stateCode = code
            countryCode = Self.packCountry("US")
        }
        if let country {
            guard let code = Self.countryCode(country).flatMap(Self.packCountry) else { return nil }
            if let countryCode, countryCode != code { return [] }
            countryCode = code
        }
        if countryCode == nil, let comma = query.lastIndex(of: ",") {
            let head = String(query[..<comma]), tail = String(query[query.index(after: comma)...])
            if let code = Self.stateCode(tail) {
                let hits = search(head, country: Self.packCountry("US"), state: code, limit: limit)
                if !hits.isEmpty { return hits }
            }
            if let code = Self.countryCode(tail).flatMap(Self.packCountry) {
                let hits = search(head, country: code, state: nil, limit: limit)
                if !hits.isEmpty { return hits }
            }
        }
        return search(query, country: countryCode, state: stateCode, limit: limit)
    }

    func search(_ query: String, country: UInt16?, state: String?, limit: Int) -> [Hit] {
        guard limit > 0 else { return [] }
        var best: [UInt32: PlaceMatch] = [:]
        let latin = NameFolding.fold(query)
        var forms = [latin]
        if !query.utf8.allSatisfy({ $0 < 0x80 }) {
            let kept = Self.foldKeepingScript(query)
            if kept != latin { forms.append(kept) }
        }
        for folded in forms where !folded.isEmpty {
            names.forEachMatch(of: folded) { row, match in
                if let country, countryCodes[Int(row)] != country { return }
                if let state, admin1Codes[Int(admin1[Int(row)])] != state { return }
                if let current = best[row], current <= match { return }
                best[row] = match
            }
        }
        let ranked = best.sorted { a, b in
            if a.value != b.value { return a.value < b.value }
            let pa = populations[Int(a.key)], pb = populations[Int(b.key)]
            if pa != pb { return pa > pb }
            return ids[Int(a.key)] < ids[Int(b.key)]
        }
        return ranked.prefix(limit).map { Hit(place: place(row: Int($0.key)), match: $0.value) }
    }

    /// The ISO code of a country given by code (any case) or English name (folded), or nil.
    public static func countryCode(_ text: String) -> String? {
        let folded = NameFolding.fold(text)
        guard !folded.isEmpty else { return nil }
        if folded.count == 2 {
            let code = String(decoding: folded, as: UTF8.self).uppercased()
            if PlaceNames.countries[code] != nil { return code }
        }
        return foldedCountries[folded]
    }

    /// The GeoNames admin-1 code of a US state given by code (any case) or name (folded), or nil.
    public static func stateCode(_ text: String) -> String? {
        let folded = NameFolding.fold(text)
        guard !folded.isEmpty else { return nil }
        if folded.count == 2 {
            let code = String(decoding: folded, as: UTF8.self).uppercased()
            if PlaceNames.usStates[code] != nil { return code }
        }
        return foldedStates[folded]
    }

    private static let foldedCountries: [[UInt8]: String] = {
        var table: [[UInt8]: String] = [:]
        for (code, name) in PlaceNames.countries { table[NameFolding.fold(name)] = code }
        return table
    }()

    private static let foldedStates: [[UInt8]: String] = {
        var table: [[UInt8]: String] = [:]
        for (code, name) in PlaceNames.usStates { table[NameFolding.fold(name)] = code }
        return table
    }()
}
