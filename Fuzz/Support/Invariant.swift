import Foundation

/// How a fuzz target reports a broken invariant: one line on stderr, then `abort()`, which
/// libFuzzer records as a crash and saves the input that caused it (a `crash-…` file).
enum Invariant {
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("fuzz invariant broken: " + message + "\n").utf8))
        abort()
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }
}
