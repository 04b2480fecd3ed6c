/// What HMAC needs from a hash: streaming input, a fixed block size and a digest.
///
/// SHA-256 is the one AppDNA signs with; SHA-1 conforms only so the mismatch explainer can
/// recognise a signature someone computed with the wrong algorithm.
public protocol HashFunction: Sendable {
    static var digestByteCount: Int { get }
    static var blockByteCount: Int { get }
    init()
    mutating func update(_ bytes: UnsafeRawBufferPointer)
    consuming func finalize() -> [UInt8]
}

extension HashFunction {
    /// Feeds any byte collection; contiguous storage (arrays, slices, UTF-8 views) is not copied.
    @inlinable
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Hashes a byte collection in one go.
    @inlinable
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = Self()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Hashes the UTF-8 bytes of a string.
    @inlinable
    public static func hash(utf8 string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }
}

/// 64 bytes of inline storage for a partial block; a tuple so that hashers stay plain values
/// with no heap buffer to copy-on-write.
@usableFromInline
struct BlockBuffer: Sendable {
    @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline init() {}
}
