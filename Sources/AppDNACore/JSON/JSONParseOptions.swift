/// Choices a caller makes about input the RFC leaves open or that must be bounded.
public struct JSONParseOptions: Sendable, Equatable {
    /// What to do with an object that names the same key twice (compared after unescaping).
    /// RFC 8259 only says the names "SHOULD be unique"; parsers disagree on which value wins,
    /// so by default such input is rejected rather than silently interpreted.
    public enum DuplicateKeyPolicy: Sendable, Equatable {
        /// Throw at the second occurrence.
        case reject
        /// Accept and list every duplicate in `JSONDocument.duplicateKeys` (for linting).
        case record
    }

    public var duplicateKeys: DuplicateKeyPolicy
    /// Deepest nesting of arrays and objects accepted. The parser is iterative, so this bounds
    /// memory and the recursion of code that later walks the tree, not the parser's own stack.
    public var maxDepth: Int
    /// Arrays and objects nested this deep or deeper (the top-level value is at depth 0) are
    /// parsed and checked in full, but kept on the tape as one node without children: a reader
    /// that never looks inside them (the bundle validator) then needs no memory for their
    /// values. One is kept whole when it holds something whole-document checks report (a
    /// duplicate key under `.record`, an integer of 16 or more characters). Unlimited by default.
    public var keepChildrenAboveDepth: Int
    /// Like `keepChildrenAboveDepth`, by name: arrays and objects that are the value of one of
    /// these keys (compared unescaped; an escaped key never matches) at `unreadKeysFromDepth`
    /// or deeper are kept without children, on the same conditions.
    public var unreadKeys: [String] = []
    public var unreadKeysFromDepth: Int = .max
    /// The most nodes the document can have, when the caller has counted them (`api serve`
    /// budgets the parse before it starts: `RawDeflate.Measure.nodeBound`, `JSONNodeBound`):
    /// the tape is made that size at once and never grows (growing holds the old tape and the
    /// new one at once). Nil: a guess, grown as needed.
    public var tapeNodes: Int? = nil

    public init(duplicateKeys: DuplicateKeyPolicy = .reject, maxDepth: Int = 1000, keepChildrenAboveDepth: Int = .max) {
        self.duplicateKeys = duplicateKeys
        self.maxDepth = maxDepth
        self.keepChildrenAboveDepth = keepChildrenAboveDepth
    }
}
