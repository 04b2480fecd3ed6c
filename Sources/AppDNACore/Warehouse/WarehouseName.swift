/// The names of tables and columns a warehouse query reads, as the user gives them: which one
/// is wrong is a fact (`SettingFact.notPlainSQLName`) the CLI words with its flag.
public enum WarehouseName: Sendable, Equatable {
    case usersTable
    case exposuresTable
    case userColumn
    case platformColumn
    case countryColumn
    case appVersionColumn
    case installedAtColumn
    case sdkVersionColumn
    case bundleVersionColumn
    case experimentColumn
    case variantColumn
    case sessionColumn
    case eventIDColumn
    /// The column of a user trait.
    case traitColumn(trait: String)

    /// The name of `role` checked to be a plain identifier (see `SQLQuoting.isPlainIdentifier`);
    /// names are not quoted, so anything else is refused rather than spliced into SQL.
    static func checked(_ name: String, as role: WarehouseName) throws(Failure) -> String {
        guard SQLQuoting.isPlainIdentifier(name) else {
            throw Failure(.usage, "\(role.words) '\(name)' is not a plain SQL identifier (\(SQLQuoting.plainIdentifierRule))",
                          settingFact: .notPlainSQLName(role, name))
        }
        return name
    }

    /// What the name is, without a flag: `the user column`.
    var words: String {
        switch self {
        case .usersTable: return "the table of users"
        case .exposuresTable: return "the table of exposures"
        case .userColumn: return "the user column"
        case .platformColumn: return "the platform column"
        case .countryColumn: return "the country column"
        case .appVersionColumn: return "the app version column"
        case .installedAtColumn: return "the installed-at column"
        case .sdkVersionColumn: return "the SDK version column"
        case .bundleVersionColumn: return "the bundle version column"
        case .experimentColumn: return "the experiment column"
        case .variantColumn: return "the variant column"
        case .sessionColumn: return "the session column"
        case .eventIDColumn: return "the event id column"
        case .traitColumn(let trait): return "the column of trait '\(trait)'"
        }
    }
}
