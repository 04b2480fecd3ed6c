import Foundation
import XCTest

/// The built `appdna` with its output going where a user's goes: a pipe (a CI log, `| less`,
/// `> file`) or a pseudo-terminal. The bytes are read as the process writes them (a server's
/// log lines while it runs), raw: the terminal is put in raw mode, so nothing is translated
/// (no LF → CRLF) and every byte the program wrote is what the test sees.
final class CapturedOutputProcess: @unchecked Sendable {
    enum Target: String { case pipe, terminal }

    let process = Process()
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var readers: [Thread] = []
    private let readersDone = DispatchGroup()

    /// Starts `appdna arguments` (or another `executable`: a script that installs it); `stdin`
    /// is fed and closed (nil: /dev/null).
    init(_ arguments: [String], executable: URL = Binary.url, target: Target, stdin: [UInt8]? = nil, environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        switch target {
        case .pipe:
            for stream in 1...2 {
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                let handle = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
                if stream == 1 { process.standardOutput = handle } else { process.standardError = handle }
            }
        case .terminal:
            let (master, slave) = try Self.openRawPseudoTerminal()
            parentEnds.append(master)
            childEnds.append(slave)
            let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            process.standardOutput = handle
            process.standardError = handle
        }
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        for end in childEnds { close(end) }  // the child has them; EOF (or EIO) comes when it exits
        for end in parentEnds { startReading(end) }
        if let stdin {
            let writer = input.fileHandleForWriting
            Thread { writer.write(Data(stdin)); try? writer.close() }.start()
        }
    }

    /// A pseudo-terminal pair in raw mode: (master, slave).
    static func openRawPseudoTerminal() throws -> (Int32, Int32) {
        #if os(Linux)
        // Glibc's module hides the XSI pseudo-terminal calls (they need _XOPEN_SOURCE): look
        // them up in the C library already loaded.
        let libc = dlopen(nil, RTLD_NOW)
        func function<T>(_ name: String, as type: T.Type) throws -> T {
            guard let symbol = dlsym(libc, name) else { throw POSIXError(.ENOSYS) }
            return unsafeBitCast(symbol, to: type)
        }
        let posix_openpt = try function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        let grantpt = try function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlockpt = try function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let ptsname = try function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        #endif
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else { throw POSIXError(.EIO) }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.EIO) }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        return (master, slave)
    }

    private func startReading(_ descriptor: Int32) {
        readersDone.enter()
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(descriptor, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }  // EOF, or EIO from a terminal whose last writer closed it
                lock.lock(); bytes.append(contentsOf: buffer[0..<n]); lock.unlock()
            }
            close(descriptor)
            readersDone.leave()
        }
        readers.append(thread)
        thread.start()
    }

    /// What was written so far (stdout and stderr together).
    var output: [UInt8] { lock.lock(); defer { lock.unlock() }; return bytes }
    var text: String { String(decoding: output, as: UTF8.self) }

    /// Waits up to `timeout` seconds for `pattern` in the output; the first match.
    func waitFor(_ pattern: String, timeout: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let range = text.range(of: pattern, options: .regularExpression) { return String(text[range]) }
            if !process.isRunning { break }
            usleep(20_000)
        }
        return text.range(of: pattern, options: .regularExpression).map { String(text[$0]) }
    }

    /// Sends `signal` (a server's Ctrl-C) and waits for the process and its output.
    func stop(_ signal: Int32 = SIGINT) -> [UInt8] {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return finish()
    }

    /// Waits for the process to end and its output to be read.
    func finish() -> [UInt8] {
        process.waitUntilExit()
        _ = readersDone.wait(timeout: .now() + 20)
        return output
    }

    /// Runs `appdna arguments` to the end and returns everything it wrote.
    static func run(_ arguments: [String], target: Target, stdin: [UInt8]? = nil, environment: [String: String]) throws -> [UInt8] {
        try CapturedOutputProcess(arguments, target: target, stdin: stdin, environment: environment).finish()
    }
}
