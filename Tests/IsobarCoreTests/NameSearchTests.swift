import Testing
@testable import IsobarCore

/// Folding and ranking of `search` on a fixed list of names.
@Suite struct NameSearchTests {
    static let names: [(String, String)] = [
        ("LZKZ", "Košice"), ("LZKS", "Košice-Barca"), ("SBSP", "São Pedro"), ("SBSA", "Santo Antônio de São Pedro"),
        ("LYPR", "Priština"), ("BIIS", "Ísafjörður"), ("UUEE", "Москва"), ("EPLL", "Łódź"), ("EDDS", "Stuttgart Straße"),
        ("EKEB", "Æbeltoft"), ("ZBAA", "北京"), ("EKVG", "Þórshöfn"), ("VVDN", "Đà Nẵng"), ("LTBA", "İstanbul"),
        ("KORD", "O'Hare"), ("KSEA", "Seattle-Tacoma"), ("KSEB", "Sea Island"), ("XSEA", "Chelsea"), ("SEA1", "KSEA Annex"),
        ("EKOD", "Odense"), ("EKOE", "Odense"), ("EKOA", "odense"),
    ]
    static let stations = names.enumerated().map { n, pair in
        Station(id: pair.0, name: pair.1, coordinate: Coordinate(latitude: Double(n), longitude: Double(n)))
    }
    static let index = NameIndex(stations: stations)

    static func search(_ query: String, limit: Int = 20) -> [String] {
        index.search(query, limit: limit, in: stations).map { "\(stations[Int($0.position)].id):\($0.match.rawValue)" }
    }

    @Test func folding() {
        let fold = { (s: String) in String(decoding: NameFolding.fold(s), as: UTF8.self) }
        #expect(fold("Košice") == "kosice")
        #expect(fold("São Pedro") == "sao pedro")
        #expect(fold("Priština") == "pristina")
        #expect(fold("Ísafjörður") == "isafjordur")
        #expect(fold("Москва") == "moskva")
        #expect(fold("Łódź") == "lodz")
        #expect(fold("Straße") == "strasse")
        #expect(fold("Þórshöfn") == "thorshofn")
        #expect(fold("Đà Nẵng") == "da nang")
        #expect(fold("  Saint-Denis (Réunion), FR ") == "saint denis reunion fr")
        #expect(fold("O'Hare") == "ohare")
        #expect(fold("O’Hare") == "ohare")
        #expect(fold("...") == "")
    }

    @Test func diacriticAndScriptInsensitive() {
        #expect(Self.search("kosice") == ["LZKZ:prefix", "LZKS:prefix"])
        #expect(Self.search("KOŠICE barca") == ["LZKS:prefix"])
        #expect(Self.search("sao pedro") == ["SBSP:prefix", "SBSA:word"])
        #expect(Self.search("pristina") == ["LYPR:prefix"])
        #expect(Self.search("isafjordur") == ["BIIS:prefix"])
        #expect(Self.search("moskva") == ["UUEE:prefix"])
        #expect(Self.search("Москва") == ["UUEE:prefix"])
        #expect(Self.search("lodz") == ["EPLL:prefix"])
        #expect(Self.search("strasse") == ["EDDS:word"])
        #expect(Self.search("thorshofn") == ["EKVG:prefix"])
        #expect(Self.search("danang") == [])
        #expect(Self.search("da nang") == ["VVDN:prefix"])
        #expect(Self.search("istanbul") == ["LTBA:prefix"])
        #expect(Self.search("ohare") == ["KORD:prefix"])
        #expect(Self.search("o'hare") == ["KORD:prefix"])
        #expect(Self.search("aebeltoft") == ["EKEB:prefix"])
        #expect(Self.search("bei jing") == ["ZBAA:prefix"])
    }

    @Test func rankingIdThenPrefixThenWordThenSubstring() {
        // Ids match whole only ("sea" is no id); "sea island" < "seattle tacoma"; "sea" inside the
        // word "ksea" is a substring, as in "chelsea" (which sorts first).
        #expect(Self.search("sea") == ["KSEB:prefix", "KSEA:prefix", "XSEA:substring", "SEA1:substring"])
        #expect(Self.search("ksea") == ["KSEA:id", "SEA1:prefix"])
        #expect(Self.search("KSea") == ["KSEA:id", "SEA1:prefix"])
        #expect(Self.search("sea1") == ["SEA1:id"])
        // Same folded name: by the name as given (UTF-8: "O" < "o"), then by id.
        #expect(Self.search("odense") == ["EKOD:prefix", "EKOE:prefix", "EKOA:prefix"])
        #expect(Self.search("odense", limit: 2) == ["EKOD:prefix", "EKOE:prefix"])
        #expect(Self.search("island") == ["KSEB:word"])
        #expect(Self.search("ice") == ["LZKZ:substring", "LZKS:substring"])
        #expect(Self.search("zzz") == [])
        #expect(Self.search("???") == [])
    }

    @Test func aBetterMatchLaterInTheSameName() {
        let stations = [Station(id: "A", name: "Banana Ana", coordinate: Coordinate(latitude: 0, longitude: 0)),
                        Station(id: "B", name: "Havana", coordinate: Coordinate(latitude: 0, longitude: 0))]
        let index = NameIndex(stations: stations)
        let hits = index.search("ana", limit: 5, in: stations).map { "\(stations[Int($0.position)].id):\($0.match.rawValue)" }
        #expect(hits == ["A:word", "B:substring"])
    }

    @Test func manyStationsOfOneNameComeByID() {
        let stations = (0..<300).map { Station(id: "S\(299 - $0)", name: "Same", coordinate: Coordinate(latitude: 0, longitude: 0)) }
        let index = NameIndex(stations: stations)
        #expect(index.distinctNames == 1)
        let ids = index.search("same", limit: 3, in: stations).map { stations[Int($0.position)].id }
        #expect(ids == ["S0", "S1", "S10"])
    }

    /// Within one name, stations come in the order of their ids' bytes: ids sharing their first 8
    /// bytes, ids that are a prefix of another, a real zero byte against the end of an id, bytes
    /// above 0x7F, upper against lower case (the index sorts on an 8-byte prefix first).
    @Test func idsOfOneNameInByteOrderPastEightBytes() {
        let ids = ["ABCDEFGH1", "ABCDEFGH", "ABCDEFGH0", "ABCDEFGHI", "A\u{0}", "A", "AB", "é", "z", "Z", "ABCDEFGH\u{0}X",
                   "ABCDEFG", "ABCDEFGG9", "ÉTÉ", "", "0"]
        let stations = ids.map { Station(id: $0, name: "Same", coordinate: Coordinate(latitude: 0, longitude: 0)) }
        let index = NameIndex(stations: stations)
        let found = index.search("same", limit: 100, in: stations).map { stations[Int($0.position)].id }
        #expect(found == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(found == ["", "0", "A", "A\u{0}", "AB", "ABCDEFG", "ABCDEFGG9", "ABCDEFGH", "ABCDEFGH\u{0}X", "ABCDEFGH0",
                          "ABCDEFGH1", "ABCDEFGHI", "Z", "z", "É" + "TÉ", "é"])
    }
}
