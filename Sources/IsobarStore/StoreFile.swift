#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the store's file looked like on disk after the last write, to notice a file changed
/// under the store by something else: truncated, overwritten, replaced or deleted.
///
/// SQLite does not notice: with the pages it needs in its cache and its changes going to the
/// `-wal` file, it goes on committing into a file that was truncated to 0 bytes, and the data is
/// gone only at the next start. So after every write the file is looked at directly (one `stat`
/// and a 100-byte read): the same file (device and inode), not shorter than before (the file never
/// shrinks: without auto-vacuum deleted pages stay in it as free pages), starting with SQLite's
/// header, and at least as long as the database size that header records.
struct StoreFile: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64

    /// The file at `path` as it is now, or why it is not a database file any more.
    static func inspect(_ path: String) -> Result<StoreFile, Fault> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(Fault("it is gone (\(String(cString: strerror(errno))))")) }
        let file = StoreFile(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size))
        guard file.size >= 100 else { return .failure(Fault("it was truncated to \(file.size) bytes")) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Fault("it cannot be read (\(String(cString: strerror(errno))))")) }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 100)
        let read = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 100, 0) }
        guard read == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            return .failure(Fault("its first bytes are no longer an SQLite header (overwritten)"))
        }
        // Page size (bytes 16-17, 1 meaning 65536) times the page count (28-31), valid when the
        // change counter (24-27) equals the version-valid-for number (92-95).
        let pageSize = Int64(header[16]) << 8 | Int64(header[17])
        let pages = header[28..<32].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        if header[24..<28] == header[92..<96], file.size < (pageSize == 1 ? 65_536 : pageSize) * pages {
            return .failure(Fault("it was cut to \(file.size) bytes, shorter than the \(pages) pages its header records"))
        }
        return .success(file)
    }

    /// Why `now` is not the file this was: nil when it is (possibly grown).
    func fault(comparedWith now: StoreFile) -> Fault? {
        if now.device != device || now.inode != inode { return Fault("another file took its place") }
        if now.size < size { return Fault("it was truncated from \(size) to \(now.size) bytes") }
        return nil
    }

    /// What happened to the file, in words for an error message.
    struct Fault: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
