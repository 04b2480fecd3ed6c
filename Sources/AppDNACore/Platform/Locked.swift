/// A value several threads share, reachable only with its lock held: the one place the
/// project vouches for thread safety by hand (as swift-nio's `NIOLockedValueBox` does), so a
/// class keeping its shared state in a `Locked` box has only `let` properties and is plainly
/// `Sendable`, checked by the compiler.
///
/// Keep what is read together in one value (a struct), so one `withLock` sees it consistent.
public final class Locked<Value> {
    private let lock = PthreadLock()
    /// Touched only inside `lock.locked`.
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock: what `body` changes, the next holder sees.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.locked { () throws(E) -> R in try body(&value) }
    }

    /// Holding the lock, waits on `condition` until `isReady` holds, then runs `body`. While
    /// waiting the lock is released (others change the value and `broadcast`); `waiters`, when
    /// given, counts the threads waiting, so a producer can tell whether to wake one or start
    /// one. The value is never lent out across a wait: each check is an access of its own.
    public func withLock<R>(waitingOn condition: PthreadCondition, counting waiters: WritableKeyPath<Value, Int>? = nil,
                            until isReady: (Value) -> Bool, _ body: (inout Value) -> R) -> R {
        lock.locked {
            while !isReady(value) {
                if let waiters { value[keyPath: waiters] += 1 }
                lock.wait(condition)
                if let waiters { value[keyPath: waiters] -= 1 }
            }
            return body(&value)
        }
    }
}

// Why unchecked: `value` is a `var` the compiler cannot see guarded; every access to it above
// is inside `lock.locked`, and only Sendable values are shared this way.
extension Locked: @unchecked Sendable where Value: Sendable {}
