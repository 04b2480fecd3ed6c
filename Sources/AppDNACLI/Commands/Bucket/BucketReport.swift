import AppDNACore

/// One user's assignment, in text (aligned `label  value` lines) or as one JSON document.
/// The JSON fields are documented in docs/schemas/bucket.schema.json and only ever added to.
enum BucketReport {
    static func run(_ invocation: Invocation, _ plan: BucketPlan, setup: BucketSetup, user: String) -> ExitStatus {
        let explain = plan.explain
        if plan.json {
            invocation.stdout.write(JSONWriter(indent: 2).write(.object(document(setup: setup, user: user, explain: explain))))
            invocation.stdout.writeLine()
            return .success
        }
        writeText(invocation, setup: setup, user: user, explain: explain)
        return .success
    }

    /// Whether devices may assign (true unless a checked rule failed), and the variant they assign.
    static func variant(setup: BucketSetup, bucket: UInt32, verdict: EligibilityVerdict) -> String? {
        verdict.mayAssign ? setup.allocation?.variant(forBucket: bucket) : nil
    }

    /// `eligible` in JSON: true, false, or "unknown" when rules could not be checked.
    static func eligibleJSON(_ verdict: EligibilityVerdict) -> JSONValue {
        switch verdict {
        case .eligible: return .bool(true)
        case .notEligible: return .bool(false)
        case .unknown: return .string("unknown")
        }
    }

    static func ruleJSON(_ outcome: RuleOutcome) -> JSONValue {
        ["rule": .string(outcome.rule), "passed": .bool(outcome.passed), "state": .string(outcome.state.rawValue),
         "detail": .string(outcome.detail), "settled_by": outcome.settledBy.map { JSONValue.string($0.flagText) } ?? .null]
    }

    /// Everything one report shows: the assignment, the rules and verdict, the variant, the
    /// portability hazards (with --explain) and the other scheme's answer.
    static func compute(setup: BucketSetup, user: String, explain: Bool)
        -> (BucketAssignment, (outcomes: [RuleOutcome], failed: RuleOutcome?, verdict: EligibilityVerdict), String?, [PortabilityHazard], BucketingScheme, BucketAssignment) {
        let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
        let rules = setup.rules(for: user)
        let hazards = explain ? PortabilityHazards.check(user: user, experiment: setup.experiment, salt: setup.salt, scheme: setup.scheme) : []
        let otherScheme: BucketingScheme = setup.scheme == .sdk ? .docs : .sdk
        return (assignment, rules, variant(setup: setup, bucket: assignment.bucket, verdict: rules.verdict), hazards, otherScheme,
                otherScheme.assign(user: user, experiment: setup.experiment, salt: setup.salt))
    }

    /// The single-experiment JSON document (also each element of the all-experiments array).
    static func document(setup: BucketSetup, user: String, explain: Bool) -> JSONObject {
        let (assignment, rules, variant, hazards, otherScheme, other) = compute(setup: setup, user: user, explain: explain)
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
        if let definition = setup.definition {
            object["status"] = definition.status.map(JSONValue.string) ?? .null
            object["eligible"] = eligibleJSON(rules.verdict)
            object["rules"] = .array(rules.outcomes.map(ruleJSON))
            object["failed_rule"] = rules.failed.map { .string($0.rule) } ?? .null
            object["unchecked_rules"] = .array(rules.verdict.uncheckedRules.map { .string($0.rule) })
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
        return object
    }

    static func writeText(_ invocation: Invocation, setup: BucketSetup, user: String, explain: Bool) {
        let (assignment, rules, variant, hazards, otherScheme, other) = compute(setup: setup, user: user, explain: explain)
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
            let mark: String
            switch outcome.state {
            case .passed: mark = "pass: "
            case .failed: mark = style.apply(.red, "FAIL: ")
            case .unknown: mark = style.apply(.yellow, "not checked: ")
            }
            let detail = outcome.detail + (outcome.settledBy.map { " (settle with \($0.flagText))" } ?? "")
            rows.append(("rule " + outcome.rule, mark + detail))
        }
        if setup.definition != nil {
            rows.append(("eligible", verdictText(rules.verdict)))
        }
        if setup.allocation != nil || setup.definition != nil {
            let shown = variant.map { style.apply(.bold, $0) + (rules.verdict.uncheckedRules.isEmpty ? "" : " (if the unchecked rules pass)") }
            rows.append(("variant", shown ?? "none (not in the experiment)"))
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
        LabelValueBlock.write(rows, to: invocation.stdout)
    }

    /// `yes`, `no (first failing rule: …)` or `unknown (not checked: platform, countries)`.
    static func verdictText(_ verdict: EligibilityVerdict) -> String {
        switch verdict {
        case .eligible: return "yes"
        case .notEligible(let failed): return "no (first failing rule: \(failed.rule))"
        case .unknown(let unchecked): return "unknown (not checked: " + unchecked.map(\.rule).joined(separator: ", ") + ")"
        }
    }
}

extension String {
    /// Pads with spaces on the right to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
