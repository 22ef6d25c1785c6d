import IsobarCore

/// Where a fetched body goes as it arrives, for both HTTP and files: kept whole (every format but
/// onX, whose per-location bodies are small), or, for onX, read record by record at once
/// (`OnXFeedStream`), so a feed of a million stations is never held whole.
struct BodyReader {
    private enum Sink {
        case whole([UInt8])
        case onX(OnXFeedStream)
        /// The onX body was refused; the rest of it is not read.
        case refused(String)
    }

    private var sink: Sink
    /// Bytes received so far (the size limit applies to these).
    private(set) var count = 0

    init(streamingOnX: Bool, expectedBytes: Int? = nil) {
        sink = streamingOnX ? .onX(OnXFeedStream(stage: "fetch", expectedBytes: expectedBytes)) : .whole([])
    }

    /// Takes the next piece of the body.
    mutating func append(_ raw: UnsafeRawBufferPointer) {
        count += raw.count
        switch sink {
        case .whole(var bytes):
            sink = .refused("")  // lets `bytes` be the only reference while it grows
            bytes.append(contentsOf: raw)
            sink = .whole(bytes)
        case .onX(var stream):
            sink = .refused("")
            do throws(MessageError) {
                try stream.append(raw)
                sink = .onX(stream)
            } catch {
                sink = .refused(error.message)
            }
        case .refused:
            break
        }
    }

    /// What the body made: the bytes, the onX feed read from them, or why the onX body was refused.
    func finish(_ validators: ConditionalValidators) -> FetchResponse {
        switch sink {
        case .whole(let bytes): return .body(bytes, validators)
        case .refused(let reason): return .failed(reason)
        case .onX(let stream):
            do throws(MessageError) { return .parsed(try stream.finish(), validators) } catch { return .failed(error.message) }
        }
    }
}
