/// Ids as devices see them: their UTF-8 bytes.
///
/// Swift's `String ==`, and so every `String`-keyed `Dictionary` and `Set`, compares by Unicode
/// canonical equivalence: `"café"` (U+00E9) and `"cafe\u{301}"` are one key to Swift. Devices
/// hash the exact bytes, so to them these are two experiments, two salts, two variants and two
/// users. Wherever an id is compared or used as a key (experiment ids, salts, variant ids, flag
/// keys, JSON member names, user ids, trait names, event ids), compare with `ByteIdentity.same`
/// and key maps by `ByteKey`. `SourceIdentityTests` keeps `String`-keyed maps of ids out of the
/// files that handle them.
public enum ByteIdentity {
    /// True when `a` and `b` are the same bytes (not merely canonically equivalent).
    @inline(__always)
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// True when `a` and `b` are the same bytes; nil on either side is equal only to nil.
    public static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (x?, y?): return same(x, y)
        default: return false
        }
    }

    /// For two ids that differ in bytes but read the same: which normalisation form each is in,
    /// worded for a message ("differs from café-exp only in Unicode normalisation: NFD vs NFC").
    /// Nil when they are the same bytes, or differ in more than normalisation.
    public static func normalisationDifference(_ id: String, from other: String) -> String? {
        guard !same(id, other), id == other else { return nil }  // String == is canonical equivalence
        return "differs from \(other) only in Unicode normalisation: \(form(of: id)) vs \(form(of: other))"
    }

    /// The ids as a message lists them: one that reads the same as another in the list but is
    /// other bytes gets its form appended ("café (NFC)", "café (NFD)"), so two identical-looking
    /// names are told apart.
    public static func labelled(_ ids: [String]) -> [String] {
        ids.map { id in
            ids.contains { normalisationDifference(id, from: $0) != nil } ? "\(id) (\(form(of: id)))" : id
        }
    }

    /// "NFC", "NFD" or "mixed normalisation": what a message needs to tell two look-alikes apart.
    public static func form(of text: String) -> String {
        let isNFC = same(text, UnicodeForms.nfc(text)), isNFD = same(text, UnicodeForms.nfd(text))
        switch (isNFC, isNFD) {
        case (true, _): return "NFC"
        case (false, true): return "NFD"
        default: return "mixed normalisation"
        }
    }
}

/// A `String` that is `Hashable`, `Equatable` and `Comparable` by its UTF-8 bytes: the key type
/// for maps and sets of ids. Ordering is byte order (that is, Unicode code point order), so
/// sorted output is the same on every platform.
public struct ByteKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral value: String) { self.text = value }

    public var description: String { text }

    public static func == (a: ByteKey, b: ByteKey) -> Bool { ByteIdentity.same(a.text, b.text) }

    public static func < (a: ByteKey, b: ByteKey) -> Bool { a.text.utf8.lexicographicallyPrecedes(b.text.utf8) }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }
}
