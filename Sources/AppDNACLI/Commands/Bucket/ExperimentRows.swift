import AppDNACore

/// `bucket - EXP SALT`'s rows: `user hash bucket [variant]` as TSV, CSV or NDJSON (the same
/// bytes `JSONWriter` gives the object `{"user", "hash", "bucket", "variant"}`), or with
/// `--summary` only the counts. The fields that repeat (each variant's, the JSON keys) are
/// made once, in `pieces`; nothing is allocated per id.
struct ExperimentRows: BatchRows {
    let format: BucketBatch.Format
    let summary: Bool
    let pieces: RowPieces
    /// Variants of the allocation (0: no variant column).
    let variants: Int
    private var bucketer: BatchBucketer
    /// With a bundle: eligibility varies per user only through traffic allocation.
    private let eligibility: BatchEligibility?
    // --summary
    private(set) var counts: [Int]
    private(set) var ineligible = 0
    private(set) var total = 0
    private(set) var distinct = DistinctCounter()

    init(setup: BucketSetup, format: BucketBatch.Format, summary: Bool, pieces: RowPieces, variants: Int) {
        self.format = format
        self.summary = summary
        self.pieces = pieces
        self.variants = variants
        bucketer = BatchBucketer(scheme: setup.scheme, experiment: setup.experiment, salt: setup.salt, allocation: setup.allocation)
        eligibility = setup.definition.map { BatchEligibility($0, context: setup.context) }
        counts = [Int](repeating: 0, count: variants)
    }

    // Pieces after the variants' (0..<variants) and "no variant" (variants).
    private var rowStart: Int { variants + 1 }
    private var beforeHash: Int { variants + 2 }
    private var beforeBucket: Int { variants + 3 }
    private var rowEnd: Int { variants + 4 }

    /// Each variant's field with what goes before it (`\tname`, `,name` quoted when it must be,
    /// `,"variant":"name"`), the "no variant" field (`\t-`, `,`, `,"variant":null`), then the
    /// row's start, the text before the hash and the bucket, and the row's end.
    static func pieces(variants: [[UInt8]], format: BucketBatch.Format) -> RowPieces {
        let separator = Array((format == .ndjson ? #","variant":"# : format == .csv ? "," : "\t").utf8)
        var list = variants.map { name in
            RowPieces.encode { buffer in
                separator.withUnsafeBytes { buffer.copy($0) }
                name.withUnsafeBytes { BucketBatch.appendField($0, format: format, to: &buffer) }
            }
        }
        switch format {
        case .tsv: list += [Array("\t-".utf8), [], [9], [9], [10]]
        case .csv: list += [[44], [], [44], [44], [10]]
        case .ndjson: list += [Array(#","variant":null"#.utf8), Array(#"{"user":"#.utf8), Array(#","hash":"#.utf8), Array(#","bucket":"#.utf8), Array("}\n".utf8)]
        }
        return RowPieces(list)
    }

    @inline(__always)
    mutating func take(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer) {
        let hash = bucketer.hash(user)
        let bucket = bucketer.bucket(hash)
        var variant = bucketer.variantIndex(bucket)
        // Optional chaining reads the stored value in place (binding it would copy it per id).
        if eligibility?.kind(user).mayAssign == false {
            variant = nil
            ineligible += 1
        }
        total += 1
        if summary {
            if let variant { counts[variant] += 1 }
            distinct.insert(user)
            return
        }
        guard format != .ndjson else {
            rows.reserve(pieces.longest)
            rows.uncheckedCopy(pieces[rowStart])
            JSONWriter.appendQuoted(user, to: &rows)
            rows.reserve(4 * pieces.longest + 20)
            rows.uncheckedCopy(pieces[beforeHash])
            rows.uncheckedDecimal(hash)
            rows.uncheckedCopy(pieces[beforeBucket])
            rows.uncheckedDecimal(bucket)
            if variants > 0 { rows.uncheckedCopy(pieces[variant ?? variants]) }
            rows.uncheckedCopy(pieces[rowEnd])
            return
        }
        // TSV and CSV: the same row; the separators are single bytes.
        let separator: UInt8 = format == .csv ? 44 : 9
        rows.reserve(4 * user.count + 26 + pieces.longest)
        BucketBatch.appendField(user, format: format, to: &rows)
        rows.uncheckedByte(separator)
        rows.uncheckedDecimal(hash)
        rows.uncheckedByte(separator)
        rows.uncheckedDecimal(bucket)
        if variants > 0 { rows.uncheckedCopy(pieces[variant ?? variants]) }
        rows.uncheckedByte(10)
    }
}
