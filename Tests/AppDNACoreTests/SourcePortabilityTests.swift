import Foundation
import XCTest

/// Nobody can build the Darwin side on this Linux machine, so the sources are read instead:
/// a Linux-only identifier outside a platform branch stops a macOS build (or misbehaves
/// there), and a Linux branch with no Darwin (or `#else`) counterpart leaves macOS without the
/// code. (`PortabilityHazardTests` is about something else: ids that hash differently across
/// the SDKs' platforms.)
final class SourcePortabilityTests: XCTestCase {
    /// Identifiers that glibc has and Darwin's headers (xnu bsd/sys/*.h, Libc) do not, or spell
    /// with other types. Each is a regular expression over one line of Swift.
    static let linuxOnly: [(pattern: String, why: String)] = [
        (#"\bSOCK_CLOEXEC\b"#, "Darwin has no SOCK_CLOEXEC (bsd/sys/socket.h): fcntl(FD_CLOEXEC) after socket()"),
        (#"\bSOCK_NONBLOCK\b"#, "Darwin has no SOCK_NONBLOCK: fcntl(O_NONBLOCK)"),
        (#"\baccept4\b"#, "accept4 is Linux-only"),
        (#"\bpipe2\b"#, "pipe2 is Linux-only on the macOS versions supported"),
        (#"\bepoll_\w+"#, "epoll is Linux-only (Darwin has kqueue)"),
        (#"\bfdatasync\b"#, "Darwin does not declare fdatasync: use DiskSync"),
        (#"\bO_TMPFILE\b"#, "O_TMPFILE is Linux-only"),
        (#"\bF_SETPIPE_SZ\b|\bF_GETPIPE_SZ\b"#, "pipe sizes are Linux-only"),
        (#"\bMADV_HUGEPAGE\b"#, "transparent huge pages are Linux-only"),
        (#"\bsched_getaffinity\b|\bCPU_COUNT\b"#, "CPU affinity is Linux-only"),
        (#""/proc/|"/sys/"#, "/proc and /sys do not exist on Darwin"),
        (#"\b(SOCK_STREAM|SOCK_DGRAM|IPPROTO_TCP|IPPROTO_UDP|MSG_NOSIGNAL|SHUT_RDWR|SHUT_WR)\.rawValue\b"#,
         "glibc's socket constants are enums with rawValue; Darwin's are Int32 macros"),
        (#"\bMSG_NOSIGNAL\b"#, "older Darwin SDKs lack MSG_NOSIGNAL: Darwin uses SO_NOSIGPIPE (Platform/Sockets)"),
        (#"\bpthread_t\(\)"#, "Darwin's pthread_t is a non-optional pointer with no init()"),
        (#"\bfcntl\([^,]+,\s*\d+"#, "a bare fcntl command number is Linux's numbering"),
        (#"\bmadvise\([^)]*,\s*\d+\s*(/\*[^*]*\*/\s*)?\)"#, "a bare madvise advice number is Linux's numbering"),
        (#"\b__errno_location\b|\bprogram_invocation_name\b"#, "glibc-only symbols"),
        (#"\b__sigaction_handler\b"#, "glibc's name for sigaction's handler union: Darwin's is __sigaction_u (Platform/Interruption)"),
    ]

    struct Finding: Equatable, CustomStringConvertible {
        let file: String, line: Int, text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    static let linuxCondition = try! NSRegularExpression(pattern: #"canImport\((Glibc|Musl)\)|os\(Linux\)|os\(Android\)"#)
    static let darwinCondition = try! NSRegularExpression(pattern: #"canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)"#)
    /// A Linux branch with no Darwin counterpart is allowed only when the `#if` line says why.
    static let tuningMarker = "// Linux-only tuning:"

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Every problem in one Swift source text.
    static func check(source: String, file: String) -> [Finding] {
        let hazards = linuxOnly.map { (try! NSRegularExpression(pattern: $0.pattern), $0.why) }
        // One frame per open #if: whether the current branch is Linux-only, and whether the
        // group so far has a branch Darwin takes.
        struct Frame { var linuxBranch: Bool; var sawLinux: Bool; var darwinCovered: Bool; var exempt: Bool; let line: Int; let text: String }
        var stack: [Frame] = []
        var findings: [Finding] = []
        for (index, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if ") || trimmed.hasPrefix("#if(") {
                let linux = matches(linuxCondition, trimmed) && !matches(darwinCondition, trimmed) && !trimmed.contains("!")
                stack.append(Frame(linuxBranch: linux, sawLinux: linux, darwinCovered: matches(darwinCondition, trimmed) && !trimmed.contains("!"),
                                   exempt: trimmed.contains(tuningMarker), line: index + 1, text: trimmed))
                continue
            }
            if trimmed.hasPrefix("#elseif"), !stack.isEmpty {
                let linux = matches(linuxCondition, trimmed) && !matches(darwinCondition, trimmed) && !trimmed.contains("!")
                stack[stack.count - 1].linuxBranch = linux
                stack[stack.count - 1].sawLinux = stack[stack.count - 1].sawLinux || linux
                if matches(darwinCondition, trimmed) { stack[stack.count - 1].darwinCovered = true }
                continue
            }
            if trimmed.hasPrefix("#else"), !stack.isEmpty {
                // An #else after Linux branches is where Darwin goes; after a Darwin branch it is Linux.
                let frame = stack[stack.count - 1]
                stack[stack.count - 1].linuxBranch = frame.darwinCovered && !frame.sawLinux
                stack[stack.count - 1].darwinCovered = true
                continue
            }
            if trimmed.hasPrefix("#endif"), let frame = stack.popLast() {
                if frame.sawLinux && !frame.darwinCovered && !frame.exempt {
                    findings.append(Finding(file: file, line: frame.line, text: "Linux branch with no Darwin counterpart (add #elseif canImport(Darwin) or #else, or `\(tuningMarker) why` on the #if line): \(frame.text)"))
                }
                continue
            }
            if stack.contains(where: \.linuxBranch) { continue }
            let code = trimmed.hasPrefix("//") ? "" : line
            guard !code.isEmpty else { continue }
            for (regex, why) in hazards where matches(regex, code) {
                findings.append(Finding(file: file, line: index + 1, text: "\(why): \(trimmed)"))
            }
        }
        return findings
    }

    static var sourcesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    func testSourcesHaveNoUnguardedLinuxOnlyCalls() throws {
        let root = Self.sourcesDirectory
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 50, "the scan must see the sources")
        var findings: [Finding] = []
        for url in files {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            findings += Self.check(source: try String(contentsOf: url, encoding: .utf8), file: relative)
        }
        XCTAssertEqual(findings, [], findings.map(\.description).joined(separator: "\n"))
    }

    func testPlantedViolationsAreCaught() {
        let planted = """
        func open() -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            _ = fdatasync(fd)
            var thread = pthread_t()
            _ = fcntl(fd, 1031, 1 << 20)
            _ = send(fd, nil, 0, Int32(MSG_NOSIGNAL))
            return fd
        }
        """
        let lines = Self.check(source: planted, file: "Planted.swift").map(\.line)
        // Line 2 twice (SOCK_CLOEXEC, and .rawValue on a socket constant), then one per line.
        XCTAssertEqual(lines, [2, 2, 3, 4, 5, 6], "\(lines)")
    }

    func testGuardedLinuxCodeNeedsADarwinCounterpart() {
        let onlyLinux = """
        #if canImport(Glibc)
        _ = fdatasync(fd)
        #endif
        """
        let findings = Self.check(source: onlyLinux, file: "Planted.swift")
        XCTAssertEqual(findings.count, 1, "\(findings)")
        XCTAssertTrue(findings.first?.text.contains("no Darwin counterpart") ?? false)

        let paired = """
        #if canImport(Glibc) || canImport(Musl)
        return fdatasync(fd)
        #elseif canImport(Darwin)
        return fcntl(fd, F_FULLFSYNC)
        #endif
        """
        XCTAssertEqual(Self.check(source: paired, file: "Planted.swift"), [])

        let darwinFirst = """
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        """
        XCTAssertEqual(Self.check(source: darwinFirst, file: "Planted.swift"), [])

        let notLinux = """
        #if !os(Linux)
        _ = fdatasync(fd)
        #endif
        """
        XCTAssertEqual(Self.check(source: notLinux, file: "Planted.swift").count, 1, "a !Linux branch is not a Linux branch")
    }
}
