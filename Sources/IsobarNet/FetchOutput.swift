import IsobarCore
import IsobarStdio

/// Where the fetcher writes protocol lines: stdout (`LineOutput`) in the CLI, a buffer in tests.
///
/// A writer's bytes are handed over whole, so a snapshot's lines are never interleaved with
/// another writer's; `flush()` after each publication lets a downstream pipe see it at once.
public protocol FetchOutput: Sendable {
    func write(_ writer: inout JSONWriter)
    @discardableResult func flush() -> Bool
}

extension LineOutput: FetchOutput {}
