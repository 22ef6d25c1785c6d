/// Reading a ``Place`` back from the JSON ``Place/write(to:)`` writes: the `place` member of a
/// `spot`, an `ambient`, a `particulars` the places stage enriched, so the filter and the
/// formatter check what they pass on instead of copying bytes they never read.
extension Place {
    public init(from object: JSONObject) throws(MessageError) {
        guard let id = try object.optionalInt("id"), id > 0, id <= Int(Int32.max) else {
            throw MessageError("place field \"id\" must be a positive GeoNames id")
        }
        let name = try object.requireName("name", maxLength: 400)
        let countryCode = try object.optionalString("countryCode") ?? ""
        guard countryCode.utf8.count <= 3 else { throw MessageError("place field \"countryCode\" is longer than 3 bytes") }
        let population = try object.optionalInt("population") ?? 0
        guard population >= 0 else { throw MessageError("place field \"population\" must not be negative") }
        self.init(id: id, name: name, admin1: try Self.short(object, "admin1"), countryCode: countryCode,
                  country: try Self.short(object, "country"), coordinate: try Coordinate(from: object),
                  population: Int64(population), timeZone: try Self.short(object, "timeZone"))
    }

    private static func short(_ object: JSONObject, _ key: StaticString) throws(MessageError) -> String? {
        guard let value = try object.optionalString(key) else { return nil }
        guard value.utf8.count <= 400 else { throw MessageError("place field \"\(key)\" is longer than 400 bytes") }
        return value
    }
}
