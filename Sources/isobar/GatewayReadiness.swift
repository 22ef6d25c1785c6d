import Foundation
import IsobarGateway

/// `isobar up` prints the web map's URL on stderr once the gateway accepts connections.
enum GatewayReadiness {
    /// Polls the gateway's port from a background thread (for up to 60 s) and prints
    /// `web map: http://HOST:PORT/` once a TCP connection succeeds.
    static func announce(_ address: ListenAddress) {
        let thread = Thread {
            for _ in 0..<600 {
                if canConnect(address) {
                    FileHandle.standardError.write(Data("web map: http://\(address.host):\(address.port)/\n".utf8))
                    return
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.start()
    }

    private static func canConnect(_ address: ListenAddress) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0
    }
}
