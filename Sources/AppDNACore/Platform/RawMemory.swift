#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's memory routines, vectorised and faster than a Swift loop: searching for a
/// byte, comparing runs of bytes, and `realloc` (which for large blocks moves pages with mremap
/// on glibc instead of copying). Inlinable, so hot loops in every module call them directly.
public enum RawMemory {
    /// `memchr`: where `byte` first occurs in the `count` bytes at `start`, or nil.
    @inlinable @inline(__always)
    public static func firstIndex(of byte: UInt8, in start: UnsafeRawPointer, count: Int) -> UnsafeRawPointer? {
        memchr(start, Int32(byte), count).map { UnsafeRawPointer($0) }
    }

    /// `memchr` in mutable memory (the result points into it too).
    @inlinable @inline(__always)
    public static func firstIndex(of byte: UInt8, in start: UnsafeMutableRawPointer, count: Int) -> UnsafeMutableRawPointer? {
        memchr(start, Int32(byte), count)
    }

    /// `memcmp`: negative, zero or positive as the first differing byte of `a` is below, equal
    /// to or above `b`'s.
    @inlinable @inline(__always)
    public static func compare(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Int32 {
        memcmp(a, b, count)
    }

    /// Whether the `count` bytes at `a` and `b` are the same.
    @inlinable @inline(__always)
    public static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }

    /// `realloc` (`old` nil allocates); nil when memory ran out.
    public static func reallocate(_ old: UnsafeMutableRawPointer?, byteCount: Int) -> UnsafeMutableRawPointer? {
        realloc(old, byteCount)
    }

    /// `free` of memory from `reallocate`.
    public static func free(_ pointer: UnsafeMutableRawPointer?) {
        #if canImport(Glibc)
        Glibc.free(pointer)
        #elseif canImport(Musl)
        Musl.free(pointer)
        #elseif canImport(Darwin)
        Darwin.free(pointer)
        #endif
    }
}
