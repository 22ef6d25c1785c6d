import Foundation
import IsobarBus
import Testing

@Suite("errors")
struct ZMQErrorTests {
    @Test("a malformed endpoint fails with EINVAL and a description that says what one looks like")
    func malformedEndpoint() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pub)
        let error = try #require(throws: ZMQError.self) { try socket.bind("tcp://127.0.0.1:notaport") }
        #expect(error.errno == EINVAL)
        #expect(error.operation == "zmq_bind(tcp://127.0.0.1:notaport)")
        #expect(error.description.contains("Invalid argument"))
        #expect(error.description.contains("tcp://127.0.0.1:5559"))
    }

    @Test("binding a port twice fails with EADDRINUSE")
    func addressInUse() throws {
        let context = try ZMQContext()
        let first = try ZMQSocket(context, .xsub)
        try first.bind("tcp://127.0.0.1:*")
        let second = try ZMQSocket(context, .xsub)
        let error = try #require(throws: ZMQError.self) { try second.bind(try first.lastEndpoint()) }
        #expect(error.errno == EADDRINUSE)
        #expect(error.description.contains("already"))
    }

    @Test("an unknown transport fails with EPROTONOSUPPORT")
    func unknownTransport() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .sub)
        let error = try #require(throws: ZMQError.self) { try socket.connect("carrier-pigeon://coop") }
        #expect(error.errno == EPROTONOSUPPORT)
    }

    @Test("using a closed socket is an error, not a crash")
    func useAfterClose() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pub)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        let error = try #require(throws: ZMQError.self) { try socket.send(topic: "t", line: "{}") }
        #expect(error.errno == ENOTSOCK)
    }

    @Test("after context shutdown, receive reports ETERM")
    func terminated() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .sub)
        context.shutdown()
        let error = try #require(throws: ZMQError.self) { try socket.receiveMessage(timeout: .seconds(1)) }
        #expect(error.isTerminated)
    }

    @Test("libzmq is new enough and has CURVE, which the security mode will need")
    func capabilities() {
        let version = ZMQContext.version
        #expect(version.major == 4 && version.minor >= 3)
        #expect(ZMQContext.has("curve"))
    }
}
