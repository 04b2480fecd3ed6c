import AppDNACore

/// Output files held in memory (`CommandIO.files`), so a command's file behaviour runs in
/// process: what it reads comes from `contents`, what it writes lands there and is listed in
/// `writes`, and a path in `refused` is refused as a directory without write permission is.
final class InMemoryFiles: FileAccess {
    let state: Locked<State>
    let refused: Set<String>

    struct State {
        var contents: [String: [UInt8]]
        var writes: [String] = []
        /// Directories that exist ("/" always does); see `InMemoryFiles+Directories.swift`.
        var directories: Set<String> = ["/"]
    }

    init(_ contents: [String: [UInt8]] = [:], refused: Set<String> = []) {
        state = Locked(State(contents: contents))
        self.refused = refused
    }

    var contents: [String: [UInt8]] { state.withLock { $0.contents } }
    var writes: [String] { state.withLock { $0.writes } }

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
}
