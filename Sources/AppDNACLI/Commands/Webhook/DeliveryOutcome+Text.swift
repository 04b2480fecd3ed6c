import AppDNACore
import AppDNANet
import AppDNAServers

/// `webhook listen`'s text line for a delivery: a rendering of the library's `DeliveryOutcome`
/// (as its `--json` line and inspector entry are), in the terminal's colours.
extension DeliveryOutcome {
    /// "2026-…Z  subscription.renewed  evt_1  valid (secret 1 of 1, from --secret-file s.txt)  -> forwarded: 201 in 7.8 ms"
    func textLine(style: Styler) -> String {
        let verdict = check.verdictText(secrets: secrets, words: words)
        let colored = style.apply(check.isValid ? .green : .red, String(verdict.prefix(while: { $0 != " " && $0 != ":" })))
            + String(verdict.drop(while: { $0 != " " && $0 != ":" }))
        let outcome: String
        if let forward {
            let latency = NumberText.milliseconds(forward.milliseconds)
            let answerCut = forward.answer?.bodyWasCut ?? false
            let cut = answerCut ? " (its answer cut to the first \(NumberText.binarySize(DeliveryForward.relayedAnswerBytes)))" : ""
            outcome = forward.status.map { "forwarded: \($0) in \(latency)\(cut)" } ?? "forward failed after \(latency): \(forward.error!); answered \(response.status)"
        } else {
            outcome = "answered \(response.status)" + (check.isValid ? "" : ", not forwarded")
        }
        return "\(time)  \(check.event)  \(check.id)  \(colored)  -> \(outcome)"
    }
}
