#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Names in the file system: directories, removal, permissions, temporary directories.
public enum FileSystem {
    /// `mkdir`; `.exists` when something is there already.
    public static func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        guard mkdir(path, mode_t(permissions)) == 0 else { throw .last }
    }

    /// `unlink`; false when it could not be removed (nothing there, or not allowed).
    @discardableResult
    public static func removeFile(_ path: String) -> Bool { unlink(path) == 0 }

    /// `rmdir` of an empty directory.
    @discardableResult
    public static func removeDirectory(_ path: String) -> Bool { rmdir(path) == 0 }

    /// `chmod`.
    public static func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(permissions)) == 0 else { throw .last }
    }

    /// Whether this process may create files in the directory `path` (`access(W_OK | X_OK)`).
    public static func checkCanCreateFiles(in path: String) throws(SystemError) {
        guard access(path, W_OK | X_OK) == 0 else { throw .last }
    }

    /// Whether this process may write to `path` (`access(W_OK)`).
    public static func checkWritable(_ path: String) throws(SystemError) {
        guard access(path, W_OK) == 0 else { throw .last }
    }

    /// `mkdtemp`: a new directory `prefix` + six random characters, mode 0700; returns its path.
    public static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .last }
        return String(cString: made)
    }

    /// The names in a directory (`opendir`/`readdir`), "." and ".." left out; nil when it cannot
    /// be read.
    public static func entries(of directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            // `d_name` is a fixed C array (a tuple in Swift) on every C library, NUL-terminated.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `rename`, replacing `destination`.
    public static func rename(_ source: String, to destination: String) throws(SystemError) {
        #if canImport(Glibc)
        guard Glibc.rename(source, destination) == 0 else { throw .last }
        #elseif canImport(Musl)
        guard Musl.rename(source, destination) == 0 else { throw .last }
        #elseif canImport(Darwin)
        guard Darwin.rename(source, destination) == 0 else { throw .last }
        #endif
    }
}
