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
    private let bucketer: BatchBucketer
    /// With a bundle: eligibility varies per user only through traffic allocation.
    private let eligibility: BatchEligibility?
    /// Buckets are `hash % 10_000` (the SDK's scheme): the bucket is the hash's last digits.
    private let tenThousandBuckets: Bool
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
        tenThousandBuckets = setup.scheme.bucketCount == 10_000
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
        take(user, plain: false, into: &rows)
    }

    @inline(__always)
    mutating func takePlain(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer) {
        take(user, plain: true, into: &rows)
    }

    /// `plain`: the id needs no escaping in any format (`PlainLines`), so it is copied as it is.
    @inline(__always)
    private mutating func take(_ user: UnsafeRawBufferPointer, plain: Bool, into rows: inout RawByteBuffer) {
        let hash = bucketer.hash(user)
        let bucket = bucketer.bucket(hash)
        var variant = bucketer.variantIndex(bucket)
        // Optional chaining reads the stored value in place (binding it would copy it per id).
        if eligibility?.kind(user).mayAssign == false {
            variant = nil
            ineligible += 1
        }
        total &+= 1
        if summary {
            if let variant { counts[variant] += 1 }
            distinct.insert(user)
            return
        }
        guard format != .ndjson else {
            rows.reserve(pieces.longest &+ user.count &+ 2)
            rows.uncheckedCopy(pieces[rowStart])
            if plain {
                rows.uncheckedByte(34)
                rows.uncheckedCopyShort(user.baseAddress!, user.count)
                rows.uncheckedByte(34)
            } else {
                JSONWriter.appendQuoted(user, to: &rows)
            }
            rows.reserve(4 &* pieces.longest &+ 28)
            rows.uncheckedCopy(pieces[beforeHash])
            appendHash(hash, bucket: bucket, to: &rows)
            rows.uncheckedCopy(pieces[beforeBucket])
            appendBucket(bucket, to: &rows)
            if variants > 0 { pieces.copy(variant ?? variants, to: &rows) }
            rows.uncheckedCopy(pieces[rowEnd])
            return
        }
        // TSV and CSV: the same row; the separators are single bytes.
        let separator: UInt8 = format == .csv ? 44 : 9
        // The user, 16 bytes of separators and numbers, a variant's piece and 8 bytes (`copy`).
        rows.reserve(4 &* user.count &+ 26 &+ pieces.longest)
        if plain {
            rows.uncheckedCopyShort(user.baseAddress!, user.count)
        } else {
            BucketBatch.appendField(user, format: format, to: &rows)
        }
        rows.uncheckedByte(separator)
        appendHash(hash, bucket: bucket, to: &rows)
        rows.uncheckedByte(separator)
        appendBucket(bucket, to: &rows)
        if variants > 0 { pieces.copy(variant ?? variants, to: &rows) }
        rows.uncheckedByte(10)
    }

    /// The hash in decimal: out of 10,000 buckets (the SDK's scheme), the bucket is the hash's
    /// last four digits, so they are not worked out twice.
    @inline(__always)
    private func appendHash(_ hash: UInt32, bucket: UInt32, to rows: inout RawByteBuffer) {
        if tenThousandBuckets {
            rows.uncheckedDecimal(hash, lastFourDigits: bucket)
        } else {
            rows.uncheckedDecimal(hash)
        }
    }

    @inline(__always)
    private func appendBucket(_ bucket: UInt32, to rows: inout RawByteBuffer) {
        if tenThousandBuckets {
            rows.uncheckedSmallDecimal(bucket)
        } else {
            rows.uncheckedDecimal(bucket)
        }
    }
}
