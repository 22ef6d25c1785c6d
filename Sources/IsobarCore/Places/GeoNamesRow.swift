/// One place row of a GeoNames dump, its fields as byte slices of the file (no copy) and its
/// numbers parsed. Only the columns Isobar uses are kept (GeoNames' readme numbers them 1-19):
/// 1 geonameid, 2 name, 4 alternatenames, 5 latitude, 6 longitude, 9 country code, 11 admin1
/// code, 15 population, 18 timezone.
public struct GeoNamesRow {
    public var id: Int32
    public var name: UnsafeRawBufferPointer
    /// Comma-separated alternate names (may be empty).
    public var alternateNames: UnsafeRawBufferPointer
    public var latitude: Double
    public var longitude: Double
    /// The ISO 3166 alpha-2 country code (empty for a few places at sea).
    public var countryCode: UnsafeRawBufferPointer
    public var admin1Code: UnsafeRawBufferPointer
    public var population: Int64
    /// The IANA time zone (empty when GeoNames has none).
    public var timeZone: UnsafeRawBufferPointer
}
