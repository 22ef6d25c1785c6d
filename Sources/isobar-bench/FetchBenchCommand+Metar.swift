import ArgumentParser
import Foundation

/// `fetch --metar N`: the Aviation Weather Center's bulk cache file (`metars.cache.csv.gz`, gzip
/// CSV) of N generated stations, read by `isobar fetch --format metar --once` against Python's
/// `csv` + `gzip` reading every row of the same file: wall seconds and peak RSS (GNU time).
extension FetchBenchCommand {
    static let metarHeader = "raw_text,station_id,observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt,"
        + "wind_gust_kt,visibility_statute_mi,altim_in_hg,sea_level_pressure_mb,wx_string,sky_cover,cloud_base_ft_agl,sky_cover,"
        + "cloud_base_ft_agl,flight_category,metar_type,elevation_m\n"

    /// A cache table of `count` stations spread over the globe, with the awkward cases mixed in
    /// (VRB, calm, gusts, missing temperature, `10+`), gzipped with the system's gzip.
    static func writeMetar(count: Int, to path: String) async throws {
        var text = metarHeader
        for index in 0..<count {
            let id = "X" + String(index, radix: 36).uppercased()
            let latitude = Double((index * 7919) % 17_000) / 100 - 85, longitude = Double((index * 104_729) % 35_900) / 100 - 179.5
            let direction = index % 97 == 0 ? "VRB" : index % 89 == 0 ? "0" : String((index * 10) % 360 + 10)
            let speed = index % 89 == 0 ? "0" : String(index % 40)
            let gust = index % 13 == 0 ? String(index % 40 + 12) : ""
            let temperature = index % 10 == 0 ? "" : String(Double(index % 600) / 10 - 25)
            let visibility = index % 7 == 0 ? "10+" : String(Double(index % 90) / 10)
            text += "\(id) 260750Z \(direction)\(speed)KT,\(id),2026-11-26T07:50:00Z,\(latitude),\(longitude),\(temperature),"
                + "\(temperature.isEmpty ? "" : "-3.0"),\(direction),\(speed),\(gust),\(visibility),29.92,1013.2,-SN,BKN,1200,OVC,3000,VFR,METAR,10\n"
        }
        let plain = path.hasSuffix(".gz") ? String(path.dropLast(3)) : path + ".csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: plain))
        let gzip = try await Children.start("/bin/gzip", ["-n", "-f", plain])
        let exit = await gzip.process.waitForExit()
        await Children.stop(gzip)
        guard exit == .exited(code: 0) else { throw ValidationError("gzip \(plain) failed") }
        if plain + ".gz" != path { try FileManager.default.moveItem(atPath: plain + ".gz", toPath: path) }
    }

    func runMetar(count: Int) async throws {
        let file = Paths.scratch("fetch") + "/metars-\(count).cache.csv.gz"
        if !FileManager.default.fileExists(atPath: file) { try await Self.writeMetar(count: count, to: file) }
        let small = Paths.scratch("fetch") + "/metars-1.cache.csv.gz"
        if !FileManager.default.fileExists(atPath: small) { try await Self.writeMetar(count: 1, to: small) }
        let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0
        let isobar = Paths.isobar(common.isobar)
        var fetch: [(Double, Double)] = [], read: [(Double, Double)] = []
        for _ in 0..<common.runs {
            fetch.append(try await Self.timed([isobar, "fetch", "--format", "metar", "--today", file, "--tomorrow", small, "--once"]))
            read.append(try await Self.timed([python, "-c", "import csv, gzip, sys; rows = list(csv.reader(gzip.open(sys.argv[1], 'rt', newline='')))", file]))
        }
        var table = Table("fetch: the bulk METAR cache file, \(count) stations (\(Format.number(Double(bytes) / 1024)) KB gzip), \(common.runs) runs",
                          header: ["program", "seconds median (min–max)", "peak RSS MB median (min–max)"])
        for (name, samples) in [("isobar fetch --format metar, one day (station lines written)", fetch), ("python3 csv + gzip, every row read", read)] {
            table.add([name, Summary(samples.map(\.0)).text(2), Summary(samples.map(\.1)).text(1, scale: 1 / 1_024)])
        }
        table.add(["ratio isobar / python (per run)", Summary(zip(fetch, read).map { $0.0 / $1.0 }).text(2), ""])
        table.note("command: `isobar fetch --format metar --today FILE.gz --tomorrow ONE.gz --once > /dev/null`; `python3 -c 'list(csv.reader(gzip.open(FILE, \"rt\")))'`; GNU time's %e and %M")
        table.print()
    }
}
