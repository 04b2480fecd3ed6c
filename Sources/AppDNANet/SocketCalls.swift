import AppDNACore

/// The socket calls whose spelling or meaning differ between glibc, musl and Darwin, each
/// behind one small function so that `HTTPServer` and `ServerConnection` read the same on every
/// platform. Darwin branches follow Apple's headers (apple-oss-distributions/xnu, checked at
/// commit 1031c584):
/// - bsd/sys/socket.h has no `SOCK_CLOEXEC` (nor `accept4`), and `SOCK_STREAM` is a plain
///   `#define` (an `Int32` in Swift); glibc's is an enum (`__socket_type`) with a `rawValue`.
/// - bsd/sys/socket.h defines `MSG_NOSIGNAL` only under `__DARWIN_C_LEVEL >= 200809L` in
///   recent SDKs and not at all in older ones; `SO_NOSIGPIPE` (0x1022) has been there since
///   the first releases, so Darwin sockets get that option instead of a send flag.
enum SocketCalls {
    /// A TCP/IPv4 stream socket that is closed on exec (and, on Darwin, never raises SIGPIPE).
    static func streamSocket() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #elseif canImport(Musl)
        return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #elseif canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        if fd >= 0 { prepareAccepted(fd) }
        return fd
        #endif
    }

    /// Accepts a connection on `listener`, filling `address`; the new descriptor is closed on
    /// exec and will not raise SIGPIPE. Returns -1 with `errno` set like `accept`.
    static func accept(_ listener: Int32, _ address: inout sockaddr_in) -> Int32 {
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { AppDNACore.accept(listener, $0, &length) }
        }
        if fd >= 0 { prepareAccepted(fd) }
        return fd
    }

    /// Close-on-exec (there is no portable `accept4`), plus `SO_NOSIGPIPE` on Darwin, where an
    /// accepted socket's options are not guaranteed to be inherited from the listener.
    private static func prepareAccepted(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `send` that reports a closed peer as EPIPE instead of killing the process with SIGPIPE;
    /// `flags` adds e.g. `MSG_DONTWAIT` (the same value on both).
    static func sendWithoutSignal(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, flags: Int32 = 0) -> Int {
        #if canImport(Glibc) || canImport(Musl)
        return send(fd, bytes, count, Int32(MSG_NOSIGNAL) | flags)
        #elseif canImport(Darwin)
        return send(fd, bytes, count, flags)  // SO_NOSIGPIPE is set on every socket (prepareAccepted)
        #endif
    }

    /// `setsockopt` for an `Int32` option (`SO_REUSEADDR`, `TCP_NODELAY`).
    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32) -> Int32 {
        var value = value
        return setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The send timeout (`SO_SNDTIMEO`); `timeval`'s fields are `Int` on glibc and Darwin's
    /// `tv_usec` is `__darwin_suseconds_t` (Int32), so only whole seconds are set here.
    static func setSendTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval()
        timeout.tv_sec = seconds
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The TCP protocol number: an enum with a `rawValue` on glibc, a plain `Int32` elsewhere.
    static var tcpProtocol: Int32 {
        #if canImport(Glibc)
        return Int32(IPPROTO_TCP)
        #else
        return IPPROTO_TCP
        #endif
    }
}
