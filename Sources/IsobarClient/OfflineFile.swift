import Foundation

/// The offline file: ``MapState/Saved`` as JSON, written atomically (a temporary file renamed over
/// it), so a crash mid-write leaves the previous file.
enum OfflineFile {
    static func load(_ path: String) -> MapState.Saved? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(MapState.Saved.self, from: data)
    }

    static func save(_ saved: MapState.Saved, to path: String) throws {
        try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
