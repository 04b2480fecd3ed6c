/// Where a running `api serve --inspect` can be found without being told: each such server
/// writes a small file (its inspector's address, its API's, its process id) into a per-user
/// runtime directory while it runs, and `api override` reads the files whose process is still
/// alive. The file holds no secret (the inspector's token stays on its page). The inspector
/// listens on loopback only, and its token is sent to it: only a loopback address is taken.
///
///     $XDG_RUNTIME_DIR/appdna/api-serve-PID.json   (when XDG_RUNTIME_DIR is set)
///     $HOME/.appdna/run/api-serve-PID.json         (otherwise)
///
///     {"inspector":"http://127.0.0.1:8766","api":"http://127.0.0.1:8765","pid":4242,"started":81234}
public struct InspectorDiscovery: Sendable, Equatable {
    public let inspector: String
    public let api: String
    public let pid: Int32
    /// The process's start time (`ProcessControl.startTime`), where the OS tells it: a file
    /// whose pid now names a later process is stale. Absent in files of older versions.
    public let started: Int64?

    public init(inspector: String, api: String, pid: Int32, started: Int64? = nil) {
        self.inspector = inspector
        self.api = api
        self.pid = pid
        self.started = started
    }

    static let prefix = "api-serve-"
    static let suffix = ".json"

    /// The runtime directory for this user, from the environment; nil when neither
    /// XDG_RUNTIME_DIR nor HOME is set (then there is no discovery).
    public static func directory(environment: [String: String]) -> String? {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/appdna" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.appdna/run" }
        return nil
    }

    /// This server's file in `directory`.
    public static func path(in directory: String, pid: Int32) -> String {
        "\(directory)/\(prefix)\(pid)\(suffix)"
    }

    public var jsonLine: [UInt8] {
        var object: JSONObject = ["inspector": .string(inspector), "api": .string(api), "pid": .integer(pid)]
        if let started { object["started"] = .integer(started) }
        return JSONWriter().write(.object(object)) + [0x0A]
    }

    /// Writes this server's file (the directory made 0700 if missing, and refused when it is
    /// not this user's own: see `problem(with:)`), read back before it is kept, all through
    /// `files` (the command's `FileAccess`); returns its path.
    public func write(in directory: String, files: any FileAccess = SystemFileAccess()) throws(Failure) -> String {
        // Only appdna's own directories are made: $XDG_RUNTIME_DIR or $HOME must be there
        // already (a missing home is not created for a convenience).
        let base = directory.hasSuffix("/.appdna/run") ? String(directory.dropLast("/.appdna/run".count))
            : directory.hasSuffix("/appdna") ? String(directory.dropLast("/appdna".count))
            : String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        guard base.isEmpty || (try? files.status(path: base, followingLinks: true))?.kind == .directory else {
            throw Failure(.cannotCreateOutput, "\(base) is not an existing directory: the discovery directory is made only inside one")
        }
        var made = base
        for part in directory.dropFirst(base.count).split(separator: "/") {
            made += "/" + part
            if (try? files.status(path: made, followingLinks: true)) == nil {
                // 0700 whatever the umask (the door makes the mode exact).
                do { try files.makePrivateDirectory(path: made, permissions: 0o700) } catch {
                    throw Failure(.cannotCreateOutput, "\(made): cannot create the discovery directory: \(error.message)")
                }
            }
        }
        if let problem = Self.problem(with: directory, files: files) {
            throw Failure(.cannotCreateOutput, "\(directory): \(problem)")
        }
        let path = Self.path(in: directory, pid: pid)
        try files.replace(path: path, with: jsonLine, timeout: nil)
        guard let read = files.smallRegularFile(path: path, limit: Self.fileLimit), Self.parse(read) == self else {
            throw Failure(.cannotCreateOutput, "\(path): the discovery file did not read back as written")
        }
        return path
    }

    /// The most a discovery file holds (its line is under 700 bytes).
    static let fileLimit = 4096

    /// Why `directory` cannot be trusted with discovery files, nil when it can (or does not
    /// exist): another user's files there would send this user's inspector token elsewhere.
    /// It must be a real directory (not a symbolic link), this user's, and writable by no one else.
    public static func problem(with directory: String, files: any FileAccess = SystemFileAccess()) -> String? {
        guard let status = (try? files.status(path: directory, followingLinks: false)) else { return nil }
        if status.kind == .symbolicLink { return "the discovery directory is a symbolic link" }
        if status.kind != .directory { return "the discovery directory is \(status.kindName), not a directory" }
        if status.owner != ProcessControl.userID { return "the discovery directory belongs to another user (uid \(status.owner))" }
        if status.permissions & 0o022 != 0 {
            return "the discovery directory is writable by \(status.permissions & 0o002 != 0 ? "everyone" : "its group") (mode \(String(status.permissions, radix: 8))): make it 0700"
        }
        return nil
    }

    /// What `running(in:)` found: the live servers, and why the directory was not read.
    public struct Scan: Sendable, Equatable {
        public let servers: [InspectorDiscovery]
        /// Set when the directory was skipped (`problem(with:)`).
        public let refused: String?
    }

    /// The servers whose files are in `directory` and whose process is alive, by pid. Only
    /// regular files of at most 4 KiB are read (no FIFO, device, symbolic link or huge file),
    /// and only from a directory that `problem(with:)` finds nothing wrong with. A file whose
    /// process has ended (or is a zombie) is removed. Everything through `files` (the
    /// command's `FileAccess`).
    public static func scan(_ directory: String, files: any FileAccess = SystemFileAccess()) -> Scan {
        if let problem = problem(with: directory, files: files) { return Scan(servers: [], refused: "\(directory): \(problem)") }
        let names = files.entries(of: directory) ?? []
        let servers = names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted().compactMap { name -> InspectorDiscovery? in
            guard let bytes = files.smallRegularFile(path: directory + "/" + name, limit: fileLimit), let found = parse(bytes),
                  name == "\(prefix)\(found.pid)\(suffix)" else { return nil }
            let sameProcess = found.started == nil || ProcessControl.startTime(found.pid).map { $0 == found.started } ?? true
            guard ProcessControl.isAlive(found.pid), sameProcess else {
                // Left by a server that was killed: removed, so it cannot be taken for a later process with its pid.
                _ = files.removeFile(path: directory + "/" + name)
                return nil
            }
            return found
        }
        return Scan(servers: servers, refused: nil)
    }

    /// The servers `scan` finds alive.
    public static func running(in directory: String, files: any FileAccess = SystemFileAccess()) -> [InspectorDiscovery] { scan(directory, files: files).servers }

    /// A file's contents; nil when they are not a discovery record (range-checked pid,
    /// loopback http addresses only: the token is sent to the inspector).
    public static func parse(_ bytes: [UInt8]) -> InspectorDiscovery? {
        guard bytes.count <= 4096, let value = try? JSONValue(parsing: bytes),
              case .string(let inspector)? = value["inspector"], case .string(let api)? = value["api"],
              case .number(let number)? = value["pid"], let pid = number.int64, (1...Int64(Int32.max)).contains(pid),
              isLoopback(inspector), isPlainHTTP(api) else { return nil }
        var started: Int64? = nil
        if let value = value["started"] {
            guard case .number(let number) = value, let ticks = number.int64, ticks >= 0 else { return nil }
            started = ticks
        }
        return InspectorDiscovery(inspector: inspector, api: api, pid: Int32(pid), started: started)
    }

    /// The API's address, informative only (the server may listen on another interface too):
    /// plain http, printable ASCII, short.
    static func isPlainHTTP(_ url: String) -> Bool {
        url.hasPrefix("http://") && url.utf8.count <= 300 && url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `http://127.0.0.1:PORT` (or localhost, [::1]) and nothing else: a port of plain digits
    /// (no sign, no leading zero) in range. `api override --server` takes the same addresses.
    public static func isLoopback(_ url: String) -> Bool {
        ["http://127.0.0.1:", "http://localhost:", "http://[::1]:"].contains { prefix in
            guard url.hasPrefix(prefix) else { return false }
            let port = url.utf8.dropFirst(prefix.utf8.count)
            guard !port.isEmpty, port.count <= 5, port.first != 0x30, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(String(decoding: port, as: UTF8.self)) else { return false }
            return (1...65535).contains(number)
        }
    }
}
