import Foundation

/// The socket calls the tests make, spelled for the platform they run on: glibc's socket
/// constants are enums with `rawValue`, Darwin's are `Int32` macros, and Darwin raises SIGPIPE
/// on a send to a closed socket unless the socket says otherwise (`SO_NOSIGPIPE`); older SDKs
/// lack `MSG_NOSIGNAL`. What Sources/AppDNACore/Platform/Sockets.swift does for the tool.
public enum TestSocket {
    /// A TCP socket of `family` (AF_INET, AF_INET6) that never raises SIGPIPE.
    public static func tcp(_ family: Int32 = AF_INET) -> Int32 {
        #if os(Linux)
        return socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        return fd
        #endif
    }

    /// The flags of a `send` that must not raise SIGPIPE (Darwin's socket has SO_NOSIGPIPE).
    public static var sendFlags: Int32 {
        #if os(Linux)
        return Int32(MSG_NOSIGNAL)
        #else
        return 0
        #endif
    }
}
