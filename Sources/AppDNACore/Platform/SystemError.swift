#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An `errno` value: what a system call of the platform layer failed with. The numbers differ
/// between Linux and Darwin (EAGAIN is 11 on Linux, 35 on Darwin), so the ones the tool tells
/// apart are named here and nowhere else.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// `errno` now: read it right after the call that failed.
    public static var last: SystemError { SystemError(code: errno) }

    public static let interrupted = SystemError(code: EINTR)
    public static let notFound = SystemError(code: ENOENT)
    public static let exists = SystemError(code: EEXIST)
    public static let brokenPipe = SystemError(code: EPIPE)
    /// EAGAIN; EWOULDBLOCK is the same number on Linux (11) and Darwin (35, xnu bsd/sys/errno.h).
    public static let wouldBlock = SystemError(code: EAGAIN)
    public static let addressInUse = SystemError(code: EADDRINUSE)
    public static let invalidArgument = SystemError(code: EINVAL)
    public static let connectionAborted = SystemError(code: ECONNABORTED)
    public static let tooManyOpenFiles = SystemError(code: EMFILE)
    public static let fileTableFull = SystemError(code: ENFILE)
    public static let inputOutput = SystemError(code: EIO)
    public static let notADirectory = SystemError(code: ENOTDIR)
    public static let noSpace = SystemError(code: ENOSPC)
    /// ELOOP: what `open` with `.noFollow` says of a symbolic link.
    public static let symbolicLinkLoop = SystemError(code: ELOOP)
    /// ENXIO: what a non-blocking `open` for writing says of a FIFO nobody reads.
    public static let noReader = SystemError(code: ENXIO)

    /// The way `strerror` says it, first letter lower-cased ("no such file or directory").
    public var description: String { Self.describe(code) }

    public static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        let message = String(cString: text)
        // Lower-case the first letter so it reads well after "path: ".
        guard let first = message.first else { return message }
        return first.lowercased() + message.dropFirst()
    }
}
