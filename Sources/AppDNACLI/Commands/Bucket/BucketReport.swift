import AppDNACore

/// One user's assignment, in text (aligned `label  value` lines) or as one JSON document.
/// The JSON fields are documented in the README and only ever added to.
enum BucketReport {
    static func run(_ invocation: Invocation, setup: BucketSetup, user: String) -> ExitStatus {
        let arguments = invocation.arguments
        let explain = arguments.has("explain")
        let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
        let rules = setup.rules(for: user)
        let eligible = rules.failed == nil
        let variant = eligible ? setup.allocation?.variant(forBucket: assignment.bucket) : nil
        let hazards = explain ? PortabilityHazards.check(user: user, experiment: setup.experiment, salt: setup.salt, scheme: setup.scheme) : []
        let otherScheme: BucketingScheme = setup.scheme == .sdk ? .docs : .sdk
        let other = otherScheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)

        if arguments.has("json") {
            var object: JSONObject = [
                "scheme": .string(setup.scheme.rawValue),
                "user": .string(user),
                "experiment": .string(setup.experiment),
                "salt": .string(setup.salt),
                "effective_salt": .string(setup.scheme.effectiveSalt(setup.salt, experiment: setup.experiment)),
                "hashed_string": .string(assignment.hashedString),
                "hash": .integer(assignment.hash),
                "bucket": .integer(assignment.bucket),
                "bucket_count": .integer(setup.scheme.bucketCount),
                "variant": variant.map(JSONValue.string) ?? .null,
            ]
            if let allocation = setup.allocation {
                object["variants"] = .array(allocation.ranges.map { range in
                    ["id": .string(range.variant), "weight": .decimal(range.weight),
                     "first_bucket": .integer(range.lower), "end_bucket": .integer(range.upper)]
                })
            }
            if setup.definition != nil {
                object["eligible"] = .bool(eligible)
                object["rules"] = .array(rules.outcomes.map { ["rule": .string($0.rule), "passed": .bool($0.passed), "detail": .string($0.detail)] })
                object["failed_rule"] = rules.failed.map { .string($0.rule) } ?? .null
            }
            if explain {
                let bytes = Array(assignment.hashedString.utf8)
                object["explain"] = .object([
                    "bytes_hex": .string(HexText.spaced(bytes)),
                    "utf8_length": .integer(bytes.count),
                    "seed": 0,
                    "hash_hex": .string(HexText.fixed32(assignment.hash)),
                    "other_scheme": ["scheme": .string(otherScheme.rawValue), "hashed_string": .string(other.hashedString),
                                     "hash": .integer(other.hash), "bucket": .integer(other.bucket),
                                     "bucket_count": .integer(otherScheme.bucketCount)],
                    "warnings": .array(hazards.map { ["code": .string($0.code), "message": .string($0.message)] }),
                ])
            }
            invocation.stdout.write(JSONWriter(indent: 2).write(.object(object)))
            invocation.stdout.writeLine()
            return .success
        }

        let style = invocation.options.stdoutStyle
        var rows: [(String, String)] = []
        if explain {
            rows.append(("scheme", setup.scheme == .sdk ? "sdk (what devices compute)" : "docs (the documented formula)"))
        }
        rows.append(("hashed string", assignment.hashedString))
        if explain {
            let bytes = Array(assignment.hashedString.utf8)
            rows.append(("bytes (hex)", HexText.spaced(bytes)))
            rows.append(("UTF-8 length", "\(bytes.count) bytes"))
            rows.append(("seed", "0"))
            rows.append(("hash", "\(assignment.hash) (\(HexText.fixed32(assignment.hash)))"))
            rows.append(("bucket", "\(assignment.bucket) = \(assignment.hash) % \(setup.scheme.bucketCount)"))
        } else {
            rows.append(("hash", "\(assignment.hash)"))
            rows.append(("bucket", "\(assignment.bucket)"))
        }
        if explain, let allocation = setup.allocation {
            let width = allocation.ranges.map(\.variant.count).max() ?? 0
            for (index, range) in allocation.ranges.enumerated() {
                let here = assignment.bucket >= range.lower && assignment.bucket < range.upper
                let line = range.variant.padding(width) + "  weight \(range.weight)  buckets [\(range.lower), \(range.upper)) = \(range.bucketCount)"
                    + (here ? "  <- bucket \(assignment.bucket)" : "")
                rows.append((index == 0 ? "variants" : "", here ? style.apply(.bold, line) : line))
            }
        }
        for outcome in rules.outcomes where explain || !outcome.passed {
            rows.append(("rule " + outcome.rule, (outcome.passed ? "pass: " : style.apply(.red, "FAIL: ")) + outcome.detail))
        }
        if setup.definition != nil {
            rows.append(("eligible", eligible ? "yes" : "no (first failing rule: \(rules.failed!.rule))"))
        }
        if setup.allocation != nil || setup.definition != nil {
            rows.append(("variant", variant.map { style.apply(.bold, $0) } ?? "none (not in the experiment)"))
        }
        if explain {
            rows.append(("\(otherScheme.rawValue) scheme", "bucket \(other.bucket) of \(otherScheme.bucketCount) (hash \(other.hash) of \"\(other.hashedString)\")"))
            if hazards.isEmpty {
                rows.append(("warnings", "none"))
            } else {
                for (index, hazard) in hazards.enumerated() {
                    rows.append((index == 0 ? "warnings" : "", style.apply(.yellow, hazard.code) + ": " + hazard.message))
                }
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            invocation.stdout.writeLine(label.padding(width) + "  " + value)
        }
        return .success
    }
}

extension String {
    /// Pads with spaces on the right to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
