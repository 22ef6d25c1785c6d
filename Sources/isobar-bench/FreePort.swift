#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Finds unused loopback TCP ports so benchmark pipelines never collide with a running `isobar up`
/// or with each other.
enum FreePort {
    /// A port the kernel just handed out for 127.0.0.1 (free at that moment).
    static func next() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return Int.random(in: 20_000...40_000) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(fd, raw, length) == 0 else { return -1 }
                return getsockname(fd, raw, &length)
            }
        }
        guard bound == 0 else { return Int.random(in: 20_000...40_000) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A frontend/backend endpoint pair on two fresh ports, or, with `ISOBAR_BENCH_TRANSPORT=ipc`,
    /// two fresh Unix-socket paths (`ipc://`, for processes on one host).
    static func endpoints() -> (frontend: String, backend: String) {
        if ProcessInfo.processInfo.environment["ISOBAR_BENCH_TRANSPORT"] == "ipc" {
            let base = NSTemporaryDirectory() + "isobar-bench-\(getpid())-\(next())"
            return ("ipc://\(base)-pub.sock", "ipc://\(base)-sub.sock")
        }
        return ("tcp://127.0.0.1:\(next())", "tcp://127.0.0.1:\(next())")
    }
}
