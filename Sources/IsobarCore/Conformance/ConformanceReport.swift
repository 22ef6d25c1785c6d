/// The runner's printed report: a `FAIL` block per differing vector (the vector's stage, name,
/// section and description, then at most 12 differences), and a summary line.
public enum ConformanceReport {
    /// How many differences a failing vector lists before `… N more`.
    public static let shownProblems = 12

    /// The lines printed for a vector that differs.
    public static func failure(stage: String, vector: ConformanceVector, problems: [String]) -> [String] {
        var lines = ["FAIL \(stage)/\(vector.name) (\(vector.section)): \(vector.description)"]
        lines += problems.prefix(shownProblems).map { "  \($0)" }
        if problems.count > shownProblems { lines.append("  … \(problems.count - shownProblems) more") }
        return lines
    }

    /// The last line: `conformance STAGE: P passed, F failed[, S disputed skipped]`.
    public static func summary(stage: String, passed: Int, failed: Int, skipped: Int) -> String {
        "conformance \(stage): \(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) disputed skipped" : "")
    }
}
