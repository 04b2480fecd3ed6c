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

    /// The bundle `path` names, parsed; `sdkShape` lays a file in the API's shape out as the
    /// SDK file (what `@remote` always is), so the two compare by content.
    /// `api`: the API flags the plan holds, for `@remote`. A file is read through the
    /// command's files (`BundleOperand`, the one reader of a bundle operand).
    static func document(_ path: String, _ invocation: Invocation, sdkShape: Bool = false, api: APISettings? = nil) throws -> JSONDocument {
        let operand = try BundleOperand(path)
        if operand == .remote {
            guard let api else { throw Failure(.internalError, "@remote without its API settings in the plan") }
            return try liveBundle(over: LiveBundleConnection(invocation, api: api))
        }
        return try operand.document(invocation, live: nil, sdkShape: sdkShape)
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
