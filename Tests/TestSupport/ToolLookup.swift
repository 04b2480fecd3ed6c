import Foundation

/// Where an external tool a test needs is installed: the first on PATH, as a shell finds it (a
/// pyenv or virtualenv python3 with the modules pip installed comes before the system's), then
/// the usual directories (Debian, Homebrew on Intel and Apple silicon) for a test run with a
/// short PATH. nil when absent.
public func findTool(_ name: String) -> String? {
    let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    for directory in searchPath + ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin", "/usr/sbin", "/sbin"] {
        let path = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
