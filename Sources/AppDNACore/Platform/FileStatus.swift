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
    /// What the file is, in words: "a regular file", "a directory", "a FIFO", "a symbolic
    /// link", "a character device", "a block device", "a socket".
    public let kindName: String
    public let size: Int64
    /// The permission bits (`mode & 0o7777`).
    public let permissions: UInt32
    /// The owner's user id.
    public let owner: UInt32

    /// A status made up (a test's files in memory).
    public init(kind: Kind, kindName: String, size: Int64, permissions: UInt32, owner: UInt32 = 0) {
        self.kind = kind
        self.kindName = kindName
        self.size = size
        self.permissions = permissions
        self.owner = owner
    }

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kindName = "a regular file"
        case S_IFDIR: kindName = "a directory"
        case S_IFIFO: kindName = "a FIFO"
        case S_IFLNK: kindName = "a symbolic link"
        case S_IFCHR: kindName = "a character device"
        case S_IFBLK: kindName = "a block device"
        case S_IFSOCK: kindName = "a socket"
        default: kindName = "a special file"
        }
        size = Int64(info.st_size)
        permissions = UInt32(info.st_mode) & 0o7777
        owner = UInt32(info.st_uid)
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
