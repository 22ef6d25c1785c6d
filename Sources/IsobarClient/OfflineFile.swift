import Foundation

/// The offline file: ``MapState/Saved`` as JSON, written whole to a temporary file beside it and
/// renamed over it, so a crash mid-write leaves the previous file.
enum OfflineFile {
    static func load(_ path: String) -> MapState.Saved? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(MapState.Saved.self, from: data)
    }

    static func save(_ saved: MapState.Saved, to path: String) throws {
        let data = try JSONEncoder().encode(saved)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        try data.write(to: temporary)
        if FileManager.default.fileExists(atPath: path) {
            _ = try FileManager.default.replaceItemAt(url, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: url)
        }
    }
}
