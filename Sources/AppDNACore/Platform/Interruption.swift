#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C and SIGTERM, handled one way for every command that outlives a moment (`queue replay`,
/// `webhook listen`, `api serve`): once `install()` ran, the signal is recorded instead of
/// killing the process. Replay's transfers in flight abort within a second (curl's progress
/// callback looks at `signal`), waits between retries end at once (`sleep`), and a server's
/// accept loop is woken through the descriptor it registered (`wake`). With
/// `exitOnSecondSignal`, a second signal quits at once with 128 + the signal.
///
/// The handler does only what a signal handler may: stores into memory allocated before it was
/// installed, `write`s one byte to each registered pipe and, for a second signal, `write`s the
/// prepared line and `_exit`s.
public enum Interruption {
    /// What the handler reads and writes: allocated once, before the handler can run.
    struct Shared {
        var signal: Int32 = 0
        var count: Int32 = 0
        var exitOnSecond: Int32 = 0
        /// The pipe that turns a signal into something `poll` sees; never drained, so once a
        /// signal came its read end stays readable.
        var readEnd: Int32 = -1
        var writeEnd: Int32 = -1
        /// Descriptors (a server's own wake pipe) written one byte `1` on each signal; -1 = free.
        var wakes: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)
        var farewell: UnsafePointer<UInt8>? = nil
        var farewellCount = 0
    }

    nonisolated(unsafe) static let shared: UnsafeMutablePointer<Shared> = {
        let pointer = UnsafeMutablePointer<Shared>.allocate(capacity: 1)
        pointer.initialize(to: Shared())
        return pointer
    }()
    /// Whether `install` ran; its lock is held while `shared` is changed (the handler only reads it).
    private static let installed = Locked(false)

    /// Records SIGINT and SIGTERM from now on (later calls do nothing).
    public static func install() {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
                shared.pointee.readEnd = ends[0]
                shared.pointee.writeEnd = ends[1]
            }
            // No SA_RESTART: a blocking read or wait returns EINTR and the caller looks.
            installHandler(for: [SIGINT, SIGTERM])
        }
    }

    /// SIGINT (Ctrl-C) and SIGTERM, the signals `signal` reports.
    public static let interruptSignal = SIGINT
    public static let terminationSignal = SIGTERM

    /// SIGINT or SIGTERM once received (the first one), else 0.
    public static var signal: Int32 { shared.pointee.signal }

    /// "SIGINT", "SIGTERM"
    public static func name(_ signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
    }

    /// Also writes the byte `1` to `descriptor` (the write end of a non-blocking pipe) on each
    /// signal; undone by `stopWaking` before the descriptor is closed.
    public static func wake(_ descriptor: Int32) {
        installed.withLock { _ in
            withUnsafeMutableBytes(of: &shared.pointee.wakes) { raw in
                let slots = raw.bindMemory(to: Int32.self)
                if let free = slots.firstIndex(of: -1) { slots[free] = descriptor }
            }
        }
    }

    public static func stopWaking(_ descriptor: Int32) {
        installed.withLock { _ in
            withUnsafeMutableBytes(of: &shared.pointee.wakes) { raw in
                let slots = raw.bindMemory(to: Int32.self)
                for index in slots.indices where slots[index] == descriptor { slots[index] = -1 }
            }
        }
    }

    /// A second signal writes `farewell` to standard error and quits at once with 128 + the
    /// signal (130 for SIGINT, 143 for SIGTERM), without finishing the work under way.
    public static func exitOnSecondSignal(saying farewell: String) {
        let bytes = Array(farewell.utf8)
        // Prepared now: a signal handler must not allocate.
        let message = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        message.initialize(from: bytes, count: bytes.count)
        installed.withLock { _ in
            shared.pointee.farewell = UnsafePointer(message)
            shared.pointee.farewellCount = bytes.count
            shared.pointee.exitOnSecond = 1
        }
    }

    /// Waits `seconds`, ending at once when a signal comes (after `install`).
    public static func sleep(_ seconds: Double) {
        let readEnd = shared.pointee.readEnd
        guard readEnd >= 0 else { return SystemTime.sleep(seconds) }
        let end = SystemTime.monotonicNanoseconds() + Int64(max(0, seconds) * 1e9)
        while signal == 0 {
            let left = end - SystemTime.monotonicNanoseconds()
            guard left > 0 else { return }
            var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, Int32(min((left + 999_999) / 1_000_000, 1000)))
        }
    }

    /// `struct sigaction` names its handler field differently on each C library. glibc: a union
    /// `__sigaction_handler` with `sa_handler` (bits/sigaction.h); musl: a union `__sa_handler`
    /// with `sa_handler`; Darwin: a union `__sigaction_u` with `__sa_handler` (xnu
    /// bsd/sys/signal.h: `struct sigaction { union __sigaction_u __sigaction_u; sigset_t sa_mask;
    /// int sa_flags; }`; `sa_handler` is only a C macro there).
    private static func installHandler(for signals: [Int32]) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = record
        #elseif canImport(Musl)
        action.__sa_handler.sa_handler = record
        #elseif canImport(Darwin)
        action.__sigaction_u.__sa_handler = record
        #endif
        sigemptyset(&action.sa_mask)
        for signal in signals { _ = sigaction(signal, &action, nil) }
    }
}

/// The handler: async-signal-safe work only (stores, `write`, `_exit`).
private func record(_ signal: Int32) {
    let shared = Interruption.shared
    shared.pointee.count += 1
    if shared.pointee.exitOnSecond != 0 && shared.pointee.count > 1 {
        if let farewell = shared.pointee.farewell { _ = write(2, farewell, shared.pointee.farewellCount) }
        _exit(128 + signal)
    }
    if shared.pointee.signal == 0 { shared.pointee.signal = signal }
    var one: UInt8 = 1
    if shared.pointee.writeEnd >= 0 { _ = write(shared.pointee.writeEnd, &one, 1) }
    // One by one: an array here would allocate.
    let wakes = shared.pointee.wakes
    if wakes.0 >= 0 { _ = write(wakes.0, &one, 1) }
    if wakes.1 >= 0 { _ = write(wakes.1, &one, 1) }
    if wakes.2 >= 0 { _ = write(wakes.2, &one, 1) }
    if wakes.3 >= 0 { _ = write(wakes.3, &one, 1) }
}
