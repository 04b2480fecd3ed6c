#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process itself: its id, ending it, SIGPIPE and SIGXFSZ, the processors it may use.
public enum ProcessControl {
    /// `getpid`.
    public static var id: Int32 { getpid() }

    /// `getuid`: the user this process runs as.
    public static var userID: UInt32 { UInt32(getuid()) }

    /// Whether a process with this id exists (`kill(pid, 0)`: EPERM means it does, owned by
    /// someone else) and has not ended: on Linux a zombie (state Z in /proc/PID/stat, an ended
    /// process its parent has not reaped) counts as gone. Only positive ids: 0 and -1 would
    /// name groups.
    public static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux) // Linux-only tuning: a zombie still answers kill(pid, 0); Darwin has no /proc, and there a zombie counts as alive
        // "PID (COMM) STATE …": COMM may hold ')' and spaces, so the state follows the last ')'.
        if let stat = FileReading.smallRegularFile(path: "/proc/\(pid)/stat", limit: 4096),
           let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count,
           [UInt8(ascii: "Z"), UInt8(ascii: "X")].contains(stat[close + 2]) {
            return false
        }
        #endif
        return true
    }

    /// When the process started, in clock ticks since boot (Linux /proc/PID/stat field 22):
    /// with the pid, it names one process, not a later one the pid was given to. Nil where
    /// it cannot be read (another OS, a process that is gone).
    public static func startTime(_ pid: Int32) -> Int64? {
        #if os(Linux)
        guard pid > 0, let stat = FileReading.smallRegularFile(path: "/proc/\(pid)/stat", limit: 4096),
              let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After "PID (COMM) ": field 3 (the state) onwards; field 22 is the 20th of those.
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let ticks = Int64(String(decoding: fields[fields.startIndex + 19], as: UTF8.self)), ticks >= 0 else { return nil }
        return ticks
        #else
        return nil
        #endif
    }

    /// `exit`: flushes C stdio and runs atexit handlers.
    public static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #elseif canImport(Darwin)
        Darwin.exit(status)
        #endif
    }

    /// A broken pipe becomes an EPIPE from `write` (which the output sinks report) instead of a
    /// SIGPIPE that kills the process mid-line.
    public static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// A write past the file size limit (`ulimit -f`) becomes an EFBIG from `write` instead of
    /// a SIGXFSZ that kills the process: a server answers that request 500 and keeps serving,
    /// and the file it was replacing or appending to is left as it was (its temporary file
    /// removed, a partial record cut off).
    public static func ignoreFileSizeLimit() {
        _ = signal(SIGXFSZ, SIG_IGN)
    }

    /// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1.
    public static var processorCount: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n < 1 ? 1 : Int(n)
    }
}
