import AppDNACore

/// `bucket --self-test`: prints each failing vector, then one line of totals; exit 0 or 70
/// (a failure here is a bug in this build, not in the user's input).
enum BucketSelfTest {
    static func run(_ invocation: Invocation, _ plan: BucketPlan) -> ExitStatus {
        let results = SelfTest.run()
        let failed = results.filter { !$0.passed }
        if plan.json {
            invocation.stdout.write(JSONWriter(indent: 2).write([
                "passed": .integer(results.count - failed.count),
                "failed": .integer(failed.count),
                "failures": .array(failed.map { ["name": .string($0.name), "detail": .string($0.detail)] }),
            ]))
            invocation.stdout.writeLine()
        } else {
            for result in results where invocation.options.verbose || !result.passed {
                invocation.stdout.writeLine((result.passed ? "ok    " : "FAIL  ") + result.name + (result.passed ? "" : ": " + result.detail))
            }
            invocation.stdout.writeLine("self-test: \(results.count - failed.count) passed, \(failed.count) failed")
        }
        return failed.isEmpty ? .success : .internalError
    }
}
