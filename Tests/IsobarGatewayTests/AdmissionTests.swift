@testable import IsobarGateway
import Testing

@Suite struct AdmissionTests {
    func decide(_ target: String, authorization: String? = nil, origin: String? = nil, options: GatewayOptions = GatewayOptions(),
                connections: Int = 0, stopping: Bool = false, taken: Set<String> = []) -> Admission.Decision {
        Admission.decide(target: target, authorization: authorization, origin: origin, options: options,
                         connections: connections, stopping: stopping, isTaken: { taken.contains($0) })
    }

    @Test func namesFromTheURLOrGenerated() {
        #expect(decide("/ws?client=alice") == .accept(name: "alice"))
        #expect(decide("/ws?x=1&client=al%2Dice") == .accept(name: "al-ice"))
        guard case .accept(let name) = decide("/ws") else { Issue.record("refused"); return }
        #expect(name.hasPrefix("web-") && ClientName.isValid(name))
        #expect(decide("/ws?client=a/b") == .reject(status: 400, reason: "client name must be 1-64 characters of A-Z a-z 0-9 . _ -"))
        #expect(decide("/ws?client=") == .reject(status: 400, reason: "client name must be 1-64 characters of A-Z a-z 0-9 . _ -"))
        #expect(decide("/ws?client=alice", taken: ["alice"]) == .reject(status: 409, reason: "client alice is already connected"))
    }

    @Test func capacityAndShutdown() {
        var options = GatewayOptions()
        options.maxConnections = 2
        #expect(decide("/ws", options: options, connections: 1) != decide("/ws", options: options, connections: 2))
        #expect(decide("/ws", options: options, connections: 2) == .reject(status: 503, reason: "the gateway is full (2 connections)"))
        #expect(decide("/ws", stopping: true) == .reject(status: 503, reason: "the gateway is shutting down"))
    }

    @Test func originAllowlist() {
        var options = GatewayOptions()
        options.origins = ["http://127.0.0.1:8080"]
        #expect(decide("/ws?client=a", origin: "http://127.0.0.1:8080", options: options) == .accept(name: "a"))
        #expect(decide("/ws?client=a", origin: nil, options: options) == .accept(name: "a"))
        #expect(decide("/ws?client=a", origin: "http://evil.example", options: options)
                == .reject(status: 403, reason: "origin http://evil.example is not allowed"))
    }

    @Test func tokens() {
        var options = GatewayOptions()
        options.tokens = ["s3cret": "alice", "t0ken": "bob"]
        #expect(decide("/ws", authorization: "Bearer s3cret", options: options) == .accept(name: "alice"))
        #expect(decide("/ws?token=t0ken", options: options) == .accept(name: "bob"))
        #expect(decide("/ws?token=t0ken&client=bob", options: options) == .accept(name: "bob"))
        guard case .reject(401, _) = decide("/ws", options: options) else { Issue.record("no token accepted"); return }
        guard case .reject(401, _) = decide("/ws?token=wrong", options: options) else { Issue.record("wrong token accepted"); return }
        guard case .reject(403, _) = decide("/ws?token=t0ken&client=alice", options: options) else { Issue.record("name mismatch accepted"); return }
        guard case .reject(409, _) = decide("/ws?token=t0ken", options: options, taken: ["bob"]) else { Issue.record("dup accepted"); return }
    }

    @Test func tokenFileParsing() throws {
        let tokens = try TokenFile.parse("# comment\ns3cret alice\n\n  t0ken\tbob  \n")
        #expect(tokens == ["s3cret": "alice", "t0ken": "bob"])
        #expect(throws: TokenFile.Failure.self) { try TokenFile.parse("justone\n") }
        #expect(throws: TokenFile.Failure.self) { try TokenFile.parse("tok bad/name\n") }
        #expect(throws: TokenFile.Failure.self) { try TokenFile.parse("tok a\ntok b\n") }
        #expect(throws: TokenFile.Failure.self) { try TokenFile.parse("\n# nothing\n") }
    }

    @Test func listenAddresses() {
        #expect(ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(ListenAddress(parsing: "localhost:80")?.isLoopback == true)
        #expect(ListenAddress(parsing: "127.1.2.3:80")?.isLoopback == true)
        #expect(ListenAddress(parsing: "0.0.0.0:8080")?.isLoopback == false)
        #expect(ListenAddress(parsing: "10.0.0.1:8080")?.isLoopback == false)
        #expect(ListenAddress(parsing: "example.com:8080")?.isLoopback == false)
        for bad in ["8080", "host:", ":80", "host:99999", "::1:80", "[::1]80"] { #expect(ListenAddress(parsing: bad) == nil, "\(bad)") }
    }
}
