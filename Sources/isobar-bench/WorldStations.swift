import Foundation
import IsobarCore

/// The real station list (`Fixtures/world-stations.csv`: id,name,latitude,longitude; CRLF line
/// ends; names quoted when they hold commas) that generated data is jittered from.
struct WorldStation {
    let id: String
    let name: String
    let latitude: Double
    let longitude: Double
}

enum WorldStations {
    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(path: String) throws -> [WorldStation] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadError(description: "cannot read \(path); pass --world PATH to the station CSV")
        }
        let text = String(decoding: data, as: UTF8.self)
        var stations: [WorldStation] = []
        for (number, rawLine) in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine[...]
            if number == 0 || line.isEmpty { continue }  // header
            let fields = split(line)
            guard fields.count == 4, let latitude = Double(fields[2]), let longitude = Double(fields[3]),
                  (-90...90).contains(latitude), (-180...180).contains(longitude), !fields[0].isEmpty else {
                throw ReadError(description: "\(path):\(number + 1): expected id,name,latitude,longitude")
            }
            stations.append(WorldStation(id: fields[0], name: fields[1], latitude: latitude, longitude: longitude))
        }
        guard !stations.isEmpty else { throw ReadError(description: "\(path) holds no stations") }
        return stations
    }

    /// Splits one CSV record; a quoted field may hold commas and doubled quotes.
    private static func split(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let ch = iterator.next() {
            if quoted {
                if ch == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { current.append("\"") } else {
                            quoted = false
                            if next == "," { fields.append(current); current = "" } else { current.append(next) }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(ch)
                }
            } else if ch == "\"" {
                quoted = true
            } else if ch == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        fields.append(current)
        return fields
    }
}
