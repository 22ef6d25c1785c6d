import Testing
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
