import AppDNACore

/// `appdna bucket - EXP SALT`: one user id per line from stdin, one result per line out,
/// or `--summary` counts. This loop runs ten million times in the benchmark (bench/bucket.sh,
/// against a C program), so each row is formatted by hand into one raw output buffer handed to
/// stdout a megabyte at a time, the variant field of each variant is made once, and memory
/// stays flat whatever the input size.
enum BucketBatch {
    enum Format: String, CaseIterable, Sendable { case tsv, csv, ndjson }

    /// Rows are handed to stdout when this much is buffered.
    static let flushSize = 1 << 20

    static func run(_ invocation: Invocation, setup: BucketSetup) throws -> ExitStatus {
        let format = invocation.arguments[BucketFlags.format]
        let summary = invocation.arguments[BucketFlags.summary]
        let out = invocation.stdout
        let bucketer = BatchBucketer(scheme: setup.scheme, experiment: setup.experiment, salt: setup.salt, allocation: setup.allocation)
        let variantNames = setup.allocation?.ranges.map { Array($0.variant.utf8) } ?? []
        let variantFields = VariantFields(names: variantNames, format: format)
        defer { variantFields.free() }
        var rows = RawByteBuffer(capacity: flushSize + 64 * 1024)
        defer { rows.free() }
        let separator: UInt8 = format == .csv ? 44 : 9
        var counts = [Int](repeating: 0, count: variantNames.count)
        var ineligible = 0
        var total = 0
        var lines = UserIDLines()
        // Repeated ids weigh a user more than once in the summary: count distinct ids to warn.
        var distinct = DistinctCounter()
        // Eligibility varies per user only through traffic allocation; evaluate it per user
        // only when a bundle is given.
        let perUserRules = setup.definition != nil

        if !summary { out.preferLargePipeBuffer() }
        if format == .csv && !summary {
            out.write(setup.allocation == nil ? "user,hash,bucket\n" : "user,hash,bucket,variant\n")
        }

        // Whether stdout failed (a closed pipe ends the loop), read after each hand-over only:
        // asking the sink on every line costs more than the rest of a row.
        var broken = out.isBroken
        try lines.forEachID(invocation, keepGoing: { !broken }) { line, _ in
            let hash = bucketer.hash(line)
            let bucket = bucketer.bucket(hash)
            var variant = bucketer.variantIndex(bucket)
            if perUserRules {
                let user = String(decoding: line, as: UTF8.self)
                if setup.rules(for: user).failed != nil { variant = nil; ineligible += 1 }
            }
            total += 1
            if summary {
                if let variant { counts[variant] += 1 }
                distinct.insert(line)
                return true
            }
            switch format {
            case .tsv, .csv:
                // The same row either way; CSV quotes fields that need it, TSV marks "no variant" with "-".
                rows.reserve(2 * line.count + 24 + variantFields.longest)
                if format == .tsv {
                    appendTSVField(line, to: &rows)
                } else {
                    appendCSVField(line, to: &rows)
                }
                rows.uncheckedByte(separator)
                rows.uncheckedDecimal(hash)
                rows.uncheckedByte(separator)
                rows.uncheckedDecimal(bucket)
                if !variantNames.isEmpty {
                    let field = variantFields.field(variant)
                    rows.uncheckedCopy(field.baseAddress!, field.count)
                }
                rows.uncheckedByte(10)
            case .ndjson:
                let user = String(decoding: line, as: UTF8.self)
                var object: JSONObject = ["user": .string(user), "hash": .integer(hash), "bucket": .integer(bucket)]
                if !variantNames.isEmpty {
                    object["variant"] = variant.map { .string(setup.allocation!.ranges[$0].variant) } ?? .null
                }
                JSONWriter().write(.object(object)).withUnsafeBytes { rows.copy($0) }
                rows.byte(10)
            }
            if rows.count >= flushSize {
                out.write(rows.bytes)
                rows.count = 0
                broken = out.isBroken
            }
            return !broken
        }
        out.write(rows.bytes)

        if summary {
            BucketSummary.print(invocation, setup: setup, counts: counts, total: total, ineligible: ineligible, distinct: distinct)
        }
        return lines.report(invocation)
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

    /// Each variant's field with the separator before it (`\tname`, `,name` quoted when it
    /// must be), and the field for "no variant" (`\t-`, `,`), laid out once in raw memory.
    struct VariantFields {
        private let storage: RawByteBuffer
        /// Field i is `storage[offsets[i] ..< offsets[i + 1]]`; the last one is "no variant".
        private let offsets: [Int]
        let longest: Int

        init(names: [[UInt8]], format: Format) {
            var storage = RawByteBuffer(capacity: 64 + names.reduce(0) { $0 + 2 * $1.count + 3 })
            var offsets = [0]
            for name in names {
                storage.byte(format == .csv ? 44 : 9)
                name.withUnsafeBytes { BucketBatch.appendField($0, format: format, to: &storage) }
                offsets.append(storage.count)
            }
            storage.byte(format == .csv ? 44 : 9)
            if format == .tsv { storage.byte(45) }
            offsets.append(storage.count)
            self.storage = storage
            self.offsets = offsets
            longest = zip(offsets, offsets.dropFirst()).map { $1 - $0 }.max() ?? 0
        }

        @inline(__always)
        func field(_ variant: Int?) -> UnsafeRawBufferPointer {
            let index = variant ?? offsets.count - 2
            return UnsafeRawBufferPointer(start: storage.base + offsets[index], count: offsets[index + 1] - offsets[index])
        }

        func free() { storage.free() }
    }

    /// TSV fields go out as they are; CSV follows RFC 4180: a field holding a comma, quote or
    /// line break is quoted, with inner quotes doubled.
    static func appendField(_ field: UnsafeRawBufferPointer, format: Format, to buffer: inout RawByteBuffer) {
        if format == .csv {
            buffer.reserve(2 * field.count + 2)
            appendCSVField(field, to: &buffer)
        } else {
            buffer.reserve(2 * field.count)
            appendTSVField(field, to: &buffer)
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
