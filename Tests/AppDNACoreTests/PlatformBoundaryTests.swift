import Foundation
import TestSupport
import XCTest

/// Every call into the C library (files, clocks, signals, terminals, sockets, threads, memory,
/// maths, dlopen) lives in `Sources/AppDNACore/Platform`, where each is spelled once per C
/// library (Glibc, Musl, Darwin). Two locks keep it there:
/// - the compiler: only Platform files import Glibc/Musl/Darwin (each in its own file; nothing is
///   re-exported), so elsewhere a C function is "not in scope" (`testOutsideThePlatformLayerTheCLibraryIsNotInScope`);
/// - this scan: no file outside the layer imports a C library (or Foundation, which re-exports
///   one), branches on one (`canImport(Glibc)`), names one (`Darwin.write`), or uses a C
///   function, constant or type by its C name. A name the package also declares as a function
///   (`write`, `read`, `close` are methods of its own types) is left to the compiler.
final class PlatformBoundaryTests: XCTestCase {
    static let platformDirectory = "Sources/AppDNACore/Platform/"

    struct Finding: Equatable, CustomStringConvertible {
        let file: String, line: Int, text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    static let cModules = "Glibc|Musl|Darwin|SwiftGlibc|ucrt|WinSDK|Android|Bionic|WASILibc|CRT"
    static let importRule = try! NSRegularExpression(
        pattern: #"^\s*(@\w+\s+)*((public|internal|package|private|fileprivate)\s+)?import\s+(\#(cModules)|Foundation|FoundationEssentials|Dispatch)\b"#)
    static let branchRule = try! NSRegularExpression(pattern: #"canImport\((\#(cModules))\)"#)
    static let qualifiedRule = try! NSRegularExpression(pattern: #"(?<![\w.])(\#(cModules))\.\w"#)

    /// C functions the tool uses or could reach for: files, directories, descriptors, clocks,
    /// signals, processes, terminals, sockets, threads, loading, memory, strings, maths.
    static let functions = """
    open openat creat close read write pread pwrite readv writev lseek stat lstat fstat fstatat \
    mkdir mkdirat rmdir unlink unlinkat rename renameat link symlink readlink realpath access \
    faccessat chmod fchmod chown fchown ftruncate truncate flock lockf fcntl fsync fdatasync sync \
    opendir fdopendir readdir closedir rewinddir mkdtemp mkstemp tmpfile dup dup2 dup3 pipe pipe2 \
    isatty ttyname ioctl tcgetattr tcsetattr getcwd chdir umask getpid getppid getuid geteuid kill \
    raise signal sigaction sigemptyset sigaddset sigprocmask pthread_sigmask exit _exit _Exit abort \
    atexit getenv setenv unsetenv putenv clock_gettime clock_getres gettimeofday time nanosleep \
    usleep sleep localtime localtime_r gmtime gmtime_r strftime mktime timegm socket socketpair \
    bind listen accept accept4 connect send recv sendto recvfrom sendmsg recvmsg setsockopt \
    getsockopt getsockname getpeername shutdown poll ppoll select epoll_create epoll_ctl \
    epoll_wait kqueue kevent inet_pton inet_ntop inet_addr htons htonl ntohs ntohl getaddrinfo \
    freeaddrinfo gai_strerror pthread_create pthread_join pthread_detach pthread_self \
    pthread_mutex_init pthread_mutex_lock pthread_mutex_unlock pthread_mutex_destroy \
    pthread_cond_init pthread_cond_wait pthread_cond_signal pthread_cond_broadcast \
    pthread_cond_destroy pthread_once dlopen dlsym dlerror dlclose sysconf memchr memrchr memcmp \
    memcpy memmove memset memmem strlen strnlen strcmp strncmp strchr strstr strdup strerror \
    strerror_r malloc calloc realloc free posix_memalign mmap munmap madvise mprotect posix_spawn \
    posix_spawnp fork vfork execve execvp waitpid wait arc4random arc4random_buf getrandom \
    random srandom rand log log2 log10 log1p exp exp2 expm1 pow lgamma tgamma sqrt cbrt floor \
    ceil fabs fmod sin cos tan atan2 printf fprintf puts fputs fopen fclose fread fwrite fflush
    """.split(separator: " ").map(String.init)

    /// C constants and types by their C names (`O_CREAT`, `EINTR`, `SIGINT`, `struct stat`).
    static let constants = try! NSRegularExpression(pattern: #"""
    (?<![\w.])(O_[A-Z]+|S_I[A-Z]+|E(INTR|AGAIN|WOULDBLOCK|NOENT|EXIST|PIPE|IO|ADDRINUSE|CONNABORTED|\
    CONNRESET|MFILE|NFILE|NOSPC|NOTDIR|ISDIR|NXIO|ACCES|PERM|BADF|INVAL|NOMEM|TIMEDOUT)|\
    SIG(INT|TERM|PIPE|KILL|HUP|CHLD|ALRM|USR1|USR2|QUIT)|SIG_(IGN|DFL)|SA_[A-Z]+|CLOCK_[A-Z_]+|\
    AF_(INET6?|UNIX)|SOCK_[A-Z]+|SOL_SOCKET|SO_[A-Z]+|IPPROTO_[A-Z]+|TCP_[A-Z]+|MSG_[A-Z]+|\
    POLL(IN|OUT|ERR|HUP|NVAL)|LOCK_(EX|SH|NB|UN)|F_(GETFL|SETFL|GETFD|SETFD|FULLFSYNC|[A-Z]+_SZ)|\
    FD_CLOEXEC|RTLD_[A-Z]+|[RWXF]_OK|_SC_[A-Z_]+|PATH_MAX|INET_ADDRSTRLEN|STDIN_FILENO|\
    STDOUT_FILENO|STDERR_FILENO|MADV_[A-Z]+|errno|environ|_NSGetEnviron)\b|\
    (?<![\w.])(stat|timespec|timeval|pollfd|sockaddr|sockaddr_in|sockaddr_in6|sigaction|sigset_t|\
    pthread_t|pthread_mutex_t|pthread_cond_t|pthread_attr_t|mode_t|off_t|pid_t|ssize_t|socklen_t|\
    nfds_t|sa_family_t|in_port_t|in_addr|DIR|dirent|FILE|tm|time_t|clockid_t)\s*\(
    """#.replacingOccurrences(of: "\\\n", with: "").replacingOccurrences(of: "\n", with: ""))

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// The code of a line: without its `//` comment and string literals (a rough cut: enough
    /// for "Ctrl-C (SIGINT)" in help text and `// uses fsync` not to count).
    static func code(_ line: String) -> String {
        var result = "", inString = false, previous: Character = " "
        for character in line {
            if !inString && character == "/" && previous == "/" { result.removeLast(); break }
            if character == "\"" && previous != "\\" { inString.toggle(); previous = character; continue }
            if !inString { result.append(character) }
            previous = character
        }
        return result
    }

    /// The findings in one file outside the layer. `ownFunctions` are names the package declares
    /// itself (a call to them is not a C call; the compiler keeps the C ones out of scope). Text
    /// in string literals (help text says "Ctrl-C (SIGINT)") and comments is not code.
    static func check(source: String, file: String, ownFunctions: Set<String>) -> [Finding] {
        let calls = functions.filter { !ownFunctions.contains($0) }
        let callRule = try! NSRegularExpression(pattern: #"(?<![\w.$])(\#(calls.joined(separator: "|")))\s*\("#)
        let declaration = try! NSRegularExpression(pattern: #"\bfunc\s+\w+\s*[(<]"#)
        var findings: [Finding] = []
        var inBlockComment = false, inMultilineString = false
        for (index, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            if inMultilineString || quotes > 0 {
                // Only what is outside the literal counts: before its opening, after its closing.
                let parts = line.components(separatedBy: "\"\"\"")
                var outside: [String] = []
                for (number, part) in parts.enumerated() where (number % 2 == 0) != inMultilineString {
                    outside.append(part)
                }
                if quotes % 2 == 1 { inMultilineString.toggle() }
                line = outside.joined(separator: " ")
            }
            if inBlockComment {
                guard let end = line.range(of: "*/") else { continue }
                line = String(line[end.upperBound...]); inBlockComment = false
            }
            if let start = line.range(of: "/*"), line.range(of: "*/", range: start.upperBound..<line.endIndex) == nil {
                line = String(line[..<start.lowerBound]); inBlockComment = true
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if matches(importRule, trimmed) {
                findings.append(Finding(file: file, line: index + 1, text: "imports a C library (only Core/Platform may): \(trimmed)"))
                continue
            }
            let code = Self.code(line)
            if matches(branchRule, code) {
                findings.append(Finding(file: file, line: index + 1, text: "branches on a C library (spell it in Core/Platform): \(trimmed)"))
            }
            if matches(qualifiedRule, code) {
                findings.append(Finding(file: file, line: index + 1, text: "names a C library module (call Core/Platform): \(trimmed)"))
            }
            let calling = declaration.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) == nil ? code : ""
            if matches(callRule, calling) || matches(constants, code) {
                findings.append(Finding(file: file, line: index + 1, text: "calls the C library (go through Core/Platform): \(trimmed)"))
            }
        }
        return findings
    }

    /// The names the sources declare for things one calls: functions (`func write(`) and closure
    /// properties (`var random: () -> Double`), outside the platform layer.
    static func declaredFunctions(in sources: [String]) -> Set<String> {
        let rule = try! NSRegularExpression(pattern: #"\bfunc\s+(\w+)\s*[(<]|\b(?:let|var)\s+(\w+)\s*:\s*(?:@\w+\s+)*\("#)
        var names: Set<String> = []
        for source in sources {
            for match in rule.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                for group in [1, 2] where match.range(at: group).location != NSNotFound {
                    names.insert(String(source[Range(match.range(at: group), in: source)!]))
                }
            }
        }
        return names
    }

    /// Every finding under `root`'s Sources/, outside the platform layer.
    static func scan(root: URL) throws -> [Finding] {
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !("Sources/" + $0).hasPrefix(platformDirectory) }.sorted()
        let texts = try files.map { try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8) }
        let own = declaredFunctions(in: texts)
        var findings: [Finding] = []
        for (file, text) in zip(files, texts) {
            findings += check(source: text, file: "Sources/" + file, ownFunctions: own)
        }
        return findings
    }

    func testNoCLibraryCallOutsideThePlatformLayer() throws {
        let findings = try Self.scan(root: repositoryRoot)
        XCTAssertEqual(findings, [], "\n" + findings.map(\.description).joined(separator: "\n"))
        // The scan saw the sources, and the layer exists where Package.swift says.
        let platform = repositoryRoot.appendingPathComponent(Self.platformDirectory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: platform.appendingPathComponent("SystemFile.swift").path))
        XCTAssertGreaterThan(FileManager.default.enumerator(atPath: repositoryRoot.appendingPathComponent("Sources").path)!.allObjects.count, 150)
    }

    /// Calls planted in a copy of the sources (a product module, the CLI, the replay engine, the servers) are
    /// named with their file and line.
    func testPlantedCallsAreNamedWithFileAndLine() throws {
        let scratch = try ScratchDirectory("platform-boundary")
        defer { scratch.remove() }
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Sources"), to: scratch.url.appendingPathComponent("Sources"))
        let planted = [
            ("Sources/AppDNACore/Bundle/BundleInput.swift", "func plantedOpen(_ path: String) -> Int32 { open(path, O_RDONLY) }"),
            ("Sources/AppDNACLI/Terminal/OutputSink.swift", "let plantedNow: Int = { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec }()"),
            ("Sources/AppDNAReplay/ReplayEngine.swift", "#if canImport(Glibc)\nimport Glibc\n#endif"),
            ("Sources/AppDNANet/HTTPServer.swift", "func plantedPipe() { var ends: [Int32] = [0, 0]; _ = pipe(&ends); _ = Darwin.close(ends[0]) }"),
            ("Sources/AppDNAServers/Inspector/InspectorGuard.swift", "func plantedRandom() -> Int32 { Glibc.rand() }"),
        ]
        var expected: [String] = []
        for (path, code) in planted {
            let url = scratch.url.appendingPathComponent(path)
            let before = try String(contentsOf: url, encoding: .utf8)
            let first = before.split(separator: "\n", omittingEmptySubsequences: false).count + (before.hasSuffix("\n") ? 0 : 1)
            try (before + (before.hasSuffix("\n") ? "" : "\n") + code + "\n").write(to: url, atomically: true, encoding: .utf8)
            for (offset, line) in code.split(separator: "\n").enumerated() where line != "#endif" {
                expected.append("\(path):\(first + offset)")
            }
        }
        let findings = try Self.scan(root: scratch.url)
        XCTAssertEqual(Set(findings.map { "\($0.file):\($0.line)" }), Set(expected), findings.map(\.description).joined(separator: "\n"))
        // Each kind of finding is worded: a C call, a C-library branch, an import, a qualified name.
        let texts = findings.map(\.text).joined(separator: "\n")
        for kind in ["calls the C library", "branches on a C library", "imports a C library", "names a C library module"] {
            XCTAssertTrue(texts.contains(kind), "\(kind) in \(texts)")
        }
    }

    func testTheScanTellsCCallsFromTheToolsOwnNames() {
        let own: Set<String> = ["write", "close"]
        let flagged = """
        let fd = open(path, O_RDONLY)
        _ = fstat(fd, &info)
        if errno == EINTR { retry() }
        var spec = timespec()
        _ = signal(SIGPIPE, SIG_IGN)
        let n = memchr(base, 10, count)
        import Foundation
        """
        XCTAssertEqual(Self.check(source: flagged, file: "f.swift", ownFunctions: own).map(\.line), [1, 2, 3, 4, 5, 6, 7])
        let fine = """
        sink.write(bytes)
        write(text)           // the type's own method
        file.close()
        func read(_ body: (Int) -> Bool) {}
        let line = "Ctrl-C (SIGINT) stops it"
        // calls fsync(fd) through DiskSync
        let status = FileStatus.of(path: path)
        SystemFile.close(fd)
        let help = \"\"\"
            Ctrl-C (SIGINT) or SIGTERM stops it; see stat(2)
            \"\"\"
        let stat = flags.stat.spec
        """
        XCTAssertEqual(Self.check(source: fine, file: "f.swift", ownFunctions: own), [])
        // Names the package declares are its own: a function, a closure property.
        let declared = Self.declaredFunctions(in: ["func log(_ line: String) {}", "public var random: @Sendable () -> Double"])
        XCTAssertEqual(declared, ["log", "random"])
        XCTAssertEqual(Self.check(source: "log(x)\nlet u = random()", file: "f.swift", ownFunctions: declared), [])
        XCTAssertEqual(Self.check(source: "log(x)\nlet u = random()", file: "f.swift", ownFunctions: []).count, 2)
    }

    /// The compiler's half: a module that imports AppDNACore (as every module above it does)
    /// does not see the C library, so a C call there does not build; the error names the line.
    func testOutsideThePlatformLayerTheCLibraryIsNotInScope() throws {
        let swiftc = try requireTool("swiftc", because: "type-checks a planted C call against the built AppDNACore")
        guard let modules = Self.builtModules else {
            throw missing("the built AppDNACore module", because: "the planted call is type-checked against it",
                          remedy: "build first (swift build --build-tests)")
        }
        let scratch = try ScratchDirectory("platform-scope")
        defer { scratch.remove() }
        let planted = try scratch.file("Planted.swift", Array("""
        import AppDNACore

        func plantedPid() -> Int32 { getpid() }
        func plantedClock() -> Int64 { SystemTime.monotonicNanoseconds() }
        """.utf8))
        // The C targets' module maps, as the build passes them (AppDNACore imports CSHA256).
        let build = URL(fileURLWithPath: modules).deletingLastPathComponent()
        let maps = try FileManager.default.contentsOfDirectory(atPath: build.path).filter { $0.hasSuffix(".build") && !$0.hasSuffix("-tool.build") }
            .map { build.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let run = try ProcessRunner.run(swiftc, ["-typecheck", "-module-name", "Planted", "-I", modules, planted]
                                        + maps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] }, environment: nil)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("Planted.swift:3:30: error: cannot find 'getpid' in scope"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Planted.swift:4"), "the platform layer's own API is in scope: \(run.stderr)")
    }

    /// The directory of the built modules (`.build/<triple>/debug/Modules` or CI's release one).
    static var builtModules: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let modules = directory.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: modules.appendingPathComponent("AppDNACore.swiftmodule").path) { return modules.path }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
