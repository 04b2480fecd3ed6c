import AppDNACore

/// The platforms users are counted on (`device.platform`, the warehouse's platform column):
/// `--platform` takes only these, so a typo (`iso`) is refused instead of judged as if it were
/// iOS. `web` is one, as `warehouse assignment` takes it: an experiment whose `platforms` lists
/// `web` assigns web users, one that does not (`["ios","android"]`) assigns them nothing, and
/// no `platforms` assigns everyone, as for a device. Any case is taken (`iOS`, `Android`): the
/// rules and the SQL compare platform names without case.
enum DevicePlatform: String, CaseIterable, Sendable { case ios, android, web }

/// The flags of `bucket`, each declared once, in help order.
enum BucketFlags {
    /// `bucket`'s operands, in order (each mode takes some of them: `BucketMode.Selector`).
    static let operands = [
        OperandSpec("USER", "The user id (identified id, or the anonymous id); '-' reads one id per line from stdin"),
        OperandSpec("EXPERIMENT", "The experiment id (its key in the bundle's experiments map)"),
        OperandSpec("SALT", "The experiment's salt; taken from the bundle with --bundle", optional: true),
    ]

    static let scheme = Flag.defaulted("scheme", value: "SCHEME", "sdk (what devices compute) or docs (the documented formula)",
                                       default: "sdk", .choice(BucketingScheme.self))
    static let variants = Flag.optional("variants", value: "LIST", "Variants and weights, e.g. control=0.5,variant_b=0.5", .text)
    static let bundle = Flag.optional("bundle", value: "FILE", "Take the experiment (salt, variants, status, targeting) from a config bundle: a file, '-' for standard input, or @remote for the live bundle",
                                      completion: .file, .path)
    static let platform = Flag.optional("platform", value: "NAME", "User context for --bundle: the device platform, as devices report it (any case)",
                                        .choice(DevicePlatform.self, ignoringCase: true))
    static let country = Flag.optional("country", value: "CODE", "User context for --bundle: ISO 3166 alpha-2 country", .text)
    static let appVersion = Flag.optional("app-version", value: "VERSION", "User context for --bundle: the app version", .text)
    static let trait = Flag.repeated("trait", value: "KEY=VALUE", "User context for --bundle: a user trait", .keyValue)
    static let installedAt = Flag.optional("installed-at", value: "TIME", "User context for --bundle: install time (ms since 1970, or ISO 8601)", .time)
    static let explain = Flag.switch("explain", "Show the bytes hashed, the hash, the variant ranges, the other scheme and portability warnings")
    static let format = Flag.defaulted("format", value: "FORMAT", "Output format for a batch from stdin (in TSV and CSV a tab, CR, LF or backslash is written \\t, \\r, \\n, \\\\ and other control and bidi characters are escaped; CSV then quotes per RFC 4180)", default: "tsv", .choice(BucketBatch.Format.self))
    static let summary = Flag.switch("summary", "For a batch: per-variant counts against the expected split, with a sample-ratio-mismatch test")
    static let find = Flag.optional("find", value: "VARIANT", "Print user ids that land in VARIANT (for QA)", .text)
    static let force = Flag.repeated("force-variant", value: "EXPERIMENT=VARIANT", "With --bundle: find one user id a device in the context (--platform, …) assigns every forced variant; identify with it forces them on any SDK version",
                                     .keyValue)

    /// `--count` means two things, each with its own range and default, so its summary states them.
    static let findCount = (range: 1...1_000_000, default: 10)
    static let vectorsCount = (range: 0...100_000, default: 20)
    static let count = Flag.optional("count", value: "N", "With --find: how many ids (default \(findCount.default)); with --vectors: how many generated cases (default \(vectorsCount.default))",
                                     FlagValue<Int>.integer(0...max(findCount.range.upperBound, vectorsCount.range.upperBound)).rangeInSummary)
    static let prefix = Flag.defaulted("prefix", value: "TEXT", "With --find or --force-variant: the ids' prefix", default: "qa-user-", .text)
    static let json = OutputFlags.json()
    static let selfTest = Flag.switch("self-test", "Check the built-in MurmurHash3 and bucketing vectors")
    static let vectors = Flag.switch("vectors", "Print golden bucketing cases (hashed string, hash, bucket, variant; both schemes) as JSON")
    static let seed = Flag.defaulted("seed", value: "S", "With --vectors: the seed of the generated cases", default: "1", .seed)

    /// The device's context, evaluated against a bundle's targeting.
    static let context: [FlagSpec] = [platform.spec, country.spec, appVersion.spec, trait.spec, installedAt.spec]

    static let all: [FlagSpec] = [scheme.spec, variants.spec, bundle.spec, platform.spec, country.spec, appVersion.spec, trait.spec,
                                  installedAt.spec, explain.spec, format.spec, summary.spec, find.spec, force.spec, count.spec, prefix.spec,
                                  json.spec, selfTest.spec, vectors.spec, seed.spec] + APIFlags.wholeCommand + RetiredSQLFlags.bucketSpecs

    /// `--count` (as a plan holds it) for one mode: its own range (the same wording as every
    /// range error) and default.
    static func modeCount(_ given: Int?, _ mode: (range: ClosedRange<Int>, default: Int)) throws(Failure) -> Int {
        guard let given else { return mode.default }
        return try FlagValue<Int>.integer(mode.range).parse(count.spec.long, String(given))
    }
}

/// A `--trait KEY=VALUE`.
struct TraitEntry: Sendable {
    let key: String
    let value: String
}

/// A `--seed`: the number, and the text as typed (the vectors document repeats it).
struct VectorSeed: Sendable {
    let text: String
    let value: UInt64
}

extension FlagValue where Value == TraitEntry {
    static var keyValue: FlagValue<TraitEntry> {
        FlagValue(range: nil, choices: nil, sample: "k=v") { long, entry throws(Failure) in
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw Failure(.usage, "--\(long) takes KEY=VALUE, not '\(entry)'")
            }
            return TraitEntry(key: String(entry[..<equals]), value: String(entry[entry.index(after: equals)...]))
        }
    }
}

extension FlagValue where Value == VectorSeed {
    static var seed: FlagValue<VectorSeed> {
        FlagValue(range: "0-\(UInt64.max)", bounds: 0...Double(UInt64.max), choices: nil, sample: "0") { long, text throws(Failure) in
            guard let seed = UInt64(text) else {
                throw Failure(.usage, "--\(long) takes a whole number from 0 to \(UInt64.max), not '\(text)'")
            }
            return VectorSeed(text: text, value: seed)
        }
    }
}
