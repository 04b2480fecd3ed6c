/// Two declarations one command reaches (its own flags and the global ones) that share a long
/// name or a short letter. The parser takes the first declaration of a spelling, so the other
/// could never be given: a command reading it would get its default whatever the user typed.
/// `CommandTableInvariantTests` holds the real table to none, and plants one in a table of its
/// own to show the check can fail.
extension CommandTable {
    /// Each clash, as "'api serve': --timeout is declared twice" (empty for a sound table).
    public var flagClashes: [String] {
        commands.flatMap { command -> [String] in
            var clashes: [String] = []
            var seenLong: [String: FlagSpec] = [:]  // not an id: ASCII flag names
            var seenShort: [Character: FlagSpec] = [:]
            for flag in allFlags(for: command) {
                let twice = { (first: FlagSpec, spelled: String) in
                    clashes.append("'\(command.name)': \(spelled) is declared twice"
                                   + (first.id == flag.id ? " (the same declaration listed twice)" : " (two declarations)"))
                }
                if let first = seenLong[flag.long] { twice(first, "--" + flag.long) } else { seenLong[flag.long] = flag }
                guard let short = flag.short else { continue }
                if let first = seenShort[short] { twice(first, "-\(short) (--\(first.long), --\(flag.long))") } else { seenShort[short] = flag }
            }
            return clashes
        }
    }
}
