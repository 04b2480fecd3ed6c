/// The four queries of `appdna warehouse`, by command name, and the flags each reads.
enum WarehouseQuery: String {
    case assignment, audit, srm, duplicates

    var flags: [FlagSpec] {
        switch self {
        case .assignment: return WarehouseFlags.assignment
        case .audit: return WarehouseFlags.audit
        case .srm: return WarehouseFlags.srm
        case .duplicates: return WarehouseFlags.duplicates
        }
    }
}
