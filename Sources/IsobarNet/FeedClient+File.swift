#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix

extension FeedClient {
    /// Reads a local feed file on NIO's blocking-I/O thread pool (never on the two cooperative threads).
    ///
    /// The file's size and modification time play the part of an ETag: when neither changed since the
    /// last good read, the answer is `.notModified` without reading the file again.
    func fetchFile(_ path: String, validators: ConditionalValidators, streamingOnX: Bool = false) async -> FetchResponse {
        let limit = maxBodyBytes
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                Self.readFile(path, validators: validators, limit: limit, streamingOnX: streamingOnX)
            }
        } catch {
            return .failed("could not read \(path): \(error)")
        }
    }

    public static func readFile(_ path: String, validators: ConditionalValidators, limit: Int, streamingOnX: Bool = false) -> FetchResponse {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failed("could not open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed("could not stat \(path): \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { return .failed("\(path) is a directory, not a feed file") }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        let tag = "file:\(modified.tv_sec).\(modified.tv_nsec)-\(info.st_size)"
        if validators.etag == tag { return .notModified }
        if (info.st_mode & S_IFMT) == S_IFREG && Int(info.st_size) > limit {
            return .failed("\(path) is \(info.st_size) bytes, over the \(limit)-byte limit")
        }
        var body = BodyReader(streamingOnX: streamingOnX, expectedBytes: (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil)
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress, chunk) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed("could not read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            guard body.count + n <= limit else { return .failed("\(path) exceeds the \(limit)-byte limit; stopped reading") }
            buffer.withUnsafeBytes { body.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return body.finish(ConditionalValidators(etag: tag))
    }
}
