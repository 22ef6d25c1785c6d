import Testing
import IsobarBus
import IsobarHost

@Suite("broker endpoint policy")
struct BrokerEndpointPolicyTests {
    @Test("loopback, ipc and inproc endpoints are local", arguments: [
        "tcp://127.0.0.1:5559", "tcp://127.1.2.3:5560", "tcp://localhost:5559", "tcp://LOCALHOST:1",
        "tcp://[::1]:5559", "ipc:///tmp/isobar.sock", "inproc://bus",
    ])
    func local(endpoint: String) {
        #expect(BrokerEndpointPolicy.isLocal(endpoint))
    }

    @Test("wildcards, other addresses and unknown transports are not local", arguments: [
        "tcp://0.0.0.0:5559", "tcp://*:5559", "tcp://10.0.0.1:5559", "tcp://192.168.1.20:5560",
        "tcp://[::]:5559", "tcp://eth0:5559", "tcp://127.0.0.256:5559", "tcp://127.0.0.1", "udp://127.0.0.1:5559",
        "tcp://127.0.0.1.example.com:5559", "",
    ])
    func remote(endpoint: String) {
        #expect(!BrokerEndpointPolicy.isLocal(endpoint))
    }
}

/// `tcp://localhost:PORT` passed the policy but libzmq cannot bind it (issue 27, item 9): the
/// broker binds 127.0.0.1 instead, and a client connecting to localhost reaches it.
@Suite struct BrokerLocalhostBindTests {
    @Test func localhostIsBoundAsTheLoopbackAddress() throws {
        #expect(BrokerEndpointPolicy.bindable("tcp://localhost:5559") == "tcp://127.0.0.1:5559")
        #expect(BrokerEndpointPolicy.bindable("tcp://LocalHost:0") == "tcp://127.0.0.1:0")
        #expect(BrokerEndpointPolicy.bindable("tcp://127.0.0.1:5559") == "tcp://127.0.0.1:5559")
        #expect(BrokerEndpointPolicy.bindable("tcp://localhost.example.com:1") == "tcp://localhost.example.com:1")
        #expect(BrokerEndpointPolicy.bindable("ipc:///tmp/localhost:1") == "ipc:///tmp/localhost:1")

        let context = try ZMQContext()
        defer { context.shutdown() }
        let raw = try ZMQSocket(context, .pub)
        defer { raw.close() }
        #expect(throws: ZMQError.self) { try raw.bind("tcp://localhost:0") }
        let socket = try ZMQSocket(context, .pub)
        defer { socket.close() }
        try socket.bind(BrokerEndpointPolicy.bindable("tcp://localhost:0"))
    }
}
