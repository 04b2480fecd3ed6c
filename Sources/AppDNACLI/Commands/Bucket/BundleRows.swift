import AppDNACore

/// `bucket - --bundle FILE`'s rows: one per user and experiment, `user experiment hash bucket
/// variant eligible`, as TSV, CSV or NDJSON (the same bytes `JSONWriter` gives the object
/// `{"user", "experiment", "hash", "bucket", "variant", "eligible"}`). Per experiment, the
/// bucketer, the rules that do not depend on the user and every field but the user's, hash and
/// bucket are made once; the user's field is escaped once per user and copied into each row.
/// Nothing is allocated per row.
struct BundleRows: BatchRows {
    /// One experiment's hashing and eligibility (scratch memory: one per thread).
    private struct Experiment {
        let bucketer: BatchBucketer
        let eligibility: BatchEligibility
        /// Its pieces: the experiment's field (`\tEXP\t`, `,"experiment":"EXP","hash":`) and
        /// its variants' fields, from `first`; "no variant" at `first + variants`.
        let first: Int
        let variants: Int
        /// Buckets are `hash % 10_000` (the SDK's scheme): the bucket is the hash's last digits.
        let tenThousandBuckets: Bool
    }

    let format: BucketBatch.Format
    let pieces: RowPieces
    private let experiments: [Experiment]

    // Pieces shared by every experiment, at the start of `pieces`.
    private static let rowStart = 0, beforeBucket = 1, eligibleYes = 2, eligibleNo = 3, eligibleUnknown = 4, shared = 5

    init(setups: [BucketSetup], format: BucketBatch.Format, pieces: RowPieces) {
        self.format = format
        self.pieces = pieces
        var first = Self.shared
        experiments = setups.map { setup -> Experiment in
            let variants = setup.allocation?.ranges.count ?? 0
            defer { first += variants + 2 }
            return Experiment(bucketer: BatchBucketer(scheme: setup.scheme, experiment: setup.experiment, salt: setup.salt, allocation: setup.allocation),
                              eligibility: BatchEligibility(setup.definition!, context: setup.context),
                              first: first, variants: variants, tenThousandBuckets: setup.scheme.bucketCount == 10_000)
        }
    }

    /// The pieces, in the order `init` numbers them.
    static func pieces(setups: [BucketSetup], format: BucketBatch.Format) -> RowPieces {
        func field(_ text: String, before: String, after: String = "") -> [UInt8] {
            RowPieces.encode { buffer in
                Array(before.utf8).withUnsafeBytes { buffer.copy($0) }
                Array(text.utf8).withUnsafeBytes { BucketBatch.appendField($0, format: format, to: &buffer) }
                Array(after.utf8).withUnsafeBytes { buffer.copy($0) }
            }
        }
        let separator = format == .csv ? "," : "\t"
        var list: [[UInt8]]
        switch format {
        case .tsv, .csv:
            list = [[], Array(separator.utf8)] + ["yes", "no", "unknown"].map { Array((separator + $0 + "\n").utf8) }
        case .ndjson:
            list = [Array(#"{"user":"#.utf8), Array(#","bucket":"#.utf8)]
                + ["true", "false", #""unknown""#].map { Array((#","eligible":"# + $0 + "}\n").utf8) }
        }
        for setup in setups {
            let variants = setup.allocation?.ranges.map(\.variant) ?? []
            if format == .ndjson {
                list.append(field(setup.experiment, before: #","experiment":"#, after: #","hash":"#))
                list += variants.map { field($0, before: #","variant":"#) }
                list.append(Array(#","variant":null"#.utf8))
            } else {
                list.append(field(setup.experiment, before: separator, after: separator))
                list += variants.map { field($0, before: separator) }
                list.append(Array((format == .tsv ? "\t-" : ",").utf8))
            }
        }
        return RowPieces(list)
    }

    @inline(__always)
    mutating func take(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer) {
        guard !experiments.isEmpty else { return }
        // The first row holds the user's field; the others copy it from there.
        let userStart = rows.count + pieces[Self.rowStart].count
        rows.reserve(pieces.longest)
        rows.uncheckedCopy(pieces[Self.rowStart])
        BucketBatch.appendField(user, format: format, to: &rows)
        let userCount = rows.count - userStart
        for index in experiments.indices {
            if index > 0 {
                rows.reserve(pieces.longest + userCount)
                rows.uncheckedCopy(pieces[Self.rowStart])
                rows.uncheckedCopyShort(UnsafeRawPointer(rows.base + userStart), userCount)
            }
            // By index, with the per-user calls inlined: the experiment is read in place.
            let hash = experiments[index].bucketer.hash(user)
            let bucket = experiments[index].bucketer.bucket(hash)
            let kind = experiments[index].eligibility.kind(user)
            let variant = kind.mayAssign ? experiments[index].bucketer.variantIndex(bucket) : nil
            let first = experiments[index].first
            rows.reserve(4 * pieces.longest + 20)
            rows.uncheckedCopy(pieces[first])
            if experiments[index].tenThousandBuckets {
                rows.uncheckedDecimal(hash, lastFourDigits: bucket)
                rows.uncheckedCopy(pieces[Self.beforeBucket])
                rows.uncheckedSmallDecimal(bucket)
            } else {
                rows.uncheckedDecimal(hash)
                rows.uncheckedCopy(pieces[Self.beforeBucket])
                rows.uncheckedDecimal(bucket)
            }
            rows.uncheckedCopy(pieces[first + 1 + (variant ?? experiments[index].variants)])
            switch kind {
            case .eligible: rows.uncheckedCopy(pieces[Self.eligibleYes])
            case .notEligible: rows.uncheckedCopy(pieces[Self.eligibleNo])
            case .unknown: rows.uncheckedCopy(pieces[Self.eligibleUnknown])
            }
        }
    }
}
