#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP sockets over IPv4 and IPv6 for the servers (`webhook listen`, `api serve`): the calls whose spelling or
/// meaning differ between glibc, musl and Darwin, each behind one small function, so that
/// `HTTPServer` and `ServerConnection` read the same on every platform. Darwin branches follow
/// Apple's headers (apple-oss-distributions/xnu):
/// - bsd/sys/socket.h has no `SOCK_CLOEXEC` (nor `accept4`), and `SOCK_STREAM` is a plain
///   `#define` (an `Int32` in Swift); glibc's is an enum (`__socket_type`) with a `rawValue`.
/// - bsd/sys/socket.h defines `MSG_NOSIGNAL` only under `__DARWIN_C_LEVEL >= 200809L` in
///   recent SDKs and not at all in older ones; `SO_NOSIGPIPE` (0x1022) has been there since
///   the first releases, so Darwin sockets get that option instead of a send flag.
/// - bsd/netinet/in.h: `struct sockaddr_in` starts with `sin_len` on Darwin (set to its size);
///   bsd/netinet6/in6.h: so does `struct sockaddr_in6` (`sin6_len`).
public enum Sockets {
    /// Why `listen` failed.
    public enum ListenFailure: Error, Equatable {
        /// The host is neither a dotted IPv4 address nor an IPv6 one (nor "localhost").
        case notAnAddress(String)
        case socket(SystemError)
        /// `bind` or `listen` refused (`.addressInUse`: another process has the port).
        case bind(SystemError)
    }

    /// Whether `listen` takes `host` as an address (an IPv4 address, an IPv6 one, or
    /// "localhost"), told without a socket: a plan checks its --host before anything is bound.
    public static func isListenAddress(_ host: String) -> Bool {
        let text = host == "localhost" ? "127.0.0.1" : host
        if text.utf8.contains(UInt8(ascii: ":")) {
            var address = in6_addr()
            return inet_pton(AF_INET6, text, &address) == 1
        }
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// A TCP socket listening on `host` (an IPv4 address, an IPv6 one such as `::1` or `::`,
    /// or "localhost") and `port` (0: any free one) with SO_REUSEADDR and `backlog` connections
    /// waiting in the kernel's queue (capped by the kernel: net.core.somaxconn,
    /// kern.ipc.somaxconn); returns it and the port it got. `::` takes IPv4 connections too
    /// where the system's default allows it (Linux's net.ipv6.bindv6only = 0, Darwin's too).
    public static func listen(host: String, port: Int, backlog: Int32 = 128) throws(ListenFailure) -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw .bind(.invalidArgument) }
        let wirePort = in_port_t(UInt16(port).bigEndian)
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        let text = host == "localhost" ? "127.0.0.1" : host
        if text.utf8.contains(UInt8(ascii: ":")) {
            var address = sockaddr_in6()
            #if canImport(Darwin)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = wirePort
            guard inet_pton(AF_INET6, text, &address.sin6_addr) == 1 else { throw .notAnAddress(host) }
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: address) { target.copyMemory(from: $0) } }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in6>.size), AF_INET6)
        } else {
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = wirePort
            guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { throw .notAnAddress(host) }
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: address) { target.copyMemory(from: $0) } }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in>.size), AF_INET)
        }
        let fd = streamSocket(family)
        guard fd >= 0 else { throw .socket(.last) }
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        #if canImport(Glibc)
        let listening = bound == 0 && Glibc.listen(fd, backlog) == 0
        #elseif canImport(Musl)
        let listening = bound == 0 && Musl.listen(fd, backlog) == 0
        #elseif canImport(Darwin)
        let listening = bound == 0 && Darwin.listen(fd, backlog) == 0
        #endif
        guard listening else {
            let error = SystemError.last
            SystemFile.close(fd)
            throw .bind(error)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return (fd, endpoint(actual).port)
    }

    /// A TCP stream socket of `family` (AF_INET, AF_INET6) that is closed on exec (and, on
    /// Darwin, never raises SIGPIPE).
    static func streamSocket(_ family: Int32) -> Int32 {
        #if canImport(Glibc)
        return socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #elseif canImport(Musl)
        return socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #elseif canImport(Darwin)
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { prepareAccepted(fd) }
        return fd
        #endif
    }

    /// Accepts a connection on `listener`: its descriptor (closed on exec, never raising
    /// SIGPIPE) and the peer as "address:port" ("[address]:port" over IPv6).
    public static func accept(_ listener: Int32) throws(SystemError) -> (fd: Int32, peer: String) {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &address) {
            #if canImport(Glibc)
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
            #elseif canImport(Musl)
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Musl.accept(listener, $0, &length) }
            #elseif canImport(Darwin)
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Darwin.accept(listener, $0, &length) }
            #endif
        }
        guard fd >= 0 else { throw .last }
        prepareAccepted(fd)
        let peer = endpoint(address)
        return (fd, peer.address.utf8.contains(UInt8(ascii: ":")) ? "[\(peer.address)]:\(peer.port)" : "\(peer.address):\(peer.port)")
    }

    /// Close-on-exec (there is no portable `accept4`), plus `SO_NOSIGPIPE` on Darwin, where an
    /// accepted socket's options are not guaranteed to be inherited from the listener.
    private static func prepareAccepted(_ fd: Int32) {
        SystemFile.setCloseOnExec(fd)
        #if canImport(Darwin)
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }

    /// An accepted connection as the servers use it: blocking (Darwin's accept passes the
    /// listener's O_NONBLOCK on, Linux's does not), sends that give up after `sendTimeout`
    /// whole seconds (`SO_SNDTIMEO`), and small responses sent at once (`TCP_NODELAY`).
    public static func prepareConnection(_ fd: Int32, sendTimeout seconds: Int) {
        SystemFile.setNonBlocking(fd, false)
        // `timeval`'s fields are `Int` on glibc and Darwin's `tv_usec` is `__darwin_suseconds_t`
        // (Int32), so only whole seconds are set here.
        var timeout = timeval()
        timeout.tv_sec = seconds
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setOption(fd, tcpProtocol, TCP_NODELAY, 1)
    }

    /// `send` that reports a closed peer as EPIPE instead of killing the process with SIGPIPE;
    /// `dontWait` sends only what fits now (`MSG_DONTWAIT`, the same value on both). Returns the
    /// bytes sent, or -1 with `SystemError.last` set.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, dontWait: Bool = false) -> Int {
        let flags: Int32 = dontWait ? Int32(MSG_DONTWAIT) : 0
        #if canImport(Glibc)
        return Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL) | flags)
        #elseif canImport(Musl)
        return Musl.send(fd, bytes, count, Int32(MSG_NOSIGNAL) | flags)
        #elseif canImport(Darwin)
        return Darwin.send(fd, bytes, count, flags)  // SO_NOSIGPIPE is set on every socket (prepareAccepted)
        #endif
    }

    /// One `recv` into `buffer`: the bytes received, 0 when the peer closed, or -1 with
    /// `SystemError.last` set (`.wouldBlock` with `dontWait` when nothing is there).
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, dontWait: Bool = false) -> Int {
        recv(fd, buffer.baseAddress, buffer.count, dontWait ? Int32(MSG_DONTWAIT) : 0)
    }

    /// Which way `shutdown` closes a connection.
    public enum Direction {
        /// No more sending: the peer reads the end of the stream, and can still send.
        case sending
        /// Neither way: a `send` or `recv` blocked on it returns at once.
        case both
    }

    /// `shutdown`: ends one or both directions of a connection without closing the descriptor.
    public static func shutdown(_ fd: Int32, _ direction: Direction) {
        #if canImport(Glibc)
        _ = Glibc.shutdown(fd, Int32(direction == .sending ? SHUT_WR : SHUT_RDWR))
        #elseif canImport(Musl)
        _ = Musl.shutdown(fd, direction == .sending ? SHUT_WR : SHUT_RDWR)
        #elseif canImport(Darwin)
        _ = Darwin.shutdown(fd, direction == .sending ? SHUT_WR : SHUT_RDWR)
        #endif
    }

    /// `setsockopt` for an `Int32` option (`SO_REUSEADDR`, `TCP_NODELAY`, `SO_NOSIGPIPE`).
    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32) -> Int32 {
        var value = value
        return setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The TCP protocol number: an enum with a `rawValue` on glibc, a plain `Int32` elsewhere.
    static var tcpProtocol: Int32 {
        #if canImport(Glibc)
        return Int32(IPPROTO_TCP)
        #else
        return IPPROTO_TCP
        #endif
    }

    /// The address (as text) and port of an IPv4 or IPv6 socket address.
    static func endpoint(_ storage: sockaddr_storage) -> (address: String, port: Int) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let port: UInt16
        if Int32(storage.ss_family) == AF_INET6 {
            var address = withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in6.self) }
            inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
            port = UInt16(bigEndian: address.sin6_port)
        } else {
            var address = withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in.self) }
            inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
            port = UInt16(bigEndian: address.sin_port)
        }
        return (String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self), Int(port))
    }
}

/// One descriptor to wait on with `Poll.wait` until it has input, room for output, or is closed:
/// the same memory as a C `pollfd`, so a whole array is handed to `poll` as it is.
public struct PollDescriptor {
    fileprivate var raw: pollfd

    /// What a descriptor is waited for.
    public enum Interest {
        case input
        case output
        /// Only a hang-up or an error (which `poll` always reports).
        case closeOnly
    }

    public init(_ fd: Int32, _ interest: Interest = .input) {
        let events: Int16
        switch interest {
        case .input: events = Int16(POLLIN)
        case .output: events = Int16(POLLOUT)
        case .closeOnly: events = 0
        }
        raw = pollfd(fd: fd, events: events, revents: 0)
    }

    /// A place in the array that `poll` skips (a negative descriptor): keeps the indices of
    /// the others where they are.
    public static var skipped: PollDescriptor { PollDescriptor(-1) }

    public var fd: Int32 { raw.fd }
    /// Whether `poll` found input, a hang-up or an error on it.
    public var isReady: Bool { raw.revents != 0 }
}

public enum Poll {
    /// `poll` for input on `descriptors` for at most `milliseconds` (-1: no limit): how many are
    /// ready (0 after the time ran out), or -1 with `SystemError.last` set (`.interrupted`).
    public static func wait(_ descriptors: inout [PollDescriptor], milliseconds: Int32) -> Int32 {
        descriptors.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: pollfd.self) { fds in
                poll(fds.baseAddress, nfds_t(fds.count), milliseconds)
            }
        }
    }

    /// Waits up to `milliseconds` for input on one descriptor; whether some came (false after
    /// the time ran out or a signal).
    public static func waitForInput(_ fd: Int32, milliseconds: Int32) -> Bool {
        var one = [PollDescriptor(fd)]
        return wait(&one, milliseconds: milliseconds) > 0
    }
}
