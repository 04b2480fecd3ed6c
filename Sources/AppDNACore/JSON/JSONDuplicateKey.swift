/// One repeated object key, as recorded under `JSONParseOptions.DuplicateKeyPolicy.record`.
public struct JSONDuplicateKey: Equatable, Sendable {
    /// Where the object is in the document.
    public var objectPointer: JSONPointer
    /// The key, unescaped.
    public var key: String
    /// The earlier occurrence (the opening quote of the key).
    public var first: SourceLocation
    /// The repeated occurrence.
    public var duplicate: SourceLocation
    public var firstByteOffset: Int
    public var duplicateByteOffset: Int
}
