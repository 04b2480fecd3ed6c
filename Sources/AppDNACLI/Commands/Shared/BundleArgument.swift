import AppDNACore
import AppDNANet

/// The one way every command reads the bundle it is given (`bundle validate|diff|codegen`,
/// `bucket --bundle`, `queue inspect --bundle`, `warehouse …`): a file, `-` for standard
/// input, or `@remote` for the live bundle, fetched as `bundle fetch` does (the command's
/// --key-file, --timeout and --retries) and laid out in the SDK file shape. One wording for
/// every failure: `NAME:LINE:COLUMN: what is wrong`, with a pointer to `bundle validate`.
enum BundleArgument {
    /// The operand that stands for the live bundle.
    static let remote = "@remote"

    /// A spelling of the live bundle other than `@remote` is refused before anything is read
    /// (a file whose name starts with @ is written ./@name).
    static func checkSpelling(_ path: String) throws {
        if path.hasPrefix("@") && path != remote {
            throw Failure(.usage, "'\(path)': the live bundle is spelled @remote (a file name starting with @ needs ./ before it)")
        }
    }

    /// The bytes of the bundle `path` names, unparsed (for `bundle validate`, which reports
    /// syntax errors as findings).
    /// `api`: the API flags a plan holds, for `@remote` (else they are read from the arguments,
    /// for the commands not yet planned: issue 54.1).
    static func input(_ path: String, _ invocation: Invocation, api: APISettings? = nil) throws -> BundleInput {
        try checkSpelling(path)
        if path == remote {
            let document = try api.map { try liveBundle(over: LiveBundleConnection(invocation, api: $0)) } ?? liveBundle(invocation)
            return BundleInput(name: remote, source: ByteSource(BundleFileShape.sdkFileBytes(document.root)), skippedLines: 0, skippedColumns: 0)
        }
        return try BundleInput.load(path: path, stdinDescriptor: invocation.io.stdinDescriptor)
    }

    /// The bundle `path` names, parsed; `sdkShape` lays a file in the API's shape out as the
    /// SDK file (what `@remote` always is), so the two compare by content.
    /// `api`: the API flags a plan holds, for `@remote` (else they are read from the arguments).
    static func document(_ path: String, _ invocation: Invocation, sdkShape: Bool = false, api: APISettings? = nil) throws -> JSONDocument {
        try checkSpelling(path)
        if path == remote { return try liveBundle(over: LiveBundleConnection(invocation, api: api ?? APISettings(invocation.arguments))) }
        let document = try parse(try BundleInput.load(path: path, stdinDescriptor: invocation.io.stdinDescriptor))
        return sdkShape ? try Self.sdkShape(document) : document
    }

    /// The live bundle, fetched as `bundle fetch` does and laid out in the SDK file shape.
    static func liveBundle(_ invocation: Invocation) throws -> JSONDocument {
        try liveBundle(over: LiveBundleConnection(invocation))
    }

    /// The live bundle over `connection`, in the SDK file shape.
    static func liveBundle(over connection: LiveBundleConnection) throws -> JSONDocument {
        let response = try connection.downloadBundle()
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: response.body)
        } catch {
            throw Failure(.unavailable, "@remote: the response of \(connection.base)\(AppDNAAPI.bundlePath) is not JSON: \(error.message)")
        }
        return try sdkShape(document)
    }

    /// `document` in the SDK file shape (what `bundle fetch` writes); not an object: as it is.
    static func sdkShape(_ document: JSONDocument) throws -> JSONDocument {
        guard document.root.kind == .object else { return document }
        return try JSONDocument(bytes: BundleFileShape.sdkFileBytes(document.root))
    }

    /// Parses `input`; on a syntax error, the validator's first finding (its wording) and where.
    static func parse(_ input: BundleInput) throws(Failure) -> JSONDocument {
        try input.parsed()
    }
}
