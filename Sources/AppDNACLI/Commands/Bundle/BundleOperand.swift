import AppDNACore

/// A bundle operand of `bundle validate`, `diff` and `codegen`, as their plans decide it: a
/// file (read through `CommandIO.files`), standard input, or the live bundle. The spelling is
/// checked when it is decided (an `@name` other than `@remote` is 64), and a file is looked at
/// (`checkPresent`) by the plans that refuse a missing one, before anything is read or sent.
enum BundleOperand: Equatable {
    case file(String)
    case standardInput
    case remote

    init(_ text: String) throws {
        try BundleArgument.checkSpelling(text)
        self = text == "-" ? .standardInput : text == BundleArgument.remote ? .remote : .file(text)
    }

    /// The name a report shows: the path, `<stdin>` or `@remote`.
    var name: String {
        switch self {
        case .file(let path): return path
        case .standardInput: return BundleInput.stdinName
        case .remote: return BundleArgument.remote
        }
    }

    /// As the user wrote it (for a command to run again).
    var argument: String {
        switch self {
        case .file(let path): return path
        case .standardInput: return "-"
        case .remote: return BundleArgument.remote
        }
    }

    /// A file that is missing or a directory is 66, worded as reading it would word it.
    func checkPresent(_ files: any FileAccess) throws(Failure) {
        guard case .file(let path) = self else { return }
        let isDirectory: Bool
        do {
            isDirectory = try files.kind(path: path) == .directory
        } catch {
            throw Failure(.inputMissing, "\(path): \(error)")
        }
        if isDirectory { throw Failure(.inputMissing, "\(path): is a directory") }
    }

    /// Its bytes, unparsed (`bundle validate` reports syntax errors as findings); the live
    /// bundle comes in the SDK file shape.
    func input(_ invocation: Invocation, live: LiveBundleSource?) throws -> BundleInput {
        switch self {
        case .file(let path):
            return BundleInput(name: path, source: ByteSource(try invocation.io.files.readAll(path: path)))
        case .standardInput:
            return try BundleInput.load(fileDescriptor: invocation.io.stdinDescriptor, name: BundleInput.stdinName, sizeHint: 0)
        case .remote:
            let document = try Self.live(live).document(invocation)
            return BundleInput(name: BundleArgument.remote, source: ByteSource(BundleFileShape.sdkFileBytes(document.root)))
        }
    }

    /// It parsed; `sdkShape` lays a bundle in the API's shape out as the SDK file (what `@remote`
    /// always is), so the two compare by content.
    func document(_ invocation: Invocation, live: LiveBundleSource?, sdkShape: Bool) throws -> JSONDocument {
        if self == .remote { return try Self.live(live).document(invocation) }
        let document = try BundleArgument.parse(try input(invocation, live: nil))
        return sdkShape ? try BundleArgument.sdkShape(document) : document
    }

    /// A plan with an operand `@remote` holds its source (`LiveBundleSource.plan`).
    private static func live(_ source: LiveBundleSource?) throws -> LiveBundleSource {
        guard let source else { throw Failure(.internalError, "@remote without its source in the plan") }
        return source
    }
}
