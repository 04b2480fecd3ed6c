/// The system's side of the door (`FileAccess`): each requirement is the platform call the
/// commands made themselves before issue 54.3, unchanged (`AtomicFile`, `FileStatus`,
/// `FileReading`, `ChunkReading`, `FileSystem`, `SystemFile`, `RecordFile`, `FileWriting`).
public struct SystemFileAccess: FileAccess {
    public init() {}

    public func checkWritable(path: String) throws(Failure) {
        try AtomicFile.checkWritable(path: path)
    }

    public func replace(path: String, with bytes: [UInt8], timeout: Double?) throws(Failure) {
        try AtomicFile.replace(path: path, with: bytes, timeout: timeout)
    }

    public func regularFileBytes(path: String) -> [UInt8]? {
        guard FileStatus.kind(path: path) == .regular else { return nil }
        return try? FileReading.readAll(path: path)
    }

    public func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus {
        followingLinks ? try FileStatus.of(path: path) : try FileStatus.ofLink(path: path)
    }

    public func status(fileDescriptor: Int32) throws(SystemError) -> FileStatus {
        try FileStatus.of(descriptor: fileDescriptor)
    }

    public func entries(of directory: String) -> [String]? {
        FileSystem.entries(of: directory)
    }

    public func readAll(path: String) throws(Failure) -> [UInt8] {
        // FileReading takes "-" for standard input: here it is a file of that name.
        let named = path == "-" ? "./-" : path
        // A device (/dev/zero, /dev/urandom) never ends: read whole, it would take all memory.
        if let status = try? FileStatus.of(path: named), status.kind == .other {
            throw Failure(.inputMissing, "\(path) is \(status.kindName), not a file")
        }
        return try FileReading.readAll(path: named)
    }

    public func readAll(fileDescriptor: Int32, name: String) throws(Failure) -> [UInt8] {
        try FileReading.readAll(fileDescriptor: fileDescriptor, name: name)
    }

    public func readByte(fileDescriptor: Int32) -> UInt8? {
        SystemFile.readByte(fileDescriptor)
    }

    public func regularFilePrefix(path: String, count: Int) -> [UInt8]? {
        FileReading.regularFilePrefix(path: path, count: count)
    }

    public func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        FileReading.smallRegularFile(path: path, limit: limit)
    }

    public func forEachChunk(path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        let fd = try ChunkReading.open(path: path)
        defer { SystemFile.close(fd) }
        try ChunkReading.forEachChunk(fileDescriptor: fd, name: path, body)
    }

    public func forEachChunk(fileDescriptor: Int32, name: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        try ChunkReading.forEachChunk(fileDescriptor: fileDescriptor, name: name, body)
    }

    public func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        try FileSystem.checkCanCreateFiles(in: path)
    }

    public func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        try FileSystem.makeDirectory(path, permissions: permissions)
    }

    public func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        try FileSystem.setPermissions(path, permissions)
    }

    public func syncDirectory(path: String) {
        FileWriting.syncDirectory(path)
    }

    public func removeFile(path: String) -> Bool {
        FileSystem.removeFile(path)
    }

    public func openForAppending(path: String, permissions: UInt32) throws(SystemError) -> any AppendingFile {
        let fd = try SystemFile.open(path, [.write, .append, .create], permissions: permissions)
        // The mode whatever the umask, and for a file that existed before.
        try? SystemFile.setPermissions(fd, permissions)
        return SystemAppendingFile(path: path, fd: fd)
    }

    public func openRecordFile(path: String) throws(Failure) -> any AppendingFile {
        SystemAppendingFile(path: path, fd: try RecordFile.openForAppending(path))
    }

    public func lockExclusively(path: String, permissions: UInt32) throws(SystemError) -> (any HeldFileLock)? {
        let fd = try SystemFile.open(path, [.read, .write, .create], permissions: permissions)
        try? SystemFile.setPermissions(fd, permissions)
        if (try? SystemFile.lockExclusively(fd, wait: false)) == nil {
            SystemFile.close(fd)
            return nil
        }
        return SystemFileLock(fd: fd)
    }
}
