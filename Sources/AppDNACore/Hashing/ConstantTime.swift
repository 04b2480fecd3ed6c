/// Comparison whose running time does not depend on where two byte strings differ, so a
/// remote caller timing signature checks learns nothing about how many leading bytes were right.
public enum ConstantTime {
    /// True when `lhs` and `rhs` are the same bytes. Different lengths return false at once:
    /// a MAC's length is public, only its content must not leak.
    @inline(never)
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                for index in 0..<left.count {
                    difference |= left[index] ^ right[index]
                }
            }
        }
        return difference == 0
    }
}
