import Foundation
import IsobarCore
import IsobarNet
import IsobarStore
import Testing
@testable import IsobarTestSupport

/// Every place that starts a stage on the bus subscribes it to exactly the topics the stage
/// declares beside its engine: compose.yaml, docs/compose.md and the scripts are text, so they are
/// checked here against the declarations (`isobar up` and the bench use them directly).
@Suite(.processSlot) struct SubscriptionListTests {
    static let declared: [String: [String]] = [
        "filter": FilterEngine.subscriptions, "format": FormatEngine.subscriptions,
        "persist": PersistStage.subscriptions, "fetch": FeedFetcher.subscriptions, "places": PlacesEngine.subscriptions,
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

    /// The built-in stages compose runs on the bus in process (`--bus`: they subscribe to their
    /// declared topics themselves); the others under `isobar plug` with `--sub` lines.
    static let inProcess: Set<String> = ["filter", "filter-1", "format", "places"]

    @Test func composeSubscribesEachStageToWhatItDeclares() throws {
        let compose = try Self.composeSubscriptions()
        for (stage, topics) in Self.declared where !Self.inProcess.contains(stage) {
            #expect(compose[stage] == topics, "compose.yaml's \(stage): \(compose[stage] ?? []) but the stage declares \(topics)")
        }
        // The in-process stages: `- --bus` in their command and no `--sub` of their own.
        let text = try String(contentsOf: ProcessHarness.packageRoot.appendingPathComponent("compose.yaml"), encoding: .utf8)
        for service in Self.inProcess {
            #expect(compose[service] == nil, "compose.yaml's \(service) has --sub lines: \(compose[service] ?? [])")
            let block = text.components(separatedBy: "\n  \(service):\n").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
            #expect(block.contains("      - --bus\n"), "compose.yaml's \(service) does not run on the bus in process")
        }
    }

    /// The Kubernetes manifests: a stage under `isobar plug` (`--name STAGE`) lists exactly the
    /// stage's declared `--sub` topics; a built-in stage run in process (`isobar STAGE --bus`)
    /// subscribes itself and lists none.
    @Test func kubernetesSubscribesEachStageToWhatItDeclares() throws {
        let folder = ProcessHarness.packageRoot.appendingPathComponent("deploy/k8s")
        var plugged: [String: [String]] = [:]
        var onTheBus: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".yaml") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let words = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
            for (index, word) in words.enumerated() where index + 1 < words.count {
                if word == "--name", index >= 1, words[index - 1] == "plug" {
                    let name = words[index + 1]
                    var topics: [String] = []
                    var at = index + 2
                    while at + 1 < words.count, words[at] == "--sub" { topics.append(words[at + 1]); at += 2 }
                    plugged[name] = topics
                } else if word == "/usr/local/bin/isobar", Self.declared[words[index + 1]] != nil, words.dropFirst(index + 2).prefix(3).contains("--bus") {
                    onTheBus.insert(words[index + 1])
                }
            }
        }
        #expect(plugged == ["persist": PersistStage.subscriptions, "fetch": FeedFetcher.subscriptions, "forecast": ForecastEngine.subscriptions])
        #expect(onTheBus == ["filter", "format", "places"])
    }

    @Test func docsAndScriptsWriteTheSameSubscriptions() throws {
        for path in ["README.md", "scripts/checks/python-plugin.sh", "scripts/checks/netns.sh"] {
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
