import Foundation

/// The populated places of one GeoNames dump, held compactly (one array per column, names in one
/// byte array) with the three lookups the places stage answers: by id, by name (``geocode(_:)``)
/// and by point (``reverse(_:radiusKm:)``). Immutable once built, so one instance is shared by
/// every request.
public struct Gazetteer: Sendable {
    /// What loading the file found: places loaded, bad rows skipped (with line numbers).
    public let report: GeoNamesDump.Report
    let ids: [Int32]
    let latitudes: [Double]
    let longitudes: [Double]
    let populations: [Int64]
    /// Two ASCII capitals as one number (0: none).
    let countryCodes: [UInt16]
    /// Index into `admin1Codes` (the admin-1 code as written, "" when none).
    let admin1: [UInt32]
    let admin1Codes: [String]
    /// Index into `zoneNames` ("" when none).
    let zones: [UInt16]
    let zoneNames: [String]
    let nameBytes: [UInt8]
    let nameStart: [UInt32]
    /// Row indices sorted by id, for ``place(id:)``.
    let byID: [Int32]
    let nearest: NearestIndex
    let names: PlaceNameIndex

    /// The number of places.
    public var count: Int { ids.count }

    /// Loads the dump in `bytes` (see ``GeoNamesDump``); `file` names it in errors and the report.
    public init(dump bytes: UnsafeRawBufferPointer, file: String) throws(PlacesError) {
        var builder = Builder()
        let report = try GeoNamesDump.read(bytes, file: file) { builder.add($0) }
        try self.init(builder: builder, report: report, file: file)
    }

    /// The gazetteer of the rows `builder` collected: the name index sorted, the id and point
    /// indexes built.
    init(builder: Builder, report: GeoNamesDump.Report, file: String) throws(PlacesError) {
        guard builder.ids.count < Int(Int32.max) else { throw .tooManyPlaces(file: file, line: 0) }
        self.report = report
        ids = builder.ids
        latitudes = builder.latitudes
        longitudes = builder.longitudes
        populations = builder.populations
        countryCodes = builder.countryCodes
        admin1 = builder.admin1
        admin1Codes = builder.admin1Codes
        zones = builder.zones
        zoneNames = builder.zoneNames
        nameBytes = builder.nameBytes
        nameStart = builder.nameStart
        var names = builder.names
        names.finish()
        self.names = names
        let ids = builder.ids
        byID = (0..<Int32(ids.count)).sorted { ids[Int($0)] < ids[Int($1)] }
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(ids.count)
        for i in 0..<ids.count { coordinates.append(Coordinate(latitude: builder.latitudes[i], longitude: builder.longitudes[i])) }
        nearest = NearestIndex(grid: SpatialGrid(coordinates: coordinates, cellsPerDegree: 1))
    }

    /// How a gazetteer folds a name that is not ASCII: case and diacritics removed
    /// (`Nürnberg` -> `nurnberg`, `Сеул` -> `сеул`), the script kept, words separated as
    /// ``NameFolding`` separates them. Not ICU's transliteration: at 465,000 non-ASCII names in
    /// cities500 that costs ~10x more at load. A query is folded both ways (``NameFolding/fold(_:)``
    /// and this), so it finds a name in its own script and in Latin letters alike.
    static func foldKeepingScript(_ text: String) -> [UInt8] {
        NameFolding.foldASCII(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
    }

    /// The place with GeoNames id `id`, or nil.
    public func place(id: Int) -> Place? {
        guard let row = row(id: id) else { return nil }
        return place(row: row)
    }

    func row(id: Int) -> Int? {
        var low = 0, high = byID.count
        while low < high {
            let mid = (low + high) / 2
            if Int(ids[Int(byID[mid])]) < id { low = mid + 1 } else { high = mid }
        }
        guard low < byID.count, Int(ids[Int(byID[low])]) == id else { return nil }
        return Int(byID[low])
    }

    /// Row `row` as a ``Place``.
    public func place(row: Int) -> Place {
        let code = countryCode(row: row)
        let admin1Code = admin1Codes[Int(admin1[row])]
        let zone = zoneNames[Int(zones[row])]
        return Place(id: Int(ids[row]), name: name(row: row),
                     admin1: code == "US" && !admin1Code.isEmpty ? PlaceNames.usStates[admin1Code] : nil,
                     countryCode: code, country: PlaceNames.countries[code],
                     coordinate: Coordinate(latitude: latitudes[row], longitude: longitudes[row]),
                     population: populations[row], timeZone: zone.isEmpty ? nil : zone)
    }

    func name(row: Int) -> String {
        String(decoding: nameBytes[Int(nameStart[row])..<Int(nameStart[row + 1])], as: UTF8.self)
    }

    func countryCode(row: Int) -> String {
        let packed = countryCodes[row]
        guard packed != 0 else { return "" }
        return String(decoding: [UInt8(packed >> 8), UInt8(packed & 0xFF)], as: UTF8.self)
    }

    static func packCountry(_ code: String) -> UInt16? {
        let bytes = Array(code.utf8)
        guard bytes.count == 2 else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// Collects the columns row by row while the dump is read.
    struct Builder {
        var ids: [Int32] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []
        var populations: [Int64] = []
        var countryCodes: [UInt16] = []
        var admin1: [UInt32] = []
        var admin1Codes: [String] = [""]
        var admin1Index: [String: UInt32] = ["": 0]
        var zones: [UInt16] = []
        var zoneNames: [String] = [""]
        var zoneIndex: [String: UInt16] = ["": 0]
        var nameBytes: [UInt8] = []
        var nameStart: [UInt32] = [0]
        var names = PlaceNameIndex()

        mutating func add(_ row: GeoNamesRow) {
            let place = UInt32(ids.count)
            ids.append(row.id)
            latitudes.append(row.latitude)
            longitudes.append(row.longitude)
            populations.append(row.population)
            countryCodes.append(row.countryCode.count == 2 ? UInt16(row.countryCode[0]) << 8 | UInt16(row.countryCode[1]) : 0)
            let admin1Code = String(decoding: row.admin1Code, as: UTF8.self)
            if let index = admin1Index[admin1Code] {
                admin1.append(index)
            } else {
                let index = UInt32(admin1Codes.count)
                admin1Codes.append(admin1Code)
                admin1Index[admin1Code] = index
                admin1.append(index)
            }
            let zone = String(decoding: row.timeZone, as: UTF8.self)
            if let index = zoneIndex[zone] {
                zones.append(index)
            } else if zoneNames.count < Int(UInt16.max) {
                let index = UInt16(zoneNames.count)
                zoneNames.append(zone)
                zoneIndex[zone] = index
                zones.append(index)
            } else {
                zones.append(0)
            }
            nameBytes.append(contentsOf: row.name)
            nameStart.append(UInt32(nameBytes.count))
            names.add(keys: Self.keys(row), place: place)
        }

        /// The distinct folded forms of a row's name and alternate names.
        static func keys(_ row: GeoNamesRow) -> [[UInt8]] {
            var keys: [[UInt8]] = [fold(row.name)]
            let alternates = row.alternateNames
            var start = 0
            for i in 0...alternates.count where i == alternates.count || alternates[i] == UInt8(ascii: ",") {
                if i > start {
                    let key = fold(UnsafeRawBufferPointer(rebasing: alternates[start..<i]))
                    if !key.isEmpty && !keys.contains(key) { keys.append(key) }
                }
                start = i + 1
            }
            return keys
        }

        static func fold(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
            if bytes.allSatisfy({ $0 < 0x80 }) { return NameFolding.foldASCII(bytes) }
            return Gazetteer.foldKeepingScript(String(decoding: bytes, as: UTF8.self))
        }
    }
}
