/// Reads an onX body as it arrives, chunk by chunk (`isobar fetch` streams a download through it):
/// the array's elements are split out by `JSONArrayStream` and each record read at once, so memory
/// holds the stations read so far and the record in progress, never the body. `OnXFeed.parse`
/// of a whole body is the same reading with one chunk, so both give the same stations, warnings,
/// errors and refusals.
public struct OnXFeedStream {
    private var array = JSONArrayStream()
    private var collector: FeedCollector
    /// Bytes read so far (an element's offset in error messages).
    public private(set) var bytesRead = 0

    /// `expectedBytes` (a file's size, a Content-Length) sizes the stations array for the most
    /// records that many bytes can hold (an onX record is at least ~80 bytes).
    public init(stage: String = "fetch", expectedBytes: Int? = nil) {
        collector = FeedCollector(stage: stage)
        if let expectedBytes { collector.reserve(records: expectedBytes / 80 + 1) }
    }

    /// Reads the next chunk of the body. Throws the refusal of the whole body (not a JSON array,
    /// or a record that is not valid JSON).
    public mutating func append(_ chunk: UnsafeRawBufferPointer) throws(MessageError) {
        bytesRead += chunk.count
        // Moved out (not copied) while the array stream calls back, so neither is accessed twice
        // at once and the stations array is never copied.
        var collector = self.collector
        self.collector = FeedCollector(stage: collector.stage)
        defer { self.collector = collector }
        do throws(JSONArrayStreamError<JSONError>) {
            try array.append(chunk) { (element: [UInt8], isObject: Bool, start: Int) throws(JSONError) in
                // A record's own offsets made the whole body's, as a whole-body parse says them.
                do throws(JSONError) { try Self.read(element, isObject: isObject, into: &collector) } catch {
                    throw JSONError(error.message, at: start + error.offset)
                }
            }
        } catch {
            switch error {
            case .syntax(let reason): throw Self.refusal(reason)
            case .element(let jsonError): throw Self.refusal("\(jsonError)")
            }
        }
    }

    /// The body ended: the stations, or the refusal of a body that is not a closed array, is
    /// empty, or has no valid record.
    public func finish() throws(MessageError) -> ParsedFeed {
        do throws(JSONArrayStreamError<Never>) { try array.finish() } catch {
            if case .syntax(let reason) = error { throw Self.refusal(reason) }
        }
        guard array.count > 0 else { throw MessageError("feed body is an empty array; keeping the previous snapshot") }
        return try collector.finish()
    }

    private static func read(_ element: [UInt8], isObject: Bool, into collector: inout FeedCollector) throws(JSONError) {
        guard isObject else {
            // Not a record: still valid JSON (or the whole body is refused), then rejected alone.
            let wrapped: JSONArray
            do throws(JSONError) { wrapped = try JSONArray(storage: [UInt8(ascii: "[")] + element + [UInt8(ascii: "]")], maxDepth: 64) } catch {
                throw JSONError(error.message, at: error.offset - 1)  // the added "["
            }
            collector.rejectNonObject(wrapped.elements.first?.kind ?? .null, excerpt: FeedBody.excerpt(element[...]))
            return
        }
        // One level less than a whole body's limit: the array is the first.
        let object = try JSONObject(storage: element, maxDepth: 63)
        collector.add(excerpt: FeedBody.excerpt(element[...])) { (warnings: inout [String]) throws(MessageError) in
            try OnXFeed.record(object, warnings: &warnings)
        }
    }

    static func refusal(_ reason: String) -> MessageError {
        MessageError("feed body is not a JSON array of station records: \(reason)")
    }
}
