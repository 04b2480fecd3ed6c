import AppDNACore

/// `bucket --sql DIALECT --bundle FILE`: the assignment query for a warehouse, on stdout and
/// nothing else there; the validator's error count (rule-level errors the SQL reproduces as
/// devices do) goes to stderr.
enum BucketSQL {
    static func run(_ invocation: Invocation, dialect: SQLDialect) throws -> ExitStatus {
        let arguments = invocation.arguments
        guard let path = arguments[BucketFlags.bundle] else {
            throw Failure(.usage, "--sql writes the assignment of a bundle's experiments: give --bundle FILE")
        }
        if let operand = arguments.operand(0) {
            throw Failure(.usage, "--sql takes no operands ('\(operand)'): name experiments with --experiment ID")
        }
        let columns = try WarehouseFlags.columns(arguments, table: arguments[WarehouseFlags.table])
        let experiments = try WarehouseFlags.experiments(invocation, bundlePath: path)
        let query = AssignmentSQL(dialect: dialect, scheme: arguments[BucketFlags.scheme], columns: columns).query(experiments)
        invocation.stdout.writeVerbatim(query)
        return .success
    }
}
