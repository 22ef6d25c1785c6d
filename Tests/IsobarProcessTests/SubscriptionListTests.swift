import Foundation
import IsobarCore
import IsobarNet
import IsobarStore
import Testing
@testable import IsobarTestSupport

/// Every place that starts a stage on the bus subscribes it to exactly the topics the stage
/// declares beside its engine: compose.yaml, docs/compose.md and the scripts are text, so they are
/// checked here against the declarations (`isobar up` and the bench use them directly).
@Suite struct SubscriptionListTests {
    static let declared: [String: [String]] = [
        "filter": FilterEngine.subscriptions, "format": FormatEngine.subscriptions,
        "persist": PersistStage.subscriptions, "fetch": FeedFetcher.subscriptions,
    ]

    /// The `--sub` values of each compose service, in order (`- --sub` then `- TOPIC` lines).
    static func composeSubscriptions() throws -> [String: [String]] {
        let text = try String(contentsOf: ProcessHarness.packageRoot.appendingPathComponent("compose.yaml"), encoding: .utf8)
        var result: [String: [String]] = [:]
        var service: String?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        while let line = lines.popFirst() {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                service = String(line.dropFirst(2).dropLast())
            } else if line.trimmingCharacters(in: .whitespaces) == "- --sub", let service, let next = lines.popFirst() {
                let topic = next.trimmingCharacters(in: .whitespaces).dropFirst(2)
                result[service, default: []].append(String(topic))
            }
        }
        return result
    }

    @Test func composeSubscribesEachStageToWhatItDeclares() throws {
        let compose = try Self.composeSubscriptions()
        for (stage, topics) in Self.declared {
            #expect(compose[stage] == topics, "compose.yaml's \(stage): \(compose[stage] ?? []) but the stage declares \(topics)")
        }
    }

    @Test func docsAndScriptsWriteTheSameSubscriptions() throws {
        for path in ["docs/compose.md", "README.md", "scripts/checks/python-plugin.sh", "scripts/checks/netns.sh"] {
            let text = try String(contentsOf: ProcessHarness.packageRoot.appendingPathComponent(path), encoding: .utf8)
            let filter = FilterEngine.subscriptions.map { "--sub \($0)" }.joined(separator: " ")
            #expect(text.contains(filter + " -- "), "\(path) does not subscribe the filter to \(FilterEngine.subscriptions)")
        }
        // The multi-host check starts the formatter by hand too.
        let netns = try String(contentsOf: ProcessHarness.packageRoot.appendingPathComponent("scripts/checks/netns.sh"), encoding: .utf8)
        let format = FormatEngine.subscriptions.map { "--sub \($0)" }.joined(separator: " ")
        #expect(netns.contains("--name format " + format + " -- "), "scripts/checks/netns.sh does not subscribe the formatter to \(FormatEngine.subscriptions)")
    }
}
