#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file, as Swift values: `mode_t` is `UInt32` on Linux and `UInt16`
/// on Darwin (Libc's sys/_types/_mode_t.h), so no caller compares `st_mode` bits itself.
public struct FileStatus: Sendable {
    public enum Kind: Sendable { case regular, directory, fifo, symbolicLink, other }

    public let kind: Kind
    public let size: Int64
    /// The permission bits (`mode & 0o7777`).
    public let permissions: UInt32

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(info.st_size)
        permissions = UInt32(info.st_mode) & 0o7777
    }

    /// `stat`: the file a path names, symbolic links followed.
    public static func of(path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .last }
        return FileStatus(info)
    }

    /// `lstat`: a symbolic link itself.
    public static func ofLink(path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .last }
        return FileStatus(info)
    }

    /// `fstat`: an open file.
    public static func of(descriptor: Int32) throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .last }
        return FileStatus(info)
    }

    /// The kind of the file at `path`, nil when it cannot be looked at.
    public static func kind(path: String) -> Kind? { (try? of(path: path))?.kind }
}
