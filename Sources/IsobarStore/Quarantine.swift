import Foundation

/// Moves a damaged database file aside, with its `-wal` and `-shm` files, so a fresh store can
/// take its place and the old data stays for salvage (`sqlite3 FILE .recover`).
///
/// `isobar.sqlite` becomes `isobar.sqlite.corrupt-20261126T051500Z` (UTC), its `-wal` file
/// `isobar.sqlite.corrupt-20261126T051500Z-wal`: the names SQLite itself looks for, so opening the
/// moved file with `sqlite3` still sees the changes in its log. A second damage in the same second
/// gets `-2`, `-3`… before the suffix; nothing is ever overwritten.
enum Quarantine {
    /// Moves `path` (and its sidecar files, when present) aside; returns the new name of `path`.
    static func moveAside(_ path: String, now: Double) throws(StoreError) -> String {
        let stamp = timestamp(now)
        let manager = FileManager.default
        var target = "\(path).corrupt-\(stamp)"
        var attempt = 2
        while manager.fileExists(atPath: target) || manager.fileExists(atPath: target + "-wal") {
            target = "\(path).corrupt-\(stamp)-\(attempt)"
            attempt += 1
        }
        for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            do {
                try manager.moveItem(atPath: path + suffix, toPath: target + suffix)
            } catch {
                throw .cannotOpen(path: path, reason: "it is damaged and cannot be moved aside to \(target + suffix) (\(error.localizedDescription))")
            }
        }
        return target
    }

    /// `20261126T051500Z`: the UTC time in ISO 8601's basic format, which sorts as text.
    static func timestamp(_ now: Double) -> String {
        var seconds = time_t(now.isFinite ? max(0, now) : 0)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
