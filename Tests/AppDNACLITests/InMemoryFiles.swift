import AppDNACore

/// Output files held in memory (`CommandIO.files`), so a command's file behaviour runs in
/// process: what it reads comes from `contents`, what it writes lands there and is listed in
/// `writes`, and a path in `refused` is refused as a directory without write permission is.
final class InMemoryFiles: FileAccess {
    private let state: Locked<State>
    let refused: Set<String>

    struct State {
        var contents: [String: [UInt8]]
        var writes: [String] = []
        // api serve, api override (issue 54.3)
        /// Directories made or given, with their permission bits.
        var directories: [String: UInt32] = [:]
        var removals: [String] = []
        /// Every path read (`readAll`, `smallRegularFile`), in order.
        var reads: [String] = []
    }

    init(_ contents: [String: [UInt8]] = [:], directories: [String: UInt32] = [:], refused: Set<String> = []) {
        state = Locked(State(contents: contents, directories: directories))
        self.refused = refused
    }

    var contents: [String: [UInt8]] { state.withLock { $0.contents } }
    var writes: [String] { state.withLock { $0.writes } }
    var directories: [String: UInt32] { state.withLock { $0.directories } }
    var removals: [String] { state.withLock { $0.removals } }
    var reads: [String] { state.withLock { $0.reads } }

    func checkWritable(path: String) throws(Failure) {
        if refused.contains(path) {
            throw Failure(.cannotCreateOutput, "\(path): cannot create a file in its directory: permission denied")
        }
    }

    func replace(path: String, with bytes: [UInt8], timeout: Double?) throws(Failure) {
        try checkWritable(path: path)
        state.withLock { state in
            state.contents[path] = bytes
            state.writes.append(path)
        }
    }

    func regularFileBytes(path: String) -> [UInt8]? {
        state.withLock { $0.contents[path] }
    }

    // api serve, api override (issue 54.3)
    func readAll(path: String) throws(Failure) -> [UInt8] {
        try state.withLock { (state: inout State) throws(Failure) -> [UInt8] in
            state.reads.append(path)
            guard let bytes = state.contents[path] else { throw Failure(.inputMissing, "\(path): no such file") }
            return bytes
        }
    }

    func status(path: String, followingLinks: Bool) -> FileStatus? {
        state.withLock { state in
            if let bytes = state.contents[path] {
                return FileStatus(kind: .regular, kindName: "a regular file", size: Int64(bytes.count), permissions: 0o600, owner: ProcessControl.userID)
            }
            return state.directories[path].map { FileStatus(kind: .directory, kindName: "a directory", size: 0, permissions: $0, owner: ProcessControl.userID) }
        }
    }

    func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        state.withLock { state in
            state.reads.append(path)
            return state.contents[path].flatMap { $0.count <= limit ? $0 : nil }
        }
    }

    func makeDirectory(path: String, permissions: UInt32) throws(Failure) {
        if refused.contains(path) { throw Failure(.cannotCreateOutput, "Permission denied") }
        state.withLock { $0.directories[path] = permissions }
    }

    func entries(of directory: String) -> [String]? {
        state.withLock { state in
            guard state.directories[directory] != nil else { return nil }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return (Array(state.contents.keys) + Array(state.directories.keys)).compactMap { path in
                guard path.hasPrefix(prefix) else { return nil }
                let rest = path.dropFirst(prefix.count)
                return rest.isEmpty || rest.contains("/") ? nil : String(rest)
            }.sorted()
        }
    }

    func removeFile(path: String) -> Bool {
        state.withLock { state in
            guard state.contents.removeValue(forKey: path) != nil else { return false }
            state.removals.append(path)
            return true
        }
    }

    func openForAppending(path: String) throws(Failure) -> any AppendingFile {
        if refused.contains(path) { throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: permission denied") }
        state.withLock { state in
            if state.contents[path] == nil { state.contents[path] = [] }
        }
        return Appending(files: self, path: path)
    }

    /// Appends land in `contents`.
    struct Appending: AppendingFile {
        let files: InMemoryFiles
        let path: String

        func append(line: [UInt8]) -> String? {
            files.state.withLock { $0.contents[path, default: []] += line }
            return nil
        }
    }
}
