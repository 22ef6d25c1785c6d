/// Compares what a program wrote as a stage with a vector's expected lines, ignoring what the
/// contract leaves open (conformance/README.md, "Running them"):
/// - `fetchedAt` and `ageSeconds` everywhere (clock times);
/// - an `error`'s `message`, `excerpt` and `stage` (its `client` is compared, and its `code` when
///   the expected line has one; `invalid` stands for `field-missing`, `field-type` and
///   `out-of-range`: PROTOCOL.md, "Errors");
/// - a `warning`'s `message`, a `resync`'s `reason`, a `tally`'s `acceptance` unless expected;
/// - for fetch: snapshot ids, a `status`'s `url`, `reason` and `retryIn`, and its `attempt`
///   unless it `failed`;
/// - a cluster's rounded means may differ by one unit in their last place (ties round either way).
/// Lines compare as JSON values: 46 equals 46.0, key order is not compared.
public enum ConformanceComparison {
    static let times: Set<String> = ["fetchedAt", "ageSeconds"]
    /// A field's codes that a stage may report as the general `invalid`.
    static let general: Set<String> = ["field-missing", "field-type", "out-of-range"]
    /// The last rounded place of each cluster mean (R6 for positions, R3 for weather, R1 for direction).
    static let clusterUnits: [String: Double] = [
        "latitude": 1e-6, "longitude": 1e-6, "temperature": 1e-3, "windSpeed": 1e-3, "precipitation": 1e-3, "windDirection": 0.1,
    ]

    /// Every difference between `output` (the program's stdout) and `expected`, each naming the
    /// line and the path inside it; empty when the program conforms.
    public static func problems(stage: String, expected: [ConformanceValue], output: [UInt8]) -> [String] {
        var problems: [String] = []
        var actual: [ConformanceValue] = []
        let text = String(decoding: output, as: UTF8.self)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0.isWhitespace }
            guard !trimmed.isEmpty else { continue }
            do {
                actual.append(try ConformanceJSONParser.parse(String(line)))
            } catch {
                problems.append("output line \(number + 1) is not JSON: \(String(line.prefix(120)))")
            }
        }
        for (index, wanted) in expected.enumerated() {
            let where_ = "line \(index + 1)"
            guard index < actual.count else {
                problems.append("\(where_): missing: \(wanted.json.prefix(200))")
                continue
            }
            let got = actual[index]
            guard wanted.typeLabel == got.typeLabel else {
                problems.append("\(where_): expected \(wanted.typeLabel), got \(got.json.prefix(200))")
                continue
            }
            differences(normalize(wanted, expected: wanted, stage: stage), normalize(got, expected: wanted, stage: stage),
                        path: "\(where_) (\(wanted.typeLabel))", into: &problems)
        }
        for index in expected.count..<max(expected.count, actual.count) {
            problems.append("line \(index + 1): unexpected: \(actual[index].json.prefix(200))")
        }
        return problems
    }

    /// `message` without what the contract leaves open (the expected line decides `code`,
    /// `acceptance`).
    static func normalize(_ message: ConformanceValue, expected: ConformanceValue, stage: String) -> ConformanceValue {
        guard case .object(var fields) = message else { return message }
        for key in times { fields[key] = nil }
        let expectedCode = expected["code"]?.string
        switch fields["type"]?.string {
        case "error":
            for key in ["message", "excerpt", "stage"] { fields[key] = nil }
            if let expectedCode {
                if fields["code"]?.string == "invalid", general.contains(expectedCode) { fields["code"] = .string(expectedCode) }
            } else {
                fields["code"] = nil
            }
        case "warning": fields["message"] = nil
        case "resync": fields["reason"] = nil
        case "tally": if expected["acceptance"] == nil { fields["acceptance"] = nil }
        case "station" where stage == "fetch", "snapshot" where stage == "fetch": fields["snapshot"] = nil
        case "status" where stage == "fetch":
            let open = fields["state"]?.string == "failed" ? ["url", "reason", "retryIn"] : ["url", "reason", "attempt", "retryIn"]
            for key in open { fields[key] = nil }
        default: break
        }
        return .object(fields)
    }

    static func differences(_ expected: ConformanceValue, _ actual: ConformanceValue, path: String, cluster: Bool = false, into out: inout [String]) {
        switch (expected, actual) {
        case (.number(let e), .number(let a)):
            let unit = cluster ? path.split(separator: ".").last.flatMap { clusterUnits[String($0)] } : nil
            if e != a, !(unit.map { abs(e - a) <= $0 * 1.0001 } ?? false) {
                out.append("\(path): expected \(expected.json), got \(actual.json)")
            }
        case (.object(let e), .object(let a)):
            let isCluster = e["cluster"] == .bool(true)
            for key in e.keys.sorted() {
                let wanted = e[key] ?? .null
                if let got = a[key] {
                    differences(wanted, got, path: "\(path).\(key)", cluster: isCluster, into: &out)
                } else {
                    out.append("\(path).\(key): missing (expected \(wanted.json.prefix(120)))")
                }
            }
            for key in a.keys.sorted() where e[key] == nil {
                out.append("\(path).\(key): unexpected (got \((a[key] ?? .null).json.prefix(120)))")
            }
        case (.array(let e), .array(let a)):
            for (index, pair) in zip(e, a).enumerated() {
                differences(pair.0, pair.1, path: "\(path)[\(index)]", cluster: cluster, into: &out)
            }
            if e.count != a.count { out.append("\(path): expected \(e.count) items, got \(a.count)") }
        default:
            if expected != actual { out.append("\(path): expected \(expected.json.prefix(160)), got \(actual.json.prefix(160))") }
        }
    }
}
