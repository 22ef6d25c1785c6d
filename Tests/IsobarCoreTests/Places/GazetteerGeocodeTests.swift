import Testing
@testable import IsobarCore

/// Forward geocoding on the real cities500 data: the fixed list, the city-list brief's
/// 20 Korean cities by English and by Korean name, qualifiers and limits.
@Suite struct GazetteerGeocodeTests {
    static let fixed: [(query: String, id: Int, name: String)] = [
        ("seoul", 1835848, "Seoul"), ("busan", 1838524, "Busan"), ("daegu", 1835329, "Daegu"),
        ("denver", 5419384, "Denver"), ("kosice", 724443, "Košice"), ("sao paulo", 3448439, "São Paulo"),
        ("new york", 5128581, "New York City"), ("springfield, il", 4250542, "Springfield"),
        ("zurich", 2657896, "Zürich"), ("서울", 1835848, "Seoul"), ("Сеул", 1835848, "Seoul"),
        ("Москва", 524901, "Moscow"), ("nürnberg", 2861650, "Nuremberg"), ("nurnberg", 2861650, "Nuremberg"),
    ]

    @Test(arguments: fixed)
    func fixedListFirstResult(_ query: String, _ id: Int, _ name: String) throws {
        let g = try DefaultGazetteer.gazetteer()
        let hits = try #require(g.geocode(query))
        #expect(hits.first?.place.id == id, "\(query) -> \(hits.prefix(3).map { "\($0.place.name) \($0.place.countryCode)" })")
        #expect(hits.first?.place.name == name)
    }

    static let korean: [(english: String, korean: String?, id: Int)] = [
        ("Gongju", "공주", 1842616), ("Gwangju", "광주", 1841811), ("Gumi", "구미", 1842225), ("Gunsan", "군산", 1842025),
        ("Daegu", "대구", 1835329), ("Daejeon", "대전", 1835235), ("Mokpo", "목포", 1841066), ("Busan", "부산", 1838524),
        ("Seosan", "서산", 1835895), ("Seoul", "서울", 1835848), ("Sokcho", "속초", 1836553), ("Suwon", "수원", 1835553),
        ("Suncheon", "순천", 1835648), ("Ulsan", "울산", 1833747), ("Iksan", nil, 1843491), ("Jeonju", "전주", 1845457),
        ("Jeju City", "제주시", 1846266), ("Cheonan", "천안", 1845759), ("Cheongju", "청주", 1845604),
        ("Chuncheon", "춘천", 1845136),
    ]

    @Test(arguments: korean)
    func koreanCityListFirstByEnglishAndKoreanName(_ english: String, _ korean: String?, _ id: Int) throws {
        let g = try DefaultGazetteer.gazetteer()
        #expect(g.geocode(english)?.first?.place.id == id, "\(english)")
        if let korean {
            #expect(g.geocode(korean)?.first?.place.id == id, "\(korean)")
        }
    }

    @Test func placeFieldsAndUSState() throws {
        let g = try DefaultGazetteer.gazetteer()
        let denver = try #require(g.geocode("denver")?.first)
        #expect(denver.match == .exact)
        #expect(denver.place == Place(id: 5419384, name: "Denver", admin1: "Colorado", countryCode: "US", country: "United States",
                                      coordinate: Coordinate(latitude: 39.73915, longitude: -104.9847), population: 729019,
                                      timeZone: "America/Denver"))
        let seoul = try #require(g.place(id: 1835848))
        #expect(seoul.admin1 == nil)
        #expect(seoul.country == "South Korea")
        #expect(seoul.timeZone == "Asia/Seoul")
    }

    @Test func rankingKindsThenPopulation() throws {
        let g = try DefaultGazetteer.gazetteer()
        let hits = try #require(g.geocode("springfield", limit: 5))
        #expect(hits.prefix(3).map(\.place.id) == [4409896, 4951788, 4250542])
        #expect(hits.count == 5)
        #expect(hits.allSatisfy { $0.match == .exact })
        // Word prefix ranks after prefix: "york" is a later word of "New York City".
        let york = try #require(g.geocode("york", limit: 100))
        let kinds = york.map(\.match)
        #expect(kinds == kinds.sorted())
        #expect(kinds.first == .exact && kinds.last != .exact)
        #expect(try #require(g.geocode("york city", limit: 1)).first.map { [$0.place.id: $0.match] } == [5128581: .word])
        #expect(try #require(g.geocode("stara zag")).first?.match == .prefix)
    }

    @Test func qualifiers() throws {
        let g = try DefaultGazetteer.gazetteer()
        #expect(g.geocode("springfield", state: "MA")?.first?.place.id == 4951788)
        #expect(g.geocode("springfield", state: "Illinois")?.first?.place.id == 4250542)
        #expect(g.geocode("springfield, Massachusetts")?.first?.place.id == 4951788)
        #expect(g.geocode("gwangju", country: "kr", limit: 2)?.map(\.place.id) == [1841811, 1841810])
        #expect(g.geocode("denver", country: "Germany")?.isEmpty == true)
        #expect(g.geocode("paris, france")?.first?.place.countryCode == "FR")
        #expect(g.geocode("denver", country: "Atlantis") == nil)
        #expect(g.geocode("denver", state: "ZZ") == nil)
        #expect(g.geocode("denver", limit: 3)?.count == 3)
    }
}
