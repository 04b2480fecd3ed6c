/// Bytes to parse, owned by the document that parses them.
///
/// Regular files are read into an array, not mapped: a mapped file that another process
/// truncates while we parse it kills us with SIGBUS, and no input may crash the tool. (Mapping
/// saved about 1.5 ms on a 25 MB bundle, measured; not worth a crash.)
public struct ByteSource {
    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var count: Int { bytes.count }

    /// The bytes as an array.
    public var array: [UInt8] { bytes }

    @inline(__always)
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer(body)
    }

    /// Whether the bytes begin with `prefix`.
    public func starts(with prefix: [UInt8]) -> Bool {
        bytes.starts(with: prefix)
    }
}
