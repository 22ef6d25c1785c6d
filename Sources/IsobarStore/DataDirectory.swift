#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the directory that holds the database, with its parents, like `mkdir -p`.
enum DataDirectory {
    static func create(parentOf file: String) throws(StoreError) {
        guard let slash = file.lastIndex(of: "/") else { return }
        let directory = String(file[..<slash])
        guard !directory.isEmpty else { return }
        try create(directory)
    }

    static func create(_ directory: String) throws(StoreError) {
        var isDirectory = stat()
        if stat(directory, &isDirectory) == 0 {
            guard (isDirectory.st_mode & S_IFMT) == S_IFDIR else {
                throw .cannotCreateDirectory(path: directory, reason: "a file that is not a directory is in the way")
            }
            return
        }
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            try create(String(directory[..<slash]))
        }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreateDirectory(path: directory, reason: String(cString: strerror(errno)))
        }
    }
}
