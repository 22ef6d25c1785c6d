import Foundation

/// Checks what a stage wrote, with a parser that is not the project's own: Foundation's
/// `JSONSerialization` must read every line as one JSON object with a string `type`.
enum OutputLines {
    /// Splits `bytes` (a stage's whole output) into lines, requires each to be a JSON object with a
    /// string `type` and the output to end with a newline, and returns the decoded objects.
    @discardableResult
    static func requireValid(_ bytes: [UInt8], from stage: String) -> [[String: Any]] {
        guard !bytes.isEmpty else { return [] }
        Invariant.require(bytes.last == 0x0A, "\(stage) output does not end with a newline")
        var objects: [[String: Any]] = []
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            objects.append(requireObject(Array(line), from: stage))
        }
        return objects
    }

    /// One line: a JSON object with a non-empty string `type`, read by Foundation.
    static func requireObject(_ line: [UInt8], from stage: String) -> [String: Any] {
        let text = String(decoding: line.prefix(200), as: UTF8.self)
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(line))
        } catch {
            Invariant.fail("\(stage) wrote a line Foundation cannot read (\(error)): \(text)")
        }
        guard let object = parsed as? [String: Any] else { Invariant.fail("\(stage) wrote a line that is not an object: \(text)") }
        guard let type = object["type"] as? String, !type.isEmpty else { Invariant.fail("\(stage) wrote a line without a string type: \(text)") }
        return object
    }
}

extension OutputLines {
    /// Text the project wrote that must be one JSON object for Foundation (no `type` required).
    static func requireObjectText(_ bytes: [UInt8]) {
        let parsed = try? JSONSerialization.jsonObject(with: Data(bytes))
        Invariant.require(parsed is [String: Any], "Foundation cannot read the writer's output: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    }
}
