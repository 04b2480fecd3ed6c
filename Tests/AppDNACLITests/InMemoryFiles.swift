import Foundation
import AppDNACore

/// Files held in memory (`CommandIO.files`), so a command's file behaviour runs in process:
/// what it reads comes from `contents` (a file) and `directories` (with their permission bits;
/// "/" always exists), what it writes lands there and is listed in `writes` (files replaced),
/// every change of any kind (files replaced, directories made, permissions set, files removed,
/// files opened to append to) in `changes`, every read in `reads`, and a path in `refused` is refused as a file or a directory without write
/// permission is (its directory, for a file).
final class InMemoryFiles: FileAccess {
    let state: Locked<State>
    let refused: Set<String>

    struct State {
        var contents: [String: [UInt8]]
        var directories: [String: UInt32]
        /// The files replaced, in order.
        var writes: [String] = []
        /// Every change, in order: the path replaced, made, chmodded, removed or opened to append to.
        var changes: [String] = []
        var removals: [String] = []
        /// Every path read (`readAll`, `smallRegularFile`, `regularFileBytes`), in order.
        var reads: [String] = []
    }

    init(_ contents: [String: [UInt8]] = [:], directories: [String: UInt32] = [:], refused: Set<String> = []) {
        state = Locked(State(contents: contents, directories: directories.merging(["/": 0o755]) { given, _ in given }))
        self.refused = refused
    }

    /// `directories` that exist at the start, made 0755.
    convenience init(_ contents: [String: [UInt8]] = [:], directories: Set<String>, refused: Set<String> = []) {
        self.init(contents, directories: Dictionary(uniqueKeysWithValues: directories.map { ($0, 0o755) }), refused: refused)
    }

    var contents: [String: [UInt8]] { state.withLock { $0.contents } }
    var writes: [String] { state.withLock { $0.writes } }
    var changes: [String] { state.withLock { $0.changes } }
    var directories: [String: UInt32] { state.withLock { $0.directories } }
    /// The directories that exist, "/" among them.
    var directoryPaths: Set<String> { Set(directories.keys) }
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
            state.changes.append(path)
        }
    }

    func regularFileBytes(path: String) -> [UInt8]? {
        state.withLock { state in
            state.reads.append(path)
            return state.contents[path]
        }
    }

    func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus {
        let found: FileStatus? = state.withLock { state in
            if let bytes = state.contents[path] {
                return FileStatus(kind: .regular, kindName: "a regular file", size: Int64(bytes.count), permissions: 0o600, owner: ProcessControl.userID)
            }
            return state.directories[path].map { FileStatus(kind: .directory, kindName: "a directory", size: 0, permissions: $0, owner: ProcessControl.userID) }
        }
        guard let found else { throw .notFound }
        return found
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

    func readAll(path: String) throws(Failure) -> [UInt8] {
        let (bytes, isDirectory): ([UInt8]?, Bool) = state.withLock { state in
            state.reads.append(path)
            return (state.contents[path], state.directories[path] != nil)
        }
        if isDirectory { throw Failure(.inputMissing, "\(path): is a directory") }
        guard let bytes else { throw Failure(.inputMissing, "\(path): \(SystemError.notFound)") }
        return bytes
    }

    func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        state.withLock { state in
            state.reads.append(path)
            return state.contents[path].flatMap { $0.count <= limit ? $0 : nil }
        }
    }

    func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        guard directories[path] != nil else { throw .notFound }
        if refused.contains(path) { throw SystemError(code: EACCES) }
    }

    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let refusal: SystemError? = state.withLock { state in
            if state.contents[path] != nil || state.directories[path] != nil { return .exists }
            guard state.directories[parent] != nil else { return .notFound }
            if refused.contains(parent) || refused.contains(path) { return SystemError(code: EACCES) }
            state.directories[path] = permissions
            state.changes.append(path)
            return nil
        }
        if let refusal { throw refusal }
    }

    func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        let known: Bool = state.withLock { state in
            guard state.directories[path] != nil else { return false }
            state.directories[path] = permissions
            state.changes.append(path)
            return true
        }
        if !known { throw .notFound }
    }

    func removeFile(path: String) -> Bool {
        state.withLock { state in
            guard state.contents.removeValue(forKey: path) != nil else { return false }
            state.removals.append(path)
            state.changes.append(path)
            return true
        }
    }

    func openForAppending(path: String) throws(Failure) -> any AppendingFile {
        if refused.contains(path) { throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: permission denied") }
        state.withLock { state in
            if state.contents[path] == nil {
                state.contents[path] = []
            }
            state.changes.append(path)
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
