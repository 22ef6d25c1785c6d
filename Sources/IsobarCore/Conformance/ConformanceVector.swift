/// One conformance vector (conformance/STAGE/SECTION/NAME.json, described in conformance/README.md):
/// the lines written to a stage's stdin and the lines it must write.
public struct ConformanceVector: Sendable {
    /// `SECTION/NAME`, the file's place under conformance/STAGE (what `--only` globs match).
    public let name: String
    public let description: String
    /// The PROTOCOL.md section the vector checks.
    public let section: String
    public let stage: String
    /// Extra arguments after the command, with `{repo}` and `{files}` still in them.
    public let args: [String]
    /// Feed bodies (fetch) to write into `{files}` first, by file name.
    public let files: [String: String]
    /// Set when the binary and PROTOCOL.md disagree: skipped unless asked for.
    public let disputed: Bool
    /// The stdin lines, without their newline: an object exactly as the vector has it (its
    /// insignificant whitespace removed), a string element as it is (a deliberately bad line).
    public let inputLines: [String]
    public let expected: [ConformanceValue]

    /// Reads a vector file's bytes; `name` is `SECTION/NAME`.
    public init(name: String, bytes: [UInt8]) throws(ConformanceError) {
        var parser = ConformanceJSONParser(bytes, recordingElementsOf: "input")
        let root = try parser.parseDocument()
        func text(_ key: String) throws(ConformanceError) -> String {
            guard let value = root[key]?.string else { throw .badVector("\(name): no string \(key)") }
            return value
        }
        func strings(_ value: ConformanceValue?) -> [String]? {
            guard case .array(let items) = value else { return nil }
            let texts = items.compactMap(\.string)
            return texts.count == items.count ? texts : nil
        }
        self.name = name
        description = try text("description")
        section = try text("section")
        stage = try text("stage")
        guard let args = strings(root["args"] ?? .array([])) else { throw .badVector("\(name): args is not a list of strings") }
        self.args = args
        var files: [String: String] = [:]
        if case .object(let bodies) = root["files"] {
            for (file, body) in bodies {
                guard let body = body.string else { throw .badVector("\(name): files.\(file) is not a string") }
                files[file] = body
            }
        }
        self.files = files
        if case .bool(let flag) = root["disputed"] { disputed = flag } else { disputed = root["disputed"] != nil && root["disputed"] != .null }
        guard case .array(let inputs) = root["input"], inputs.count == parser.elementRanges.count else {
            throw .badVector("\(name): no input list")
        }
        inputLines = zip(inputs, parser.elementRanges).map { value, range in
            value.string ?? Self.compact(bytes[range])
        }
        guard case .array(let expected) = root["expected"] else { throw .badVector("\(name): no expected list") }
        self.expected = expected
    }

    /// The arguments with `{repo}` (the repository root) and `{files}` (the directory the feed
    /// bodies were written to) filled in.
    public func arguments(repo: String, files directory: String) -> [String] {
        args.map { $0.replacingAll("{repo}", with: repo).replacingAll("{files}", with: directory) }
    }

    /// What the stage reads: every input line and its newline.
    public var stdin: [UInt8] {
        inputLines.reduce(into: []) { bytes, line in
            bytes += Array(line.utf8)
            bytes.append(0x0A)
        }
    }

    /// The JSON text without whitespace outside strings: one line whatever the file's layout.
    static func compact(_ text: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in text {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                continue
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Every occurrence of `target` replaced (Foundation-free).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
