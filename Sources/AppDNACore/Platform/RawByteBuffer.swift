/// A growable run of bytes in raw memory, for loops that write millions of small pieces
/// (the JSON re-indenter, `bucket -` rows): no Array uniqueness or exclusivity checks per
/// byte, one capacity check per piece (or one per row with `reserve` + the `unchecked` calls).
/// The owner calls `free()` once; copies share the memory, so keep one.
public struct RawByteBuffer {
    public private(set) var base: UnsafeMutablePointer<UInt8>
    public var count = 0
    public private(set) var capacity: Int

    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    public func free() { base.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `n` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) {
        if count &+ n > capacity { grow(to: count + n) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        fresh.update(from: base, count: count)
        base.deallocate()
        base = fresh
        capacity = grown
    }

    @inlinable @inline(__always)
    public mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count &+= 1
    }

    @inlinable @inline(__always)
    public mutating func copy(_ from: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + count).update(from: from, count: n)
        count &+= n
    }

    @inlinable @inline(__always)
    public mutating func copy(_ from: UnsafeRawBufferPointer) {
        guard let start = from.baseAddress else { return }
        copy(start.assumingMemoryBound(to: UInt8.self), from.count)
    }

    /// A newline and `spaces` spaces (the re-indenter's line break).
    @inlinable @inline(__always)
    public mutating func newline(_ spaces: Int) {
        reserve(spaces + 1)
        base[count] = 0x0A
        (base + count + 1).initialize(repeating: 0x20, count: spaces)
        count &+= spaces + 1
    }

    // MARK: writes without a capacity check, after `reserve` made room for the whole row

    @inlinable @inline(__always)
    public mutating func uncheckedByte(_ b: UInt8) {
        base[count] = b
        count &+= 1
    }

    @inlinable @inline(__always)
    public mutating func uncheckedCopy(_ from: UnsafeRawPointer, _ n: Int) {
        UnsafeMutableRawPointer(base + count).copyMemory(from: from, byteCount: n)
        count &+= n
    }

    /// `value` in decimal, at most 10 bytes: digits counted first, then written from the end
    /// two at a time from a table (half the divisions of one-digit-at-a-time).
    @inlinable @inline(__always)
    public mutating func uncheckedDecimal(_ value: UInt32) {
        // Hashes are mostly ten digits and buckets four: test from the top.
        var digits = 10
        var bound: UInt32 = 1_000_000_000
        while digits > 1 && value < bound { digits &-= 1; bound /= 10 }
        var v = value
        var end = base + count + digits
        count &+= digits
        let pairs = Self.digitPairs
        while v >= 100 {
            let pair = Int(v % 100) &* 2
            v /= 100
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair &+ 1]
        }
        if v >= 10 {
            end -= 2
            end[0] = pairs[Int(v) &* 2]
            end[1] = pairs[Int(v) &* 2 &+ 1]
        } else {
            end -= 1
            end[0] = 48 &+ UInt8(truncatingIfNeeded: v)
        }
    }

    /// `value` (below 10,000) as four digits, with leading zeros: two table pairs, one store.
    @inlinable @inline(__always)
    public mutating func uncheckedFourDigits(_ value: UInt32) {
        let pairs = UnsafeRawPointer(Self.digitPairs)
        let high = UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: Int(value / 100) &* 2, as: UInt16.self))
        let low = UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: Int(value % 100) &* 2, as: UInt16.self))
        UnsafeMutableRawPointer(base + count).storeBytes(of: (UInt32(high) | UInt32(low) << 16).littleEndian, as: UInt32.self)
        count &+= 4
    }

    /// `value` (below 10,000) in decimal without leading zeros: one to four digits.
    @inlinable @inline(__always)
    public mutating func uncheckedSmallDecimal(_ value: UInt32) {
        if value >= 1000 { return uncheckedFourDigits(value) }
        let pairs = Self.digitPairs
        if value >= 100 {
            let low = Int(value % 100) &* 2
            base[count] = 48 &+ UInt8(truncatingIfNeeded: value / 100)
            base[count &+ 1] = pairs[low]
            base[count &+ 2] = pairs[low &+ 1]
            count &+= 3
        } else if value >= 10 {
            base[count] = pairs[Int(value) &* 2]
            base[count &+ 1] = pairs[Int(value) &* 2 &+ 1]
            count &+= 2
        } else {
            base[count] = 48 &+ UInt8(truncatingIfNeeded: value)
            count &+= 1
        }
    }

    /// `value` in decimal, as `uncheckedDecimal`, when its last four digits (`value % 10_000`)
    /// are known already: a hash whose bucket out of 10,000 the row writes next to it (the
    /// batch's hot path: two divisions by 10,000 instead of one by 100 per pair of digits).
    @inlinable @inline(__always)
    public mutating func uncheckedDecimal(_ value: UInt32, lastFourDigits: UInt32) {
        let high = value / 10_000
        guard high > 0 else { return uncheckedSmallDecimal(lastFourDigits) }
        if high >= 10_000 {
            uncheckedSmallDecimal(high / 10_000)
            uncheckedFourDigits(high % 10_000)
        } else {
            uncheckedSmallDecimal(high)
        }
        uncheckedFourDigits(lastFourDigits)
    }

    /// "00" "01" … "99", two ASCII bytes each; a literal in the binary, so no lazy set-up.
    @inlinable
    static var digitPairs: UnsafePointer<UInt8> {
        ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" as StaticString).utf8Start
    }
}
