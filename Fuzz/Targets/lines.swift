import Foundation
import IsobarCore

/// Fuzz target `lines`: the NDJSON `LineSplitter`. The same bytes fed whole, one byte at a time
/// and in chunks of sizes drawn from the input must give the same events, and those must equal
/// a reference written from the type's documentation: split at `\n`, drop a trailing `\r` and a
/// leading BOM, skip whitespace-only lines, report a line over the limit once with its length.
///
/// Input layout: byte 0 picks the line limit (1...256, so the too-long path is hit), byte 1
/// seeds the chunk sizes, the rest is the stream.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let limit = Int(data[0]) + 1
    var seed = UInt64(data[1]) &* 0x9E37_79B9_7F4A_7C15 | 1
    let stream = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let expected = referenceEvents(stream, limit: limit)
    let whole = splitterEvents(stream, limit: limit, chunks: [stream.count])
    let bytewise = splitterEvents(stream, limit: limit, chunks: Array(repeating: 1, count: stream.count))
    var sizes: [Int] = []
    var left = stream.count
    while left > 0 {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
        let next = min(left, Int(seed % 97) + 1)
        sizes.append(next)
        left -= next
    }
    let chunked = splitterEvents(stream, limit: limit, chunks: sizes)
    // Below 80 bytes a too-long line's excerpt holds what had arrived when it went over the
    // limit, which depends on the chunking; its length and everything else does not.
    let exact = limit >= 80
    for (name, events) in [("whole", whole), ("bytewise", bytewise), ("chunked", chunked)] {
        Invariant.require(events.count == expected.count, "\(name): \(events.count) events, reference \(expected.count) (limit \(limit))")
        for (event, reference) in zip(events, expected) {
            Invariant.require(event.matches(reference, excerpts: exact), "\(name): \(event) but reference \(reference) (limit \(limit))")
        }
    }
    return 0
}

/// One `LineEvent`, copied out of the callback.
private enum Event: CustomStringConvertible {
    case line([UInt8])
    case tooLong(length: Int, excerpt: String)

    func matches(_ other: Event, excerpts: Bool) -> Bool {
        switch (self, other) {
        case (.line(let a), .line(let b)): a == b
        case (.tooLong(let a, let x), .tooLong(let b, let y)): a == b && (!excerpts || x == y)
        default: false
        }
    }

    var description: String {
        switch self {
        case .line(let bytes): "line \(bytes.count) bytes \(String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription)"
        case .tooLong(let length, let excerpt): "tooLong \(length) \(excerpt.debugDescription)"
        }
    }
}

private func splitterEvents(_ stream: [UInt8], limit: Int, chunks: [Int]) -> [Event] {
    var splitter = LineSplitter(maxLineLength: limit)
    var events: [Event] = []
    let record: (LineEvent) -> Void = { event in
        switch event {
        case .line(let bytes): events.append(.line(Array(bytes)))
        case .tooLong(let length, let excerpt): events.append(.tooLong(length: length, excerpt: excerpt))
        }
    }
    stream.withUnsafeBytes { raw in
        var start = 0
        for count in chunks {
            splitter.append(UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)]), record)
            start += count
        }
    }
    splitter.finish(record)
    return events
}

private func referenceEvents(_ stream: [UInt8], limit: Int) -> [Event] {
    var events: [Event] = []
    var lines = stream.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    if stream.last == 0x0A || stream.isEmpty { lines.removeLast() }
    for raw in lines {
        if raw.count > limit {
            let excerpt = raw.prefix(80).withUnsafeBytes { LineSplitter.excerpt($0) }
            events.append(.tooLong(length: raw.count, excerpt: excerpt))
            continue
        }
        var line = raw[...]
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        if line.last == 0x0D { line = line.dropLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
        events.append(.line(Array(line)))
    }
    return events
}
