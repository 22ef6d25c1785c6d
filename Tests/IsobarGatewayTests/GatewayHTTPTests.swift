import Foundation
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// The gateway's plain HTTP routes: the web map, Leaflet, the outlines, and the traversal guard.
    @Suite struct GatewayHTTPTests {
        @Test func servesFilesWithContentTypesAndRefusesTraversal() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("web"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            try "<html>map</html>".write(to: root.appendingPathComponent("web/index.html"), atomically: true, encoding: .utf8)
            try "console.log(1)".write(to: root.appendingPathComponent("web/app.js"), atomically: true, encoding: .utf8)
            try "secret".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
            let gw = try await GatewayAlone(["--countries", root.appendingPathComponent("secret.txt").path],
                                      webRoot: root.appendingPathComponent("web").path)
            let index = try HTTPProbe.get(port: gw.port, path: "/")
            #expect(index.status == 200 && index.body == "<html>map</html>")
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            let script = try HTTPProbe.get(port: gw.port, path: "/web/app.js")
            #expect(script.status == 200 && script.headers["content-type"] == "text/javascript; charset=utf-8")
            for path in ["/web/../secret.txt", "/web/%2e%2e/secret.txt", "/web/..%2fsecret.txt", "/web//etc/passwd",
                         "/web/.%2e/secret.txt", "/leaflet/../../../etc/passwd", "/web/missing.js"] {
                let reply = try HTTPProbe.get(port: gw.port, path: path)
                #expect(reply.status == 404, "\(path): \(reply.status)")
                #expect(!reply.body.contains("secret") && !reply.body.contains("root:"), "\(path)")
            }
            #expect(try HTTPProbe.get(port: gw.port, path: "/countries.geojson").headers["content-type"] == "text/plain; charset=utf-8")
            if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
                let leaflet = try HTTPProbe.get(port: gw.port, path: "/leaflet/leaflet.js")
                #expect(leaflet.status == 200 && leaflet.headers["content-type"] == "text/javascript; charset=utf-8")
            }
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws").status == 426)
            await gw.stop()
        }
    }
}
