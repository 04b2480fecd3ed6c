/// The four queries of `appdna warehouse`, by command name: the flags each reads, its help,
/// and its entry in the command table (one shape for the four, made here once).
enum WarehouseQuery: String, CaseIterable {
    case assignment, audit, srm, duplicates

    /// `appdna warehouse NAME` with `run`, as the table lists it.
    func command(run: CommandRun) -> CommandSpec {
        CommandSpec(["warehouse", rawValue], summary: summary, discussion: discussion, operands: [WarehouseHelp.bundleOperand],
                    flags: flags, examples: examples, run: run)
    }

    var summary: String {
        switch self {
        case .assignment: return "SQL that buckets every user of a table: variant and eligibility per experiment"
        case .audit: return "SQL that lists the recorded exposures that disagree with the bundle, with the likely cause"
        case .srm: return "SQL that tests each running experiment's exposures for a sample-ratio mismatch"
        case .duplicates: return "SQL that counts exposures repeated within a session, per experiment"
        }
    }

    var discussion: String {
        switch self {
        case .assignment: return WarehouseHelp.assignmentDiscussion
        case .audit: return WarehouseHelp.auditDiscussion
        case .srm: return WarehouseHelp.srmDiscussion
        case .duplicates: return WarehouseHelp.duplicatesDiscussion
        }
    }

    var examples: [ExampleSpec] {
        switch self {
        case .assignment: return WarehouseHelp.assignmentExamples
        case .audit: return WarehouseHelp.auditExamples
        case .srm: return WarehouseHelp.srmExamples
        case .duplicates: return WarehouseHelp.duplicatesExamples
        }
    }

    var flags: [FlagSpec] {
        switch self {
        case .assignment: return WarehouseFlags.assignment
        case .audit: return WarehouseFlags.audit
        case .srm: return WarehouseFlags.srm
        case .duplicates: return WarehouseFlags.duplicates
        }
    }
}
