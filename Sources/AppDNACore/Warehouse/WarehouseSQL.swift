/// The pieces every warehouse query is built from, written once over an engine's spellings:
/// buckets, variants, sets of literals, trimmed text.
struct WarehouseSQL {
    let engine: any SQLEngine

    func literal(_ text: String) -> String { engine.literal(text) }

    /// A bucket to compute: what is hashed, and into how many buckets.
    struct Bucket {
        let hashed: HashedBytes
        let count: UInt32

        /// The SDK bucket (0–9999) of the user id `user` (an SQL expression): the hash of
        /// `"<experiment>.<salt>.<user><suffix>"`, with `salt` as given (callers apply the
        /// blank-salt fallback, or not, as the device they mirror does).
        static func sdk(experiment: String, salt: String, user: String, suffix: String = "") -> Bucket {
            Bucket(hashed: HashedBytes(prefix: experiment + "." + salt + ".", text: user, suffix: suffix), count: BucketingScheme.sdk.bucketCount)
        }

        /// The bucket of the documented formula (hash of USER+EXPERIMENT+SALT, modulo 100).
        static func docs(experiment: String, salt: String, user: String) -> Bucket {
            Bucket(hashed: HashedBytes(text: user, suffix: experiment + salt), count: BucketingScheme.docs.bucketCount)
        }
    }

    /// `buckets`, computed side by side and bound in `rows`; their names, in order.
    func bind(_ buckets: [Bucket], in rows: inout SQLRelation) -> [String] {
        let hashes = engine.murmurHash3(buckets.map(\.hashed), in: &rows)
        return rows.bind(zip(hashes, buckets).map { "(\($0) % \($1.count))" })
    }

    /// The variant of `bucket`: each non-empty range in array order, the last variant
    /// catching what no range claims; NULL without variants.
    func variant(_ allocation: VariantAllocation, bucket: String) -> String {
        let ranges = allocation.ranges
        guard let last = ranges.last else { return engine.nullText }
        let cases = ranges.dropLast().filter { $0.upper > $0.lower }.map { "WHEN \(bucket) < \($0.upper) THEN \(literal($0.variant))" }
        if cases.isEmpty { return literal(last.variant) }
        return "CASE " + cases.joined(separator: " ") + " ELSE \(literal(last.variant)) END"
    }

    /// `value IN (…)`, FALSE for an empty list. Strings compare byte for byte in every engine.
    func isIn(_ value: String, _ options: [String]) -> String {
        options.isEmpty ? "FALSE" : "(\(value) IN (\(options.map(literal).joined(separator: ", "))))"
    }

    /// `text` without Unicode white space (the White_Space property, as Swift's
    /// `Unicode.Scalar.Properties.isWhitespace`) at either end.
    func trimmedWhitespace(_ text: String) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x9...0xD, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                             0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000]
        let members = ranges.map { range in
            range.count == 1 ? engine.regexScalar(range.lowerBound) : engine.regexScalar(range.lowerBound) + "-" + engine.regexScalar(range.upperBound)
        }
        let space = "[" + members.joined() + "]+"
        return engine.removingMatches(text, "^" + space + "|" + space + "$")
    }

    /// A number as a DOUBLE literal (infinities included).
    func doubleLiteral(_ value: Double) -> String {
        if value == .infinity { return engine.double("'inf'") }
        if value == -.infinity { return engine.double("'-inf'") }
        return engine.double("\(value)")
    }
}
