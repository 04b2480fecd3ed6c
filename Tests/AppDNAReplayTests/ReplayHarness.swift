import Foundation
import AppDNACore
import AppDNANet
import AppDNAReplay
import TestSupport

/// One queue file and its state directory under /tmp (removed by `cleanUp`), and a replay of
/// it through the engine over a scripted transport and a virtual clock: no socket, no waiting.
final class ReplayHarness {
    static let key = "adn_live_REPLAYsecretKEY0123456789zz3f9a"
    /// 2026-02-19T10:00:00Z
    static let now: Int64 = 1_771_495_200_000

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-replay-engine-\(UUID().uuidString)").path
    var queuePath: String { directory + "/pending_events.json" }
    var stateDirectory: String { queuePath + ".appdna-replay" }
    let clock = VirtualClock(wallStart: ReplayHarness.now)

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }

    static func id(_ n: Int) -> String { TestEvents.id(n) }

    /// An SDK-shaped event an hour old, as stored on a device (spacing and key order included).
    static func event(_ n: Int, platform: String = "ios", sdk: String = "1.0.78") -> String {
        TestEvents.stored(n, ts: now - 3_600_000, platform: platform, sdk: sdk)
    }

    /// An NDJSON queue of the events `numbers` (and any extra lines).
    func writeQueue(_ numbers: ClosedRange<Int>, extra: [String] = []) throws {
        let text = (numbers.map { Self.event($0) } + extra).joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: queuePath))
    }

    func transport(_ script: @escaping @Sendable (_ index: Int, _ ids: [String]) -> ScriptedTransport.Reply = { _, _ in .answer(200) }) -> ScriptedTransport {
        ScriptedTransport(clock: clock, key: Self.key, script)
    }

    /// Plans and sends the queue as `queue replay --yes` would, with `--retries retries`.
    func replay(_ transport: ScriptedTransport, retries: Int = 3, settings change: (inout ReplaySettings) -> Void = { _ in },
                interruption: @escaping @Sendable () -> Int32 = { 0 },
                onProgress: @escaping @Sendable (Int) -> Void = { _ in }) throws -> (plan: ReplayPlan, outcome: ReplayOutcome) {
        // What `queue replay` gets when no flag is given (QueueReplayFlags, APIFlags.batchTimeout).
        var settings = ReplaySettings(batchSize: 20, concurrency: 1, rate: nil, maxAgeMilliseconds: 7 * 86_400_000,
                                      includeStale: false, now: Self.now, timeout: 600)
        change(&settings)
        let sources = [try QueueSource.detect(path: queuePath)]
        let journal = try ReplayJournal(directory: stateDirectory)
        let plan = try ReplayPlan.make(sources, settings: settings, journal: journal)
        // No jitter (a draw of 0.5 is the middle): back-off waits are exactly 1 s, 2 s, 4 s.
        let client = HTTPClient(transport: transport, policy: RetryPolicy(maxRetries: retries), clock: clock, random: { 0.5 })
        let api = AppDNAAPI(base: "http://127.0.0.1:9", key: try APIKey(Self.key, source: "test"), client: client)
        let engine = ReplayEngine(api: api, settings: settings, journal: journal,
                                  deadLetter: DeadLetterFile(path: stateDirectory + "/dead-letter.ndjson"),
                                  interruption: interruption, onProgress: onProgress)
        return (plan, try engine.send(sources))
    }

    func deadLetters() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: stateDirectory + "/dead-letter.ndjson", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
