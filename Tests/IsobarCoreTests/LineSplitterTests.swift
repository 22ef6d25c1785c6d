import Testing
@testable import IsobarCore

@Suite struct LineSplitterTests {
    enum Event: Equatable { case line(String), tooLong(Int) }

    func split(_ chunks: [[UInt8]], max: Int = 1 << 20) -> [Event] {
        var splitter = LineSplitter(maxLineLength: max)
        var events: [Event] = []
        let record: (LineEvent) -> Void = { event in
            switch event {
            case .line(let raw): events.append(.line(String(decoding: raw, as: UTF8.self)))
            case .tooLong(let length, _): events.append(.tooLong(length))
            }
        }
        for chunk in chunks { chunk.withUnsafeBytes { splitter.append($0, record) } }
        splitter.finish(record)
        return events
    }

    @Test func crlfBlankLinesBomAndFinalLine() {
        let text = "a\r\n\n   \r\n\u{FEFF}b\nc"
        #expect(split([Array(text.utf8)]) == [.line("a"), .line("b"), .line("c")])
    }

    @Test func everyChunkingGivesTheSameLines() {
        let bytes = Array("{\"type\":\"x\"}\r\n\n{\"type\":\"y\",\"n\":\"é\"}\nlast".utf8)
        let expected = split([bytes])
        for cut in 0...bytes.count {
            #expect(split([Array(bytes[..<cut]), Array(bytes[cut...])]) == expected)
        }
        #expect(split(bytes.map { [$0] }) == expected)
    }

    @Test func overlongLineIsOneEventAndLaterLinesSurvive() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 2_500)
        // Delivered in 100-byte chunks: the splitter must not buffer past the limit.
        var chunks: [[UInt8]] = [Array("ok1\n".utf8)]
        for start in stride(from: 0, to: long.count, by: 100) { chunks.append(Array(long[start..<min(long.count, start + 100)])) }
        chunks.append(Array("\nok2\n".utf8))
        #expect(split(chunks, max: 1_000) == [.line("ok1"), .tooLong(2_500), .line("ok2")])
        // The same line in a single chunk.
        #expect(split([Array("ok1\n".utf8) + long + Array("\nok2\n".utf8)], max: 1_000) == [.line("ok1"), .tooLong(2_500), .line("ok2")])
        // At the end of the stream without a newline.
        #expect(split([long], max: 1_000) == [.tooLong(2_500)])
    }

    @Test func lineExactlyAtTheLimitIsAccepted() {
        let line = String(repeating: "y", count: 1_000)
        #expect(split([Array((line + "\n").utf8)], max: 1_000) == [.line(line)])
    }
}
