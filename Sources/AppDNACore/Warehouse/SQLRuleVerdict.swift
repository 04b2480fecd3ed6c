/// One eligibility rule as two SQL conditions over a row: when it fails and when it cannot be
/// checked (its column is not mapped or NULL). Rules whose outcome is the same for every row
/// (status, malformed targeting) fold to constants, so the query only carries what varies.
struct SQLRuleVerdict {
    let failed: String
    let unknown: String

    static let passed = SQLRuleVerdict(failed: "FALSE", unknown: "FALSE")
    static let failedForAll = SQLRuleVerdict(failed: "TRUE", unknown: "FALSE")
    static let unknownForAll = SQLRuleVerdict(failed: "FALSE", unknown: "TRUE")

    /// A rule over `column`: unknown where it is NULL, failed where `fails` (a condition on a
    /// non-NULL value) is not true.
    static func on(_ column: String?, passes: (String) -> String) -> SQLRuleVerdict {
        guard let column else { return unknownForAll }
        return SQLRuleVerdict(failed: "(\(column) IS NOT NULL AND NOT coalesce(\(passes(column)), FALSE))", unknown: "(\(column) IS NULL)")
    }

    /// `yes`, `no` or `unknown`, as `bucket` prints it: no when any rule fails (devices stop
    /// at the first failure, so which one does not change the verdict), unknown when none
    /// fails but some could not be checked.
    static func eligibleColumn(_ rules: [SQLRuleVerdict]) -> (eligible: String, mayAssign: String) {
        let failed = rules.map(\.failed).filter { $0 != "FALSE" }
        let unknown = rules.map(\.unknown).filter { $0 != "FALSE" }
        if failed.contains("TRUE") { return ("'no'", "FALSE") }
        let anyFailed = failed.isEmpty ? "FALSE" : failed.joined(separator: " OR ")
        let anyUnknown = unknown.isEmpty ? "FALSE" : unknown.joined(separator: " OR ")
        let eligible = "CASE WHEN \(anyFailed) THEN 'no' WHEN \(anyUnknown) THEN 'unknown' ELSE 'yes' END"
        return (eligible, "NOT (\(anyFailed))")
    }
}
