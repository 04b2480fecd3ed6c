import Foundation
import AppDNACore

/// Files held in memory (`CommandIO.files`), so a command's file behaviour runs in process:
/// what it reads comes from `contents` (a file) and `directories` (with their permission bits;
/// "/" always exists); what it writes lands there and is listed in `writes` (files replaced,
/// appended to, a lock's contents); every change of any kind (those, directories made,
/// permissions set, files removed or opened to append to) in `changes`; every read in `reads`.
/// A path in `refused` is refused as a file or a directory without write permission is (its
/// directory, for a file); an append to a path in `full` writes half its bytes and fails as a
/// full disk does (ENOSPC). Standard input (a descriptor) is still the process's.
final class InMemoryFiles: FileAccess {
    let state: Locked<State>
    let refused: Set<String>
    let full: Set<String>

    struct State {
        var contents: [String: [UInt8]]
        var directories: [String: UInt32]
        var filePermissions: [String: UInt32] = [:]
        /// The files written, in order (replaced, appended to, a lock's contents).
        var writes: [String] = []
        /// Every change, in order.
        var changes: [String] = []
        var removals: [String] = []
        /// Every path read (whole, in chunks, its prefix), in order.
        var reads: [String] = []
        var locked: Set<String> = []
        var syncs: [String] = []
    }

    init(_ contents: [String: [UInt8]] = [:], directories: [String: UInt32] = [:], refused: Set<String> = [], full: Set<String> = []) {
        state = Locked(State(contents: contents, directories: directories.merging(["/": 0o755]) { given, _ in given }))
        self.refused = refused
        self.full = full
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
    /// The permission bits of every file and directory.
    var permissions: [String: UInt32] { state.withLock { $0.filePermissions.merging($0.directories) { file, _ in file } } }
    var removals: [String] { state.withLock { $0.removals } }
    var reads: [String] { state.withLock { $0.reads } }
    /// The lock files held now.
    var locked: Set<String> { state.withLock { $0.locked } }
    /// The files synced to disk, once per sync.
    var syncs: [String] { state.withLock { $0.syncs } }

    func text(_ path: String) -> String? { contents[path].map { String(decoding: $0, as: UTF8.self) } }

    /// EACCES: what a refused path fails with.
    static let permissionDenied = SystemError(code: EACCES)

    // Output files

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

    // What is there

    func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus {
        let found: FileStatus? = state.withLock { state in
            if let bytes = state.contents[path] {
                return FileStatus(kind: .regular, kindName: "a regular file", size: Int64(bytes.count),
                                  permissions: state.filePermissions[path] ?? 0o600, owner: ProcessControl.userID)
            }
            return state.directories[path].map { FileStatus(kind: .directory, kindName: "a directory", size: 0, permissions: $0, owner: ProcessControl.userID) }
        }
        guard let found else { throw .notFound }
        return found
    }

    func status(fileDescriptor: Int32) throws(SystemError) -> FileStatus {
        try FileStatus.of(descriptor: fileDescriptor)
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

    // Reading

    func readAll(path: String) throws(Failure) -> [UInt8] {
        let (bytes, isDirectory): ([UInt8]?, Bool) = state.withLock { state in
            state.reads.append(path)
            return (state.contents[path], state.directories[path] != nil)
        }
        if isDirectory { throw Failure(.inputMissing, "\(path): is a directory") }
        guard let bytes else { throw Failure(.inputMissing, "\(path): \(SystemError.notFound)") }
        return bytes
    }

    func readAll(fileDescriptor: Int32, name: String) throws(Failure) -> [UInt8] {
        try FileReading.readAll(fileDescriptor: fileDescriptor, name: name)
    }

    func readByte(fileDescriptor: Int32) -> UInt8? {
        SystemFile.readByte(fileDescriptor)
    }

    func regularFilePrefix(path: String, count: Int) -> [UInt8]? {
        state.withLock { state in
            state.reads.append(path)
            return state.contents[path].map { Array($0.prefix(count)) }
        }
    }

    func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        state.withLock { state in
            state.reads.append(path)
            return state.contents[path].flatMap { $0.count <= limit ? $0 : nil }
        }
    }

    func forEachChunk(path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        // In chunks of 3 bytes: a reader that kept only the last chunk would show it.
        let bytes = try readAll(path: path)
        var start = 0
        while start < bytes.count {
            let end = min(start + 3, bytes.count)
            bytes[start..<end].withUnsafeBytes { body($0) }
            start = end
        }
    }

    func forEachChunk(fileDescriptor: Int32, name: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        try ChunkReading.forEachChunk(fileDescriptor: fileDescriptor, name: name, body)
    }

    // Making, changing, removing

    func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        guard directories[path] != nil else { throw .notFound }
        if refused.contains(path) { throw Self.permissionDenied }
    }

    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let refusal: SystemError? = state.withLock { state in
            if state.contents[path] != nil || state.directories[path] != nil { return .exists }
            if refused.contains(parent) || refused.contains(path) { return Self.permissionDenied }
            // A relative path's parent (".") is the working directory, which exists.
            guard parent == "." || state.directories[parent] != nil else { return .notFound }
            state.directories[path] = permissions
            state.changes.append(path)
            return nil
        }
        if let refusal { throw refusal }
    }

    func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        try state.withLock { state throws(SystemError) in
            if state.directories[path] != nil {
                state.directories[path] = permissions
            } else if state.contents[path] != nil {
                state.filePermissions[path] = permissions
            } else {
                throw .notFound
            }
            state.changes.append(path)
        }
    }

    func syncDirectory(path: String) {
        state.withLock { $0.syncs.append(path) }
    }

    func removeFile(path: String) -> Bool {
        state.withLock { state in
            guard state.contents.removeValue(forKey: path) != nil else { return false }
            state.removals.append(path)
            state.changes.append(path)
            return true
        }
    }

    func openForAppending(path: String, permissions: UInt32) throws(SystemError) -> any AppendingFile {
        if refused.contains(path) { throw Self.permissionDenied }
        try state.withLock { state throws(SystemError) in
            if state.directories[path] != nil { throw SystemError(code: EISDIR) }
            if state.contents[path] == nil { state.contents[path] = [] }
            state.filePermissions[path] = permissions
            state.changes.append(path)
        }
        return Appending(path: path, files: self)
    }

    func openRecordFile(path: String) throws(Failure) -> any AppendingFile {
        if refused.contains(path) || directories[path] != nil {
            throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: permission denied")
        }
        state.withLock { state in
            if state.contents[path] == nil {
                state.contents[path] = []
                state.filePermissions[path] = 0o600
            }
            state.changes.append(path)
        }
        return Appending(path: path, files: self)
    }

    func lockExclusively(path: String, permissions: UInt32) throws(SystemError) -> (any HeldFileLock)? {
        if refused.contains(path) { throw Self.permissionDenied }
        let taken: Bool = state.withLock { state in
            if state.contents[path] == nil {
                state.contents[path] = []
                state.filePermissions[path] = permissions
            }
            state.changes.append(path)
            return state.locked.insert(path).inserted
        }
        return taken ? Lock(path: path, files: self) : nil
    }

    /// A file open for appending: each write lands in `contents` and is listed in `writes`.
    final class Appending: AppendingFile {
        let path: String
        let files: InMemoryFiles

        init(path: String, files: InMemoryFiles) {
            self.path = path
            self.files = files
        }

        func size() -> Int64? { files.contents[path].map { Int64($0.count) } }

        func lastByte() -> UInt8? { files.contents[path]?.last }

        func append(_ bytes: [UInt8]) -> SystemError? {
            let full = files.full.contains(path)
            files.state.withLock { state in
                state.contents[path, default: []] += full ? bytes.prefix(bytes.count / 2) : bytes[...]
                state.writes.append(path)
                state.changes.append(path)
            }
            return full ? .noSpace : nil
        }

        func sync() -> SystemError? {
            files.state.withLock { $0.syncs.append(path) }
            return nil
        }

        func truncate(to size: Int64) throws(SystemError) {
            files.state.withLock { state in
                if let bytes = state.contents[path] { state.contents[path] = Array(bytes.prefix(Int(size))) }
            }
        }
    }

    /// A lock held until it goes.
    final class Lock: HeldFileLock {
        let path: String
        let files: InMemoryFiles

        init(path: String, files: InMemoryFiles) {
            self.path = path
            self.files = files
        }

        deinit {
            let path = path
            files.state.withLock { _ = $0.locked.remove(path) }
        }

        func replaceContents(with bytes: [UInt8]) throws(SystemError) {
            files.state.withLock { state in
                state.contents[path] = bytes
                state.writes.append(path)
                state.changes.append(path)
            }
        }
    }
}
