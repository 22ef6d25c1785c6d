import IsobarBus
import Testing

/// ZMTP heartbeats only on connections to another host (issue 32: on one host they were most of an
/// idle pipeline's bus cost, and there is no link there to lose).
@Suite struct HeartbeatScopeTests {
    @Test func endpointsOnThisHostAndOnTheNetwork() {
        let thisHost = ["ipc:///tmp/isobar.sock", "inproc://bus", "tcp://127.0.0.1:5559", "tcp://127.0.0.1:*",
                        "tcp://127.1.2.3:80", "tcp://localhost:5560", "tcp://[::1]:5559"]
        let network = ["tcp://10.0.0.2:5559", "tcp://broker:5559", "tcp://0.0.0.0:5559", "tcp://*:5559",
                       "tcp://128.0.0.1:5559", "tcp://127.0.0.256:1", "tcp://127.0.0:1", "tcp://127.0.0.1;10.0.0.2:5559",
                       "tcp://eth0:5559", "tcp://[::]:5559", "pgm://eth0;239.192.1.1:5555", "tcp://127.0.0.1"]
        #expect(thisHost.map(ZMQEndpointScope.init) == Array(repeating: .thisHost, count: thisHost.count))
        #expect(network.map(ZMQEndpointScope.init) == Array(repeating: .network, count: network.count))
    }

    @Test func aSocketHeartbeatsOnlyOnConnectionsToAnotherHost() throws {
        let context = try ZMQContext()
        // The defaults ask for a heartbeat each second.
        let remote = try ZMQSocket(context, .pub)
        #expect(try remote.heartbeatInterval() == 1_000)
        try remote.connect("tcp://10.255.255.1:5559")  // connects in the background; never reached
        #expect(try remote.heartbeatInterval() == 1_000)
        let local = try ZMQSocket(context, .sub)
        try local.bind("tcp://127.0.0.1:*")
        #expect(try local.heartbeatInterval() == 0)
        let ipc = try ZMQSocket(context, .pub)
        try ipc.connect("ipc:///tmp/isobar-heartbeat-scope-test.sock")
        #expect(try ipc.heartbeatInterval() == 0)
        // A socket that connects to both gets each endpoint's rule at each connect.
        let both = try ZMQSocket(context, .pub)
        try both.connect("tcp://127.0.0.1:5")
        #expect(try both.heartbeatInterval() == 0)
        try both.connect("tcp://10.255.255.2:5559")
        #expect(try both.heartbeatInterval() == 1_000)
        // No heartbeat asked for: none anywhere.
        let none = try ZMQSocket(context, .pub, options: [.linger(milliseconds: 0)])
        try none.connect("tcp://10.255.255.1:5559")
        #expect(try none.heartbeatInterval() == 0)
        for socket in [remote, local, ipc, both, none] { socket.close() }
        context.shutdown()
    }
}
