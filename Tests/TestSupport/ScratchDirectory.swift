import Foundation

/// A fresh directory under the temporary directory for one test (a unique name, so parallel
/// tests never meet), removed by `remove()`: the one temporary-directory helper of all test
/// targets.
public struct ScratchDirectory {
    public let url: URL

    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    /// Writes `bytes` to `name` in the directory and returns its path.
    public func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The repository root, found from this file's path (tests never read ../shared).
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
