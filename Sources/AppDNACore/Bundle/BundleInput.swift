/// Reads a bundle file or standard input completely, except for leading white space, which is
/// counted instead of kept: a gigabyte of blank lines on stdin costs no memory, and locations
/// are shifted back afterwards so line:column still point into the real input.
public struct BundleInput {
    /// The name to show: the path, or "<stdin>".
    public let name: String
    /// The bytes of the file, standard input or a pipe, read into memory.
    public let source: ByteSource
    /// The bytes as an array.
    public var bytes: [UInt8] { source.array }
    /// Lines and columns of leading white space that were dropped.
    public let skippedLines: Int
    public let skippedColumns: Int

    public static let stdinName = "<stdin>"

    /// Bytes already in memory (a downloaded bundle), under `name`.
    public init(name: String, source: ByteSource, skippedLines: Int = 0, skippedColumns: Int = 0) {
        self.name = name
        self.source = source
        self.skippedLines = skippedLines
        self.skippedColumns = skippedColumns
    }

    /// `path` "-" is standard input (`stdinDescriptor`).
    public static func load(path: String, stdinDescriptor: Int32 = 0) throws(Failure) -> BundleInput {
        if path == "-" { return try load(fileDescriptor: stdinDescriptor, name: stdinName, sizeHint: 0) }
        let file = try FileReading.openForReading(path)
        let fd = file.descriptor
        defer { SystemFile.close(fd) }
        if file.isRegular && file.size > 0 {
            // A regular file: read straight into place (its size is known; no skipping needed).
            return BundleInput(name: path, source: ByteSource(try FileReading.readAll(fileDescriptor: fd, name: path, sizeHint: file.size)),
                               skippedLines: 0, skippedColumns: 0)
        }
        return try load(fileDescriptor: fd, name: path, sizeHint: file.size)
    }

    public static func load(fileDescriptor fd: Int32, name: String, sizeHint: Int) throws(Failure) -> BundleInput {
        let chunk = 256 * 1024
        var buffer = [UInt8]()
        var lines = 0, columns = 0
        var leading = true
        var scratch = [UInt8](repeating: 0, count: chunk)
        while true {
            let got: Int
            do {
                got = try SystemFile.read(fd, into: &scratch)
            } catch {
                throw Failure(.ioError, "\(name): \(error)")
            }
            if got == 0 { break }
            var start = 0
            if leading {
                while start < got {
                    let byte = scratch[start]
                    if byte == 0x0A { lines += 1; columns = 0 }
                    else if byte == 0x20 || byte == 0x09 || byte == 0x0D { columns += 1 }
                    else { break }
                    start += 1
                }
                if start == got { continue }
                leading = false
                buffer.reserveCapacity(max(sizeHint - start + 1, got - start))
            }
            buffer.append(contentsOf: scratch[start..<got])
        }
        return BundleInput(name: name, source: ByteSource(buffer), skippedLines: lines, skippedColumns: columns)
    }
}
