import AppDNACore

/// A flag declaration's identity: a number of its own, made once when the declaration is made
/// (a `static let` in a flags file), copied with its `FlagSpec`. The parsed arguments keep a
/// value under the identity of the declaration the parser matched, and hand it back only to a
/// read of that same declaration: two declarations that share a name (`--timeout` of `api
/// override` and of `bundle fetch`) are two flags, never one value read through the other.
/// Names are for lexing the command line; `CommandTableInvariantTests` keeps two declarations
/// of one name or short letter out of any one command.
public struct FlagID: Hashable, Sendable {
    private let number: Int

    /// The numbers handed out so far (declarations are made on any thread that first touches
    /// a `static let`).
    private static let issued = Locked(0)

    /// A new identity, equal to no other made before it.
    init() {
        number = Self.issued.withLock { count in
            count += 1
            return count
        }
    }
}
