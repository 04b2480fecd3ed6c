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

    static func run(_ invocation: Invocation, _ plan: BucketPlan, summary: Bool, setup: BucketSetup) throws -> ExitStatus {
        let format = plan.format
        let out = invocation.stdout
        let variantNames = setup.allocation?.ranges.map { Array($0.variant.utf8) } ?? []
        let pieces = ExperimentRows.pieces(variants: variantNames, format: format)
        defer { pieces.free() }

        if !summary { out.preferLargePipeBuffer() }
        if format == .csv && !summary {
            out.writeVerbatim(setup.allocation == nil ? "user,hash,bucket\n" : "user,hash,bucket,variant\n")
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
            BucketSummary.print(invocation, json: plan.json, setup: setup, counts: counts, total: total, ineligible: ineligible, distinct: distinct)
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

    /// One text field of a row: TSV escaped (below); CSV escaped as TSV escapes, then quoted per
    /// RFC 4180 (a field holding a comma or quote is quoted, with inner quotes doubled); NDJSON a
    /// JSON string literal. CSV doubles a backslash as TSV does, so an id holding a tab (`\t`)
    /// and one spelling `\t` literally (`\\t`) never print the same bytes: a reader undoes
    /// the quoting, then the escapes, and has the id back (docs/experiments.md says how).
    @inline(__always)
    static func appendField(_ field: UnsafeRawBufferPointer, format: Format, to buffer: inout RawByteBuffer) {
        switch format {
        case .tsv:
            buffer.reserve(4 * field.count)
            appendTSVField(field, to: &buffer)
        case .csv:
            // The escapes take at most 4 bytes a byte; a quote (which they leave) becomes 2.
            buffer.reserve(4 * field.count + 2)
            if FieldScan.mayNeedTSVEscape(field), let first = field.firstIndex(where: { tsvLook[Int($0)] }) {
                var escaped = Array(field[..<first])
                appendTSVEscapes(field, from: first, to: &escaped)
                escaped.withUnsafeBytes { appendCSVField($0, to: &buffer) }
            } else {
                appendCSVField(field, to: &buffer)
            }
        case .ndjson:
            JSONWriter.appendQuoted(field, to: &buffer)
        }
    }

    /// One TSV field with tab, CR, LF and backslash written as `\t`, `\r`, `\n`, `\\` (the
    /// escapes PostgreSQL's COPY and most TSV readers use), so an id holding a tab cannot add a
    /// column, nor a CR or LF a row; the other characters that would act on a terminal or a
    /// log are written as `VisibleText` writes them (`\x1B`, `\u202E`), unambiguous because
    /// a backslash is doubled. The caller reserved `4 * count` bytes (the longest escape,
    /// `\x1B`, is four bytes for one).
    @inline(__always)
    static func appendTSVField(_ field: UnsafeRawBufferPointer, to buffer: inout RawByteBuffer) {
        guard let start = field.baseAddress else { return }
        guard FieldScan.mayNeedTSVEscape(field), let first = field.firstIndex(where: { tsvLook[Int($0)] }) else {
            buffer.uncheckedCopyShort(start, field.count)
            return
        }
        buffer.uncheckedCopy(start, first)
        var escaped: [UInt8] = []
        appendTSVEscapes(field, from: first, to: &escaped)
        escaped.withUnsafeBytes { buffer.uncheckedCopy($0.baseAddress!, $0.count) }
    }

    /// `field[first...]` with a backslash doubled and what `VisibleText` escapes escaped: the
    /// escaping TSV and CSV share.
    static func appendTSVEscapes(_ field: UnsafeRawBufferPointer, from first: Int, to escaped: inout [UInt8]) {
        var i = first
        while i < field.count {
            let byte = field[i]
            if byte == 92 {
                escaped.append(contentsOf: [92, 92])
                i += 1
                continue
            }
            let length = byte < 0xC0 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
            let end = min(field.count, i + length)
            VisibleText.append(UnsafeRawBufferPointer(rebasing: field[i..<end]), to: &escaped, asciiOnly: false)
            i = end
        }
    }

    /// Bytes that may start something a TSV field escapes: a backslash, and what `VisibleText`
    /// looks at (C0, DEL, the lead bytes of C1, bidi and separator characters).
    static let tsvLook: [Bool] = (0..<256).map { $0 == 92 || $0 < 0x20 || $0 == 0x7F || VisibleText.mayStartEscape[$0] }

    /// One CSV field (already escaped: it holds no CR or LF), quoted when it holds a comma or a
    /// quote; the caller reserved `2 * count + 2` bytes (of the escaped field).
    @inline(__always)
    static func appendCSVField(_ field: UnsafeRawBufferPointer, to buffer: inout RawByteBuffer) {
        guard let start = field.baseAddress else { return }
        guard FieldScan.mayNeedCSVQuotes(field), field.contains(where: { $0 == 44 || $0 == 34 }) else {
            buffer.uncheckedCopyShort(start, field.count)
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
