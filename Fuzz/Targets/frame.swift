// fuzz-sources: Sources/IsobarGateway/ClientFrame.swift
import Foundation
import IsobarCore

/// Fuzz target `frame`: the gateway's check of a WebSocket text frame (`ClientFrame.parse`). It
/// needs only IsobarCore, so its source file is compiled into the target as it is; the rest of
/// the gateway (Hummingbird, NIO) is not (Fuzz/README.md).
///
/// - A refused frame becomes an `error` frame that is valid JSON.
/// - An accepted viewport names this connection and reads back unchanged from what the gateway
///   publishes.
/// - An accepted other message is one line (no CR or LF), an allowed type, and equal, value for
///   value, to the frame with `"client":NAME` in front (or as it was, when it named this client).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let client = "web-3f2a9c1d"
    let frame: ClientFrame
    do {
        frame = try ClientFrame.parse(bytes, client: client)
    } catch {
        var writer = JSONWriter()
        bytes.withUnsafeBytes { raw in
            ErrorMessage(stage: "gateway", message: error.message, line: raw, client: client).write(to: &writer)
        }
        OutputLines.requireValid(writer.bytes, from: "gateway error frame")
        return 0
    }
    switch frame {
    case .viewport(let viewport):
        Invariant.require(viewport.client == client, "viewport for \(viewport.client), connection \(client)")
        var writer = JSONWriter()
        viewport.write(to: &writer)
        OutputLines.requireValid(writer.bytes, from: "gateway viewport")
        do {
            let again = try Viewport(from: JSONObject(storage: Array(writer.bytes.dropLast())))
            Invariant.require(again == viewport, "the published viewport reads back different")
        } catch {
            Invariant.fail("the published viewport does not read back: \(error)")
        }
    case .line(let line):
        Invariant.require(!line.contains(0x0A) && !line.contains(0x0D), "a published line holds CR or LF")
        let object = OutputLines.requireObject(line, from: "gateway line")
        Invariant.require(object["client"] as? String == client, "a published line does not name this connection")
        Invariant.require(ClientFrame.passThroughTypes.contains(object["type"] as? String ?? ""), "a published line has a type a client may not send")
        do {
            let original = try JSONObject(storage: bytes)
            let published = try JSONObject(storage: line)
            var expected = JSONValue(original)
            if original.field("client") == nil, case .object(let members) = expected {
                expected = .object([JSONValue.Member(key: "client", value: .string(client))] + members)
            }
            Invariant.require(JSONValue(published) == expected, "the published line changed the frame's values")
        } catch {
            Invariant.fail("an accepted frame or its published line does not parse: \(error)")
        }
    }
    return 0
}
