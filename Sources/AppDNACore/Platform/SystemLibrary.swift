#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The three system libraries `appdna` loads with `dlopen` on first use instead of linking them:
/// the release binary carries its Swift runtime (built with --static-swift-stdlib) and needs
/// nothing else at start-up, so a machine without one of these libraries can still run every
/// command that does not use it. The command that does use it fails with the one line below.
///
/// Each library's search can be replaced by one file through an environment variable
/// (`APPDNA_LIBCURL`, `APPDNA_LIBSQLITE3`, `APPDNA_LIBZ`): for a library in an unusual place,
/// and for the tests, which point it at a file that does not exist to see exactly what a user
/// without the library sees.
public struct SystemLibrary: Sendable {
    /// "libcurl".
    public let name: String
    /// What the library is needed for, for the message.
    public let neededFor: String
    /// The Debian/Ubuntu package that installs it.
    public let debianPackage: String
    /// The environment variable that replaces the search with one file.
    public let overrideVariable: String
    /// The files `open()` tries in turn (the C loaders of libcurl and zlib have their own).
    public var fileNames: [String] = []

    public static let curl = SystemLibrary(
        name: "libcurl", neededFor: "HTTPS requests (bundle fetch, bundle diff @remote, queue replay)",
        debianPackage: "libcurl4", overrideVariable: "APPDNA_LIBCURL")
    #if canImport(Darwin)
    static let sqliteFiles = ["libsqlite3.dylib", "/usr/lib/libsqlite3.dylib"]
    #else
    static let sqliteFiles = ["libsqlite3.so.0", "libsqlite3.so"]
    #endif
    public static let sqlite = SystemLibrary(
        name: "libsqlite3", neededFor: "reading Android queue databases",
        debianPackage: "libsqlite3-0", overrideVariable: "APPDNA_LIBSQLITE3", fileNames: sqliteFiles)
    public static let zlib = SystemLibrary(
        name: "zlib", neededFor: "compressing event batches (queue replay)",
        debianPackage: "zlib1g", overrideVariable: "APPDNA_LIBZ")

    /// One line that names the library, what it is for and the package to install; `detail` is
    /// the loader's reason (usually dlerror's "cannot open shared object file").
    public func missing(_ detail: String) -> Failure {
        Failure(.unavailable, "cannot load \(name), needed for \(neededFor): \(detail); install the \(debianPackage) package (Debian/Ubuntu: apt-get install \(debianPackage); macOS ships \(name) with the system)")
    }

    /// Runs a C loader of the form `int load(char *message, size_t size)` (CCurlLoader,
    /// CZlibLoader: 0 when the library is loaded, else the reason written into `message`) and
    /// throws its reason worded by `missing`. Cheap after the first success (the loaders keep
    /// their handle), so callers run it before every use.
    public func load(with loader: (_ message: UnsafeMutablePointer<CChar>, _ size: Int) -> Int32) throws(Failure) {
        var message = [CChar](repeating: 0, count: 512)
        let status = message.withUnsafeMutableBufferPointer { loader($0.baseAddress!, $0.count) }
        guard status != 0 else { return }
        throw missing(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// `dlopen` (RTLD_NOW | RTLD_LOCAL) of the first of `fileNames` that loads, or of the one
    /// file the override variable names; `missing` with the loader's first reason otherwise.
    public func open() throws(Failure) -> LoadedLibrary {
        var names = fileNames
        if let override = ProcessEnvironment.value(overrideVariable), !override.isEmpty { names = [override] }
        var firstError: String? = nil
        for name in names {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) { return LoadedLibrary(handle: handle) }
            if firstError == nil { firstError = dlerror().map { String(cString: $0) } }
        }
        throw missing(firstError ?? "\(names.first ?? name) not found")
    }
}

/// A library `SystemLibrary.open` loaded; it stays loaded for the life of the process.
public struct LoadedLibrary: Sendable {
    /// The `dlopen` handle as its address: a pointer is not Sendable, and this one is only an
    /// identifier for `dlsym`, never dereferenced here.
    private let address: UInt

    init(handle: UnsafeMutableRawPointer) { address = UInt(bitPattern: handle) }

    /// `dlsym`: the address of the function `name`, nil when the library has none.
    public func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(UnsafeMutableRawPointer(bitPattern: address), name) }
}
