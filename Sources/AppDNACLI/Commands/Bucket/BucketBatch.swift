import AppDNACore

/// `appdna bucket - EXP SALT`: one user id per line from stdin, one result per line out,
/// or `--summary` counts. Bytes are formatted by hand into the output buffer: this loop runs
/// ten million times in the benchmark, and memory stays flat whatever the input size.
enum BucketBatch {
    enum Format: String { case tsv, csv, ndjson }

    static func run(_ invocation: Invocation, setup: BucketSetup) throws -> ExitStatus {
        let format = Format(rawValue: invocation.arguments.value("format") ?? "tsv") ?? .tsv
        let summary = invocation.arguments.has("summary")
        let out = invocation.stdout
        var bucketer = BatchBucketer(scheme: setup.scheme, experiment: setup.experiment, salt: setup.salt, allocation: setup.allocation)
        let variantNames = setup.allocation?.ranges.map { Array($0.variant.utf8) } ?? []
        var counts = [Int](repeating: 0, count: variantNames.count)
        var ineligible = 0
        var total = 0
        var lines = UserIDLines()
        // Repeated ids weigh a user more than once in the summary: count distinct ids to warn.
        var distinct = DistinctCounter()
        // Eligibility varies per user only through traffic allocation; evaluate it per user
        // only when a bundle is given.
        let perUserRules = setup.definition != nil

        if format == .csv && !summary {
            out.write(setup.allocation == nil ? "user,hash,bucket\n" : "user,hash,bucket,variant\n")
        }

        try lines.forEachID(invocation, keepGoing: { !out.isBroken }) { line, _ in
            let result = bucketer.assign(line)
            var variant = result.variant
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
            out.withBuffer { buffer in
                switch format {
                case .tsv, .csv:
                    // The same row either way; CSV quotes fields that need it, TSV marks "no variant" with "-".
                    let separator: UInt8 = format == .tsv ? 9 : 44
                    appendField(line, format: format, to: &buffer)
                    buffer.append(separator)
                    appendDecimal(UInt64(result.hash), to: &buffer)
                    buffer.append(separator)
                    appendDecimal(UInt64(result.bucket), to: &buffer)
                    if !variantNames.isEmpty {
                        buffer.append(separator)
                        if let variant {
                            variantNames[variant].withUnsafeBytes { appendField($0, format: format, to: &buffer) }
                        } else if format == .tsv {
                            buffer.append(45)
                        }
                    }
                case .ndjson:
                    let user = String(decoding: line, as: UTF8.self)
                    var object: JSONObject = ["user": .string(user), "hash": .integer(result.hash),
                                              "bucket": .integer(result.bucket)]
                    if !variantNames.isEmpty {
                        object["variant"] = variant.map { .string(setup.allocation!.ranges[$0].variant) } ?? .null
                    }
                    buffer.append(contentsOf: JSONWriter().write(.object(object)))
                }
                buffer.append(10)
            }
            return !out.isBroken
        }

        if summary {
            BucketSummary.print(invocation, setup: setup, counts: counts, total: total, ineligible: ineligible, distinct: distinct)
        }
        return lines.report(invocation)
    }

    @inline(__always)
    static func isValidUTF8(_ line: UnsafeRawBufferPointer) -> Bool {
        // Fast path: plain ASCII ids are the norm.
        var index = 0
        let count = line.count
        while index < count && line[index] < 0x80 { index += 1 }
        if index == count { return true }
        return String(validating: line.bindMemory(to: UInt8.self), as: UTF8.self) != nil
    }

    @inline(__always)
    static func appendDecimal(_ value: UInt64, to buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(48 + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while v > 0 {
                raw[19 - count] = 48 + UInt8(v % 10)
                v /= 10
                count += 1
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(20 - count)...]))
        }
    }

    /// TSV fields go out as they are; CSV follows RFC 4180: a field holding a comma, quote or
    /// line break is quoted, with inner quotes doubled.
    @inline(__always)
    static func appendField(_ field: UnsafeRawBufferPointer, format: Format, to buffer: inout [UInt8]) {
        guard format == .csv, field.contains(where: { $0 == 44 || $0 == 34 || $0 == 13 || $0 == 10 }) else {
            buffer.append(contentsOf: field)
            return
        }
        buffer.append(34)
        for byte in field {
            if byte == 34 { buffer.append(34) }
            buffer.append(byte)
        }
        buffer.append(34)
    }
}
