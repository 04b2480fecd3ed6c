import Foundation
@testable import AppDNACLI
import AppDNACore

// bundle, codegen, completions (issue 54.3): what `FileAccess` asks beyond writing, in memory.
// A file is a path of `contents`, a directory one of `directories`; a path in `refused` is a
// file or a directory that may not be written (its directory, for a file).
extension InMemoryFiles {
    /// `contents` and `directories` that exist at the start.
    convenience init(_ contents: [String: [UInt8]] = [:], directories: Set<String>, refused: Set<String> = []) {
        self.init(contents, refused: refused)
        state.withLock { $0.directories.formUnion(directories) }
    }

    var directories: Set<String> { state.withLock { $0.directories } }

    func kind(path: String) throws(SystemError) -> FileStatus.Kind {
        let state = state.withLock { $0 }
        if state.contents[path] != nil { return .regular }
        if state.directories.contains(path) { return .directory }
        throw .notFound
    }

    func readAll(path: String) throws(Failure) -> [UInt8] {
        let state = state.withLock { $0 }
        if state.directories.contains(path) { throw Failure(.inputMissing, "\(path): is a directory") }
        guard let bytes = state.contents[path] else { throw Failure(.inputMissing, "\(path): \(SystemError.notFound)") }
        return bytes
    }

    func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        guard directories.contains(path) else { throw .notFound }
        if refused.contains(path) { throw SystemError(code: EACCES) }
    }

    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let refusal: SystemError? = state.withLock { state in
            if state.contents[path] != nil || state.directories.contains(path) { return .exists }
            guard state.directories.contains(parent) else { return .notFound }
            if refused.contains(parent) { return SystemError(code: EACCES) }
            state.directories.insert(path)
            return nil
        }
        if let refusal { throw refusal }
    }
}
