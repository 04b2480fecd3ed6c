/// One `api serve` per state file: two servers on one `--state` (the default file in a
/// folder) would each replace the other's file, losing an override and serving one
/// `bundle_version` with two bodies. The server holds an exclusive lock on `STATE.lock` (the
/// state file itself is replaced on every change, so it cannot carry the lock) while it runs,
/// as `queue replay` locks its state directory; the lock goes with the process, even when it
/// is killed. The file says who holds it: the pid, then the port once listening.
public final class OverrideStateLock: Sendable {
    public let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { SystemFile.close(fd) }

    /// The lock file of `statePath`.
    public static func path(for statePath: String) -> String { statePath + ".lock" }

    /// Takes the lock, or says who holds it (69: the state is in use, as a port is).
    public static func acquire(statePath: String) throws(Failure) -> OverrideStateLock {
        let path = path(for: statePath)
        let fd: Int32
        do {
            fd = try SystemFile.open(path, [.read, .write, .create], permissions: 0o600)
        } catch {
            throw Failure(.cannotCreateOutput, "cannot create the lock \(path) of the state \(statePath): \(error)")
        }
        if (try? SystemFile.lockExclusively(fd, wait: false)) == nil {
            let lines = ((try? FileReading.readAll(path: path)) ?? []).split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
            SystemFile.close(fd)
            let holder = [lines.first.flatMap { Int32($0) }.map { "pid \($0)" },
                          lines.dropFirst().first.flatMap { Int($0) }.map { "port \($0)" }].compactMap { $0 }
            throw Failure(.unavailable, "another appdna api serve\(holder.isEmpty ? "" : " (" + holder.joined(separator: ", ") + ")") keeps its overrides in \(statePath) (lock \(path))",
                          hint: "stop it, or give this server a state file of its own")
        }
        let lock = OverrideStateLock(path: path, fd: fd)
        lock.record(port: nil)
        return lock
    }

    /// Writes the holder's pid and, once listening, its port.
    public func record(port: Int?) {
        let text = "\(ProcessControl.id)\n" + (port.map { "\($0)\n" } ?? "")
        try? SystemFile.truncate(fd, to: 0)
        try? SystemFile.writeAll(fd, Array(text.utf8), at: 0)
    }

    /// At a clean stop: removes the lock file while still holding it (a killed server leaves
    /// it, unlocked, and the next one takes it), so a folder served once is left as it was.
    public func removeFile() {
        _ = FileSystem.removeFile(path)
    }

    /// Removes the temporary files a crash left beside `statePath` (`AtomicFile.replace`
    /// writes `.NAME.appdna-PID-RANDOM.tmp` and renames it over the file): with the lock
    /// held, no other server is writing one. The names removed, through `files` (the
    /// command's `FileAccess`; the lock itself is a descriptor, held, which no door expresses).
    @discardableResult
    public func removeLeftovers(of statePath: String, files: any FileAccess = SystemFileAccess()) -> [String] {
        let slash = statePath.lastIndex(of: "/")
        let directory = slash.map { String(statePath[..<$0]) } ?? "."
        let name = slash.map { String(statePath[statePath.index(after: $0)...]) } ?? statePath
        let prefix = "." + name + ".appdna-"
        var removed: [String] = []
        for entry in files.entries(of: directory.isEmpty ? "/" : directory) ?? [] where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let full = (directory.isEmpty ? "" : directory) + "/" + entry
            if (try? files.status(path: full, followingLinks: false))?.kind == .regular, files.removeFile(path: full) { removed.append(entry) }
        }
        return removed
    }
}
