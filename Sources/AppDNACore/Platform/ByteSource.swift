/// Bytes to parse: either an array in memory or a regular file mapped read-only.
///
/// Reading a 25 MB bundle into a fresh buffer costs the kernel zeroing every new page and then
/// copying the file into it (about half of `bundle validate`'s time on a string-heavy file).
/// A private read-only mapping shares the page cache instead: no zeroing, no copy, and the
/// pages are handed back to the cache when the document goes.
public struct ByteSource {
    private enum Owner {
        case array([UInt8])
        case mapping(FileMapping)
    }
    private let owner: Owner

    public init(_ bytes: [UInt8]) { owner = .array(bytes) }

    init(mapping: FileMapping) { owner = .mapping(mapping) }

    public var count: Int {
        switch owner {
        case let .array(bytes): return bytes.count
        case let .mapping(file): return file.count
        }
    }

    /// The bytes as an array (a copy for a mapped file; callers on hot paths use
    /// `withUnsafeBufferPointer`).
    public var array: [UInt8] {
        switch owner {
        case let .array(bytes): return bytes
        case let .mapping(file): return Array(UnsafeBufferPointer(start: file.base, count: file.count))
        }
    }

    @inline(__always)
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch owner {
        case let .array(bytes): return bytes.withUnsafeBufferPointer(body)
        case let .mapping(file):
            return withExtendedLifetime(file) { body(UnsafeBufferPointer(start: file.base, count: file.count)) }
        }
    }

    /// Whether the bytes begin with `prefix`.
    public func starts(with prefix: [UInt8]) -> Bool {
        withUnsafeBufferPointer { $0.starts(with: prefix) }
    }
}

/// A whole regular file mapped private and read-only; unmapped when the last user goes.
final class FileMapping {
    let base: UnsafePointer<UInt8>
    let count: Int

    /// Maps `count` (> 0) bytes of `fd` from its start, or nil where the system refuses
    /// (the caller then reads the file instead).
    init?(fileDescriptor fd: Int32, count: Int) {
        guard count > 0 else { return nil }
        // MAP_POPULATE maps every page now, one call instead of a fault per 64 KiB later.
        guard let address = mmap(nil, count, PROT_READ, MAP_PRIVATE | Self.populate, fd, 0),
              address != MAP_FAILED else { return nil }
        base = UnsafePointer(address.assumingMemoryBound(to: UInt8.self))
        self.count = count
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), count) }

    private static var populate: Int32 {
        #if os(Linux)
        return MAP_POPULATE
        #else
        return 0
        #endif
    }
}
