import Foundation
import IsobarCore
@testable import IsobarTestSupport

/// Brute-force references for end-to-end checks, computed from the fixtures with the contract's
/// visibility rule written independently of the product's code (modular longitude distance).
enum Reference {
    struct Record { var id: String; var latitude: Double; var longitude: Double; var values: [String: Any] }

    static func records(_ day: String) throws -> [Record] {
        let url = ProcessHarness.packageRoot.appendingPathComponent("Fixtures/\(day).json")
        let array = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]] ?? []
        return array.compactMap { r in
            guard let id = r["id"] as? String, let la = (r["latitude"] as? NSNumber)?.doubleValue,
                  let lo = (r["longitude"] as? NSNumber)?.doubleValue else { return nil }
            return Record(id: id, latitude: la, longitude: lo, values: r)
        }
    }

    static func visible(_ records: [Record], lat: Double, lon: Double, dlat: Double, dlon: Double) -> Set<String> {
        Set(records.filter { r in
            guard r.latitude >= max(-90, lat - dlat / 2), r.latitude <= min(90, lat + dlat / 2) else { return false }
            if dlon >= 360 { return true }
            var delta = (r.longitude - lon).truncatingRemainder(dividingBy: 360)
            if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
            return abs(delta) <= dlon / 2
        }.map(\.id))
    }

    /// The temperature title the contract expects: rounded °F with a degree sign, "" when unknown.
    static func temperatureTitle(_ record: Record) -> String {
        guard let t = (record.values["temperature"] as? NSNumber)?.doubleValue else { return "" }
        return "\(Int(t.rounded()))°"
    }

    static func precipitationTitle(_ record: Record) -> String {
        guard let p = (record.values["chance_of_precipitation"] as? NSNumber)?.doubleValue else { return "" }
        return "\(Int(min(100, p).rounded()))%"
    }
}
