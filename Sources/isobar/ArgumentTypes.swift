import ArgumentParser
import IsobarCore

extension Day: ExpressibleByArgument {}
extension Field: ExpressibleByArgument {}
extension Units: ExpressibleByArgument {}
extension WindUnit: ExpressibleByArgument {}
extension Locale: ExpressibleByArgument {}
extension FeedFormat: ExpressibleByArgument {}
extension OpenWeatherFeed.Units: ExpressibleByArgument {}

/// `LAT,LON,DLAT,DLON`: a MapKit region (center and span, degrees).
struct RegionArgument: ExpressibleByArgument {
    let region: Region
    init?(argument: String) {
        guard let region = try? Region(parsing: argument) else { return nil }
        self.region = region
    }
}

/// `k/N`: filter shard k of N (``Shard``).
extension Shard: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
