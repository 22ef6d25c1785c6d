#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A real, small file system for disk-fault tests: a tmpfs of a given size mounted on a fresh
/// directory (root only), filled up, freed, or remounted read-only. Always unmounted, even when
/// the body throws or an expectation fails.
enum SmallFileSystem {
    static var available: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    static func with<T>(kilobytes: Int, _ body: (String) throws -> T) throws -> T {
        try StoreTestSupport.withTemporaryDirectory { dir in
            let mountPoint = dir + "/fs"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            try run("/bin/mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", mountPoint)
            defer { try? run("/bin/umount", "-l", mountPoint) }
            return try body(mountPoint)
        }
    }

    static func remountReadOnly(_ mountPoint: String) throws {
        try run("/bin/mount", "-o", "remount,ro", mountPoint)
    }

    /// Fills the file system to the last byte with `dir/filler`.
    static func fill(_ dir: String) {
        let descriptor = open(dir + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x46, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        var byte: UInt8 = 0x46
        while write(descriptor, &byte, 1) > 0 {}
    }

    static func free(_ dir: String) {
        unlink(dir + "/filler")
    }

    private static func run(_ tool: String, _ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) exited \(process.terminationStatus)"])
        }
    }
}
