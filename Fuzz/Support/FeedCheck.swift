import Foundation
import IsobarCore

/// The checks every feed parser's fuzz target runs, whatever the feed's format. A target for a
/// format is one call: `FeedCheck.run(data, size, format: "NAME") { try NameFeed.parse($0) }`,
/// where the closure parses the body with the format's parser (throwing when it refuses the body
/// whole, as every parser does).
enum FeedCheck {
    static func run(_ data: UnsafePointer<UInt8>, _ size: Int, format: String, parse: (_ body: [UInt8]) throws -> ParsedFeed) {
        let body = Array(UnsafeBufferPointer(start: data, count: size))
        var notes = JSONWriter()
        let stations: [Station]
        do {
            let parsed = try parse(body)
            for warning in parsed.warnings { warning.write(to: &notes) }
            for error in parsed.errors { error.write(to: &notes) }
            stations = parsed.stations
        } catch {
            // Refused whole: the fetcher reports it as an error message, which must be valid too.
            var writer = JSONWriter()
            ErrorMessage(stage: "fetch", message: "\(format) feed refused: \(error)", excerpt: "").write(to: &writer)
            OutputLines.requireValid(writer.bytes, from: "\(format) error")
            return
        }
        OutputLines.requireValid(notes.bytes, from: "\(format) warnings and errors")
        Invariant.require(!stations.isEmpty, "\(format): accepted a feed with no station")
        var ids = Set<String>()
        for station in stations {
            Invariant.require(ids.insert(station.id).inserted, "\(format): station id \(station.id) twice")
            Invariant.require(!station.id.isEmpty, "\(format): empty station id")
            Invariant.require((-90...90).contains(station.coordinate.latitude) && (-180...180).contains(station.coordinate.longitude),
                              "\(format): \(station.id) at \(station.coordinate) is out of range")
            for value in [station.temperature, station.windSpeed, station.windDirection, station.precipitation] {
                Invariant.require(value?.isFinite ?? true, "\(format): \(station.id) has a value that is not finite")
            }
        }
        // What the fetcher publishes: every line valid JSON, every station read back unchanged.
        var writer = JSONWriter()
        OnXFeed.writeSnapshot(day: .today, stations: stations, source: .feed, fetchedAt: 1_795_316_701.07, into: &writer)
        let lines = writer.bytes.split(separator: 0x0A)
        Invariant.require(lines.count == stations.count + 1, "\(format): \(lines.count) lines for \(stations.count) stations")
        OutputLines.requireValid(writer.bytes, from: "\(format) snapshot")
        for (line, station) in zip(lines, stations) {
            let message: StationMessage
            do {
                message = try StationMessage(from: JSONObject(storage: Array(line)))
            } catch {
                Invariant.fail("\(format): the station line written for \(station.id) does not read back: \(error)")
            }
            Invariant.require(message.station == station, "\(format): \(station.id) changed on its way through a station line")
        }
        do {
            let end = try SnapshotEnd(from: JSONObject(storage: Array(lines[lines.count - 1])))
            Invariant.require(end.count == stations.count, "\(format): end marker counts \(end.count) of \(stations.count)")
        } catch {
            Invariant.fail("\(format): the end marker does not read back: \(error)")
        }
    }
}
