/// Installing a signal handler: `struct sigaction` names its handler field differently on each
/// C library. glibc: a union `__sigaction_handler` with `sa_handler` (bits/sigaction.h); musl:
/// a union `__sa_handler` with `sa_handler`; Darwin: a union `__sigaction_u` with
/// `__sa_handler` (xnu bsd/sys/signal.h: `struct sigaction { union __sigaction_u
/// __sigaction_u; sigset_t sa_mask; int sa_flags; }`; `sa_handler` is only a C macro).
public enum SignalHandling {
    /// Runs `handler` (which may only do async-signal-safe things) for each of `signals`.
    public static func install(_ handler: @convention(c) (Int32) -> Void, for signals: [Int32]) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #elseif canImport(Musl)
        action.__sa_handler.sa_handler = handler
        #elseif canImport(Darwin)
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        for signal in signals { _ = sigaction(signal, &action, nil) }
    }
}
