import AppDNACore

/// `appdna bucket - EXP SALT`: one user id per line from stdin, one result per line out,
/// or `--summary` counts. This loop runs ten million times in the benchmark (bench/bucket.sh,
/// against a C program), so each row is formatted by hand into raw output buffers (the fields
/// that repeat made once), on every core (`BatchRunner`: the output is that of one thread, in
/// input order), and memory stays flat whatever the input size.
enum BucketBatch {
    enum Format: String, CaseIterable, Sendable { case tsv, csv, ndjson }

    /// Rows are handed to stdout when this much is buffered (on one thread).
    static let flushSize = 1 << 20
    /// Bytes of input per chunk on several threads: ~13,000 ids, whose rows take ~600 KB
    /// (a few chunks are in flight; smaller ones cost more hand-overs between threads).
    static let chunkSize = 256 * 1024

    static func run(_ invocation: Invocation, setup: BucketSetup) throws -> ExitStatus {
        let format = invocation.arguments[BucketFlags.format]
        let summary = invocation.arguments[BucketFlags.summary]
        let out = invocation.stdout
        let variantNames = setup.allocation?.ranges.map { Array($0.variant.utf8) } ?? []
        let pieces = ExperimentRows.pieces(variants: variantNames, format: format)
        defer { pieces.free() }

        if !summary { out.preferLargePipeBuffer() }
        if format == .csv && !summary {
            out.write(setup.allocation == nil ? "user,hash,bucket\n" : "user,hash,bucket,variant\n")
        }
        let run = try BatchRunner.run(invocation, chunkSize: chunkSize) {
            ExperimentRows(setup: setup, format: format, summary: summary, pieces: pieces, variants: variantNames.count)
        }
        if summary {
            var counts = [Int](repeating: 0, count: variantNames.count)
            var ineligible = 0, total = 0
            var distinct = DistinctCounter()
            for rows in run.rows {
                for index in counts.indices { counts[index] += rows.counts[index] }
                ineligible += rows.ineligible
                total += rows.total
                distinct.merge(rows.distinct)
            }
            BucketSummary.print(invocation, setup: setup, counts: counts, total: total, ineligible: ineligible, distinct: distinct)
        }
        return run.lines.report(invocation)
    }

    /// Plain ASCII ids are the norm: eight bytes are checked at a time, and only a line with a
    /// byte >= 0x80 goes to the full UTF-8 validation.
    @inline(__always)
    static func isValidUTF8(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let base = line.baseAddress else { return true }
        let count = line.count
        var index = 0
        while index &+ 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return UTF8Validation.isValid(line)
            }
            index &+= 8
        }
        while index < count {
            if base.load(fromByteOffset: index, as: UInt8.self) >= 0x80 {
                return UTF8Validation.isValid(line)
            }
            index &+= 1
        }
        return true
    }

    /// One text field of a row: TSV escaped (below), CSV per RFC 4180 (a field holding a comma,
    /// quote or line break is quoted, with inner quotes doubled), NDJSON a JSON string literal.
    @inline(__always)
    static func appendField(_ field: UnsafeRawBufferPointer, format: Format, to buffer: inout RawByteBuffer) {
        switch format {
        case .tsv:
            buffer.reserve(2 * field.count)
            appendTSVField(field, to: &buffer)
        case .csv:
            buffer.reserve(2 * field.count + 2)
            appendCSVField(field, to: &buffer)
        case .ndjson:
            JSONWriter.appendQuoted(field, to: &buffer)
        }
    }

    /// One TSV field with tab, CR, LF and backslash written as `\t`, `\r`, `\n`, `\\` (the
    /// escapes PostgreSQL's COPY and most TSV readers use), so an id holding a tab cannot add a
    /// column, nor a CR or LF a row; the caller reserved `2 * count` bytes.
    @inline(__always)
    static func appendTSVField(_ field: UnsafeRawBufferPointer, to buffer: inout RawByteBuffer) {
        guard let start = field.baseAddress else { return }
        guard field.contains(where: { $0 == 9 || $0 == 10 || $0 == 13 || $0 == 92 }) else {
            buffer.uncheckedCopy(start, field.count)
            return
        }
        for byte in field {
            switch byte {
            case 9: buffer.uncheckedByte(92); buffer.uncheckedByte(116)    // \t
            case 10: buffer.uncheckedByte(92); buffer.uncheckedByte(110)   // \n
            case 13: buffer.uncheckedByte(92); buffer.uncheckedByte(114)   // \r
            case 92: buffer.uncheckedByte(92); buffer.uncheckedByte(92)    // \\
            default: buffer.uncheckedByte(byte)
            }
        }
    }

    /// One CSV field, quoted when it must be; the caller reserved `2 * count + 2` bytes.
    @inline(__always)
    static func appendCSVField(_ field: UnsafeRawBufferPointer, to buffer: inout RawByteBuffer) {
        guard let start = field.baseAddress else { return }
        guard field.contains(where: { $0 == 44 || $0 == 34 || $0 == 13 || $0 == 10 }) else {
            buffer.uncheckedCopy(start, field.count)
            return
        }
        buffer.uncheckedByte(34)
        for byte in field {
            if byte == 34 { buffer.uncheckedByte(34) }
            buffer.uncheckedByte(byte)
        }
        buffer.uncheckedByte(34)
    }
}
