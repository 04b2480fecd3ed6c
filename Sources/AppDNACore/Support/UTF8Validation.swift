/// Well-formed UTF-8 as a `String`, or nil: what `String(validating:as:)` does, which is
/// macOS 15+ and so out of reach at the macOS 13 deployment target.
///
/// `String(decoding:as:)` (every macOS) repairs ill-formed input, each maximal ill-formed
/// subpart becoming U+FFFD, and leaves well-formed input untouched; so the bytes are well formed
/// exactly when the decoded string's UTF-8 is the same bytes. (Comparing lengths alone is not
/// enough: F0 90 80 is one U+FFFD, three bytes for three bytes.)
public enum UTF8Validation {
    @inlinable
    public static func string<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count == bytes.count, text.utf8.elementsEqual(bytes) else { return nil }
        return text
    }

    @inlinable
    public static func isValid<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        string(bytes) != nil
    }
}
