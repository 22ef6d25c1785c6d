import Foundation
import IsobarBus
import Testing
@testable import IsobarHost

/// Pure parts of CURVE: key files, the allowlist, the client environment and the ZAP decision.
@Suite("CURVE keys and configuration")
struct CurveKeyTests {
    /// A fresh directory under /tmp, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = "/tmp/isobar-curve-\(UUID().uuidString.prefix(12))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("keygen files: secret 0600, public derivable from secret, no overwrite without force")
    func keyFiles() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pair = try ZMQCurve.generateKeyPair()
        let paths = try CurveKeyFile.write(pair, directory: directory, name: "alice")
        let mode = try FileManager.default.attributesOfItem(atPath: paths.secretPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try CurveKeyFile.key(inFile: paths.secretPath) == pair.secretKey)
        #expect(try CurveKeyFile.key(inFile: paths.publicPath) == pair.publicKey)
        #expect(try ZMQCurve.publicKey(forSecretKey: pair.secretKey) == pair.publicKey)
        #expect(throws: BusSecurityError.self) { try CurveKeyFile.write(pair, directory: directory, name: "alice") }
        #expect(throws: BusSecurityError.invalidKeyName("a/b")) { try CurveKeyFile.write(pair, directory: directory, name: "a/b") }
        _ = try CurveKeyFile.write(try ZMQCurve.generateKeyPair(), directory: directory, name: "alice", overwrite: true)
        #expect(try CurveKeyFile.key(inFile: paths.publicPath) != pair.publicKey)
    }

    @Test("Z85 round trip, and malformed keys are rejected")
    func z85() throws {
        let pair = try ZMQCurve.generateKeyPair()
        let bytes = try #require(ZMQCurve.decode(z85: pair.publicKey))
        #expect(bytes.count == 32)
        #expect(ZMQCurve.encode(key: bytes) == pair.publicKey)
        for bad in ["", "short", String(pair.publicKey.dropLast()) + "~", String(pair.publicKey.dropLast()) + "\u{0}",
                    pair.publicKey + "0", String(repeating: "é", count: 20)] {
            #expect(!ZMQCurve.isValidKey(bad), "\(bad)")
        }
        #expect(ZMQCurve.encode(key: [1, 2, 3]) == nil)
        #expect(!pair.description.contains(pair.secretKey))
    }

    @Test("allowlist from a key-per-line file with comments, and from a directory of *.pub files")
    func allowlist() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = try ZMQCurve.generateKeyPair(), b = try ZMQCurve.generateKeyPair(), c = try ZMQCurve.generateKeyPair()
        let file = directory + "/allowed.txt"
        try "# clients\n\(a.publicKey)\r\n\n  \(b.publicKey)  \n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try CurveAllowlist.load(from: file)
        #expect(fromFile.keys == [a.publicKey, b.publicKey])
        #expect(fromFile.allows(a.publicKey) && !fromFile.allows(c.publicKey))

        let clients = directory + "/clients"
        _ = try CurveKeyFile.write(a, directory: clients, name: "a")
        _ = try CurveKeyFile.write(c, directory: clients, name: "c")
        let fromDirectory = try CurveAllowlist.load(from: clients)
        // The .key files beside them are not read.
        #expect(fromDirectory.keys == [a.publicKey, c.publicKey])

        try "\(a.publicKey)\nnot-a-key\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: BusSecurityError.self) { try CurveAllowlist.load(from: file) }
        try "# nobody\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: BusSecurityError.emptyAllowlist(path: file)) { try CurveAllowlist.load(from: file) }
        #expect(throws: BusSecurityError.self) { try CurveAllowlist.load(from: directory + "/missing") }
    }

    @Test("client environment: none, Z85 values, file paths, derived and mismatched public keys, partial settings")
    func clientEnvironment() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ZMQCurve.generateKeyPair(), client = try ZMQCurve.generateKeyPair()
        let serverFiles = try CurveKeyFile.write(server, directory: directory, name: "server")
        let clientFiles = try CurveKeyFile.write(client, directory: directory, name: "client")

        #expect(try BusSecurity.fromEnvironment([:]) == nil)
        #expect(try BusSecurity.fromEnvironment(["ISOBAR_CURVE_SERVERKEY": ""]) == nil)
        let expected = BusSecurity(serverKey: server.publicKey, keyPair: client)
        #expect(try BusSecurity.fromEnvironment([
            "ISOBAR_CURVE_SERVERKEY": server.publicKey, "ISOBAR_CURVE_SECRETKEY": client.secretKey,
        ]) == expected)
        #expect(try BusSecurity.fromEnvironment([
            "ISOBAR_CURVE_SERVERKEY": serverFiles.publicPath, "ISOBAR_CURVE_SECRETKEY": clientFiles.secretPath,
            "ISOBAR_CURVE_PUBLICKEY": clientFiles.publicPath,
        ]) == expected)
        #expect(throws: BusSecurityError.keyMismatch(publicSource: "ISOBAR_CURVE_PUBLICKEY", secretSource: "ISOBAR_CURVE_SECRETKEY")) {
            try BusSecurity.fromEnvironment([
                "ISOBAR_CURVE_SERVERKEY": server.publicKey, "ISOBAR_CURVE_SECRETKEY": client.secretKey,
                "ISOBAR_CURVE_PUBLICKEY": server.publicKey,
            ])
        }
        #expect(throws: BusSecurityError.incompleteClientKeys(missing: ["ISOBAR_CURVE_SECRETKEY"])) {
            try BusSecurity.fromEnvironment(["ISOBAR_CURVE_SERVERKEY": server.publicKey])
        }
        #expect(throws: BusSecurityError.self) {
            try BusSecurity.fromEnvironment(["ISOBAR_CURVE_SERVERKEY": "/nonexistent/server.pub", "ISOBAR_CURVE_SECRETKEY": client.secretKey])
        }
        // APIs that throw only ZMQError still say what is wrong.
        let error = #expect(throws: ZMQError.self) {
            try BusSecurity.connectingSocketOptions(["ISOBAR_CURVE_PUBLICKEY": client.publicKey])
        }
        #expect(error?.description.contains("ISOBAR_CURVE_SERVERKEY") == true)
        #expect(try BusSecurity.connectingSocketOptions([:]).count == ZMQSocketOption.defaults.count)
    }

    @Test("ZAP replies: 200 for an allowed CURVE key, 400 for another key or mechanism, 500 for malformed requests")
    func zapDecisions() throws {
        let allowed = try ZMQCurve.generateKeyPair(), stranger = try ZMQCurve.generateKeyPair()
        let allowlist = try CurveAllowlist(keys: [allowed.publicKey])
        func request(_ mechanism: String, _ credentials: [[UInt8]], version: String = "1.0") -> [[UInt8]] {
            [Array(version.utf8), Array("7".utf8), Array("isobar".utf8), Array("127.0.0.1".utf8), [], Array(mechanism.utf8)] + credentials
        }
        let ok = ZAPReply.answering(request("CURVE", [try #require(ZMQCurve.decode(z85: allowed.publicKey))]), allowlist: allowlist)
        #expect(ok.statusCode == "200" && ok.userID == allowed.publicKey && ok.requestID == Array("7".utf8))
        #expect(ok.frames.count == 6 && ok.frames[0] == Array("1.0".utf8) && ok.frames[5].isEmpty)
        let refused = ZAPReply.answering(request("CURVE", [try #require(ZMQCurve.decode(z85: stranger.publicKey))]), allowlist: allowlist)
        #expect(refused.statusCode == "400" && refused.clientKey == stranger.publicKey && refused.userID.isEmpty)
        #expect(ZAPReply.answering(request("NULL", []), allowlist: allowlist).statusCode == "400")
        #expect(ZAPReply.answering(request("PLAIN", [Array("u".utf8), Array("p".utf8)]), allowlist: allowlist).statusCode == "400")
        #expect(ZAPReply.answering(request("CURVE", [[1, 2, 3]]), allowlist: allowlist).statusCode == "500")
        #expect(ZAPReply.answering(request("CURVE", [], version: "2.0"), allowlist: allowlist).statusCode == "500")
        #expect(ZAPReply.answering([], allowlist: allowlist).statusCode == "500")
    }
}
