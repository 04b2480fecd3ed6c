import AppDNACore
import AppDNANet

/// `[#########...........]  1200/5000 events` on a terminal stderr, at most ten times a second.
/// Thread-safe: workers update it and print notes above it while the main thread clears it.
final class ProgressBar: Sendable {
    /// Back to the start of the line and erase it (markers the sink turns into CR and ESC).
    static let eraseLine = TerminalText.carriageReturn + TerminalText.escape + "[K"
    let total: Int
    let enabled: Bool
    let sink: OutputSink
    /// What is counted (`events`, `tries`).
    let unit: String
    /// What is on screen; held while drawing, so lines and the bar never interleave.
    private let screen = Locked(Screen())

    private struct Screen {
        var lastDraw: Int64 = 0
        /// The bar as last drawn, "" when none is on screen.
        var shown = ""
    }

    init(total: Int, enabled: Bool, sink: OutputSink, unit: String = "events") {
        self.total = total
        self.enabled = enabled
        self.sink = sink
        self.unit = unit
    }

    func update(_ done: Int) {
        guard enabled else { return }
        screen.withLock { screen in
            let now = Deadline.now()
            guard done >= total || now - screen.lastDraw > 100_000_000 else { return }
            screen.lastDraw = now
            let width = 30
            let filled = total > 0 ? min(width, done * width / total) : width
            let percent = total > 0 ? done * 100 / total : 100
            screen.shown = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(done)/\(total) \(unit) \(percent)%"
            sink.write(TerminalText.carriageReturn + screen.shown)
            sink.flush()
        }
    }

    /// Prints `line` on a line of its own above the bar, which is drawn again below it.
    func interject(_ line: String) {
        screen.withLock { screen in
            if screen.shown.isEmpty {
                sink.writeLine(line)
            } else {
                sink.write(Self.eraseLine + line + TerminalText.newline + TerminalText.carriageReturn + screen.shown)
            }
            sink.flush()
        }
    }

    func clear() {
        guard enabled else { return }
        screen.withLock { screen in
            guard !screen.shown.isEmpty else { return }
            sink.write(Self.eraseLine)
            sink.flush()
            screen.shown = ""
        }
    }
}
