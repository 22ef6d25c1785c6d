import CZlib
import IsobarCore

/// A body that is itself a gzip file (`metars.cache.csv.gz`, served as `application/gzip`, not
/// with a `Content-Encoding`), inflated before it is parsed, never past the body limit: a gzip
/// bomb fails like any body over `--max-body-bytes`. Bodies that do not start with gzip's magic
/// bytes (1f 8b) pass through untouched.
enum GzipFile {
    static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B }

    /// `bytes` inflated when they are a gzip file (every member of a multi-member file), else as they are.
    static func inflatedIfGzip(_ bytes: [UInt8], limit: Int) throws(MessageError) -> [UInt8] {
        guard isGzip(bytes) else { return bytes }
        var stream = z_stream()
        // 15 + 16: a gzip wrapper (not zlib's, not raw deflate) with the largest window.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw MessageError("gzip body could not be inflated: zlib did not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        var failure: String?
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while failure == nil {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    failure = "gzip body inflates past the \(limit)-byte limit; stopped reading"
                    break
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    // Another member follows (concatenated gzip files are one file), or the end.
                    if stream.avail_in == 0 { return }
                    guard stream.avail_in >= 2, stream.next_in[0] == 0x1F, stream.next_in[1] == 0x8B else { return }
                    inflateReset(&stream)
                case Z_OK:
                    if stream.avail_in == 0 && produced == 0 { failure = "gzip body is truncated" }
                case Z_BUF_ERROR:
                    failure = "gzip body is truncated"
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    failure = "gzip body is corrupt (\(reason))"
                }
            }
        }
        if let failure { throw MessageError(failure) }
        return output
    }
}
