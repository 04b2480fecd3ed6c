import AppDNACore

/// Output files held in memory (`CommandIO.files`), so a command's file behaviour runs in
/// process: what it reads comes from `contents`, what it writes lands there and is listed in
/// `writes`, and a path in `refused` is refused as a directory without write permission is;
/// an append to a path in `full` writes half its bytes and fails as a full disk does (ENOSPC).
/// Directories made, permissions set, locks held and every path read are kept too; standard
/// input (a descriptor) is still the process's.
final class InMemoryFiles: FileAccess {
    private let state: Locked<State>
    let refused: Set<String>
    let full: Set<String>

    struct State {
        var contents: [String: [UInt8]]
        var writes: [String] = []
        var reads: [String] = []
        var directories: Set<String> = []
        var permissions: [String: UInt32] = [:]
        var locked: Set<String> = []
        var syncs: [String] = []
    }

    init(_ contents: [String: [UInt8]] = [:], refused: Set<String> = [], full: Set<String> = []) {
        state = Locked(State(contents: contents))
        self.refused = refused
        self.full = full
    }

    var contents: [String: [UInt8]] { state.withLock { $0.contents } }
    var writes: [String] { state.withLock { $0.writes } }
    /// Every path read (whole, in chunks, its prefix), in order.
    var reads: [String] { state.withLock { $0.reads } }
    var directories: Set<String> { state.withLock { $0.directories } }
    var permissions: [String: UInt32] { state.withLock { $0.permissions } }
    /// The lock files held now.
    var locked: Set<String> { state.withLock { $0.locked } }
    /// The files synced to disk, once per sync.
    var syncs: [String] { state.withLock { $0.syncs } }

    func text(_ path: String) -> String? { contents[path].map { String(decoding: $0, as: UTF8.self) } }

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

    // queue, webhook, warehouse (issue 54.3)

    /// EACCES (13 on Linux and Darwin): what a refused path fails with.
    static let permissionDenied = SystemError(code: 13)

    func status(path: String) throws(SystemError) -> FileStatus {
        let found: FileStatus? = state.withLock { state in
            if let bytes = state.contents[path] {
                return FileStatus(kind: .regular, kindName: "a regular file", size: Int64(bytes.count), permissions: state.permissions[path] ?? 0o644)
            }
            if state.directories.contains(path) {
                return FileStatus(kind: .directory, kindName: "a directory", size: 0, permissions: state.permissions[path] ?? 0o755)
            }
            return nil
        }
        guard let found else { throw .notFound }
        return found
    }

    func status(fileDescriptor: Int32) throws(SystemError) -> FileStatus {
        try FileStatus.of(descriptor: fileDescriptor)
    }

    func readAll(path: String) throws(Failure) -> [UInt8] {
        let bytes: [UInt8]? = state.withLock { state in
            state.reads.append(path)
            return state.contents[path]
        }
        guard let bytes else {
            let why = directories.contains(path) ? "is a directory" : "no such file or directory"
            throw Failure(.inputMissing, "\(path): \(why)")
        }
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

    func makeDirectory(path: String, permissions: UInt32) throws(SystemError) {
        if refused.contains(path) { throw Self.permissionDenied }
        let made: Bool = state.withLock { state in
            guard state.contents[path] == nil, !state.directories.contains(path) else { return false }
            state.directories.insert(path)
            state.permissions[path] = permissions
            return true
        }
        if !made { throw .exists }
    }

    func setPermissions(path: String, _ permissions: UInt32) throws(SystemError) {
        try state.withLock { state throws(SystemError) in
            guard state.contents[path] != nil || state.directories.contains(path) else { throw .notFound }
            state.permissions[path] = permissions
        }
    }

    func syncDirectory(path: String) {
        state.withLock { $0.syncs.append(path) }
    }

    func openForAppending(path: String, permissions: UInt32) throws(SystemError) -> any AppendingFile {
        if refused.contains(path) { throw Self.permissionDenied }
        try state.withLock { state throws(SystemError) in
            if state.directories.contains(path) { throw SystemError(code: 21) }   // EISDIR
            if state.contents[path] == nil { state.contents[path] = [] }
            state.permissions[path] = permissions
        }
        return Appending(path: path, files: self)
    }

    func openRecordFile(path: String) throws(Failure) -> any AppendingFile {
        if refused.contains(path) || directories.contains(path) {
            throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: permission denied")
        }
        state.withLock { state in
            if state.contents[path] == nil {
                state.contents[path] = []
                state.permissions[path] = 0o600
            }
        }
        return Appending(path: path, files: self)
    }

    func lockExclusively(path: String, permissions: UInt32) throws(SystemError) -> (any HeldFileLock)? {
        if refused.contains(path) { throw Self.permissionDenied }
        let taken: Bool = state.withLock { state in
            if state.contents[path] == nil {
                state.contents[path] = []
                state.permissions[path] = permissions
            }
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
            }
        }
    }
}
