import Foundation

/// Where an external tool a test needs is installed: the usual directories (Debian, Homebrew on
/// Intel and Apple silicon), then PATH (pip puts its commands there). nil when absent.
public func findTool(_ name: String) -> String? {
    let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    for directory in ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin", "/usr/sbin", "/sbin"] + searchPath {
        let path = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// Whether CI is running us: there a missing test tool is a failure, not a skip.
public var runningInCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }
